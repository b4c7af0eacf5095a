// Block codecs: Snappy, LZ4 and ZSTD from their libraries, with the framing
// docs/sst_format.md gives for a compressed SST block.
//
//   snappy := snappy's own format (it records the decoded length)
//   lz4    := decoded_bytes:varint32 | LZ4 block
//   zstd   := decoded_bytes:varint32 | ZSTD frame
//
// Decoding never trusts the stored bytes: a length over
// kMaxUncompressedBlockBytes, bytes that do not decode, or a decoded length
// other than the recorded one is Corruption, never data.
//
// Thread safety: the free functions are safe to call concurrently; a
// BlockCompressor is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/options.h"
#include "shale/slice.h"
#include "shale/status.h"

namespace shale {

// The largest block a compressed block may decode to. Larger blocks (a
// single value above it) are stored uncompressed.
constexpr size_t kMaxUncompressedBlockBytes = size_t{1} << 26;  // 64 MiB

// True for the four types a block trailer may hold.
bool IsBlockCompressionType(uint8_t type);
// (CompressionTypeName and ParseCompressionType are public: shale/options.h.)

// RocksDB's rule: a block is worth storing compressed only if it shrank by
// at least one eighth.
inline bool GoodCompressionRatio(size_t compressed_bytes, size_t raw_bytes) {
  return compressed_bytes < raw_bytes - raw_bytes / 8;
}

// Compresses blocks with one codec, reusing its context across blocks.
// Ownership: owns the codec context. Thread safety: one thread at a time.
class BlockCompressor {
 public:
  // REQUIRES: IsBlockCompressionType(type).
  explicit BlockCompressor(CompressionType type);
  ~BlockCompressor();
  BlockCompressor(const BlockCompressor&) = delete;
  BlockCompressor& operator=(const BlockCompressor&) = delete;

  CompressionType type() const { return type_; }
  // Replaces *framed with raw compressed and framed as above. False when
  // the type is kNoCompression, raw is larger than
  // kMaxUncompressedBlockBytes or the codec fails: the caller stores raw.
  [[nodiscard]] bool Compress(const Slice& raw, std::string* framed);

 private:
  const CompressionType type_;
  void* zstd_context_ = nullptr;  // a ZSTD_CCtx for kZSTD
};

// Decodes a block stored with trailer type `type`. On success *decoded holds
// exactly *decoded_bytes bytes. Corruption for an unknown type and for
// bytes that do not decode as described above.
// REQUIRES: type != kNoCompression.
[[nodiscard]] Status UncompressBlock(uint8_t type, const Slice& framed,
                                     std::unique_ptr<char[]>* decoded, size_t* decoded_bytes);

}  // namespace shale
