// Fuzzes the block codecs (util/compression.h). The first byte picks the
// codec and what the rest is:
//   * stored bytes: decoding them is OK or Corruption, never a crash, and
//     an OK decode holds exactly the length the framing records, at most
//     kMaxUncompressedBlockBytes;
//   * a raw block: compressing it and decoding the result gives it back.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "util/coding.h"
#include "util/compression.h"

namespace {

constexpr shale::CompressionType kCodecs[] = {shale::kSnappyCompression, shale::kLZ4Compression,
                                              shale::kZSTD};

// The decoded length the framing's leading varint32 records (every codec's
// framing starts with one), or false if there is none.
bool RecordedLength(const shale::Slice& stored, uint32_t* n) {
  shale::Slice in = stored;
  return shale::GetVarint32(&in, n);
}

void CheckDecode(shale::CompressionType type, const shale::Slice& stored) {
  std::unique_ptr<char[]> out;
  size_t n = 0;
  const shale::Status s = shale::UncompressBlock(type, stored, &out, &n);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return;
  uint32_t recorded = 0;
  FUZZ_CHECK(RecordedLength(stored, &recorded));
  FUZZ_CHECK(n == recorded);
  FUZZ_CHECK(n <= shale::kMaxUncompressedBlockBytes);
}

void CheckRoundTrip(shale::CompressionType type, const shale::Slice& raw) {
  shale::BlockCompressor compressor(type);
  std::string stored;
  FUZZ_CHECK(compressor.Compress(raw, &stored));
  std::unique_ptr<char[]> out;
  size_t n = 0;
  const shale::Status s = shale::UncompressBlock(type, stored, &out, &n);
  FUZZ_CHECK_MSG(s.ok(), s.ToString());
  FUZZ_CHECK(shale::Slice(out.get(), n) == raw);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const shale::CompressionType type = kCodecs[data[0] % 3];
  const shale::Slice rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] & 0x80) {
    CheckRoundTrip(type, rest);
  } else {
    CheckDecode(type, rest);
  }
  return 0;
}
