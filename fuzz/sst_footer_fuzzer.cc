// Fuzzes the SST footer decoder. The input's last 56 bytes are the footer,
// as a table reader takes them from the end of a file.
//
// Pins: a failure is Corruption; a footer that decodes carries the magic
// number and a checksum that matches its first 44 bytes (checked here
// independently), so damage is never decoded as handles; and decode ->
// encode -> decode gives the same handles and the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "table/format.h"
#include "util/coding.h"
#include "util/crc32c.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kLength = shale::Footer::kEncodedLength;
  if (size < kLength) return 0;
  const char* base = reinterpret_cast<const char*>(data) + size - kLength;
  shale::Footer footer;
  const shale::Status s = footer.DecodeFrom(shale::Slice(base, kLength));
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return 0;

  constexpr size_t kCrcOffset = shale::Footer::kHandlesBytes + 4;
  FUZZ_CHECK(shale::DecodeFixed64(base + kCrcOffset + 4) == shale::kShaleTableMagicNumber);
  FUZZ_CHECK(shale::crc32c::Unmask(shale::DecodeFixed32(base + kCrcOffset)) ==
             shale::crc32c::Value(base, kCrcOffset));

  std::string encoded;
  footer.EncodeTo(&encoded);
  FUZZ_CHECK(encoded.size() == kLength);
  shale::Footer again;
  FUZZ_CHECK(again.DecodeFrom(encoded).ok());
  FUZZ_CHECK(again.metaindex_handle.offset() == footer.metaindex_handle.offset());
  FUZZ_CHECK(again.metaindex_handle.size() == footer.metaindex_handle.size());
  FUZZ_CHECK(again.index_handle.offset() == footer.index_handle.offset());
  FUZZ_CHECK(again.index_handle.size() == footer.index_handle.size());
  std::string reencoded;
  again.EncodeTo(&reencoded);
  FUZZ_CHECK(reencoded == encoded);
  return 0;
}
