// The block-based SST format (docs/sst_format.md has the long version).
//
//   file      := data_block* filter_block? index_block properties_block
//                metaindex_block footer
//   block     := contents | type:u8 | crc:fixed32
//     type = the CompressionType the contents are stored with (0: raw;
//     util/compression.h frames the others; any other value: Corruption).
//     crc = Mask(crc32c(contents | type | fixed64(offset))) over the stored
//     (compressed) bytes, where offset is the block's own file offset
//     ("context checksum"): a handle pointing at another block, or a
//     misdirected read, fails it.
//   handle    := offset:varint64 | size:varint64    (size excludes trailer)
//   footer    := metaindex_handle | index_handle | zero padding to 40 bytes |
//                format_version:fixed32 (=1) |
//                crc:fixed32 = Mask(crc32c(the 44 bytes before it)) |
//                magic:fixed64 (kShaleTableMagicNumber)       -- 56 bytes
//   properties:= version:varint32 (=2) | 10 x varint64 (TableProperties order)
//                | compression:varint64    (version 1, still read: no codec)
// All integers little-endian. Data and index blocks are block.h's format;
// the filter is filter_block.h's; metaindex maps "shale.filter" and
// "shale.properties" to handles.
//
// Thread safety: values; ReadBlock is safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shale/options.h"
#include "shale/slice.h"
#include "shale/status.h"
#include "table/table.h"
#include "util/file_reader.h"

namespace shale {

constexpr uint64_t kShaleTableMagicNumber = 0x53484c5354424c31ull;  // on disk: "1LBTSLHS"
constexpr uint32_t kShaleTableFormatVersion = 1;
constexpr size_t kBlockTrailerBytes = 5;  // type + crc

// Metaindex keys.
constexpr const char* kFilterBlockName = "shale.filter";
constexpr const char* kPropertiesBlockName = "shale.properties";

class BlockHandle {
 public:
  static constexpr size_t kMaxEncodedLength = 20;  // two varint64s

  BlockHandle() = default;
  BlockHandle(uint64_t offset, uint64_t size) : offset_(offset), size_(size) {}
  uint64_t offset() const { return offset_; }
  uint64_t size() const { return size_; }

  void EncodeTo(std::string* dst) const;
  // Consumes the handle from *input; Corruption if malformed.
  [[nodiscard]] Status DecodeFrom(Slice* input);

 private:
  uint64_t offset_ = 0;
  uint64_t size_ = 0;
};

struct Footer {
  static constexpr size_t kHandlesBytes = 40;
  static constexpr size_t kEncodedLength = kHandlesBytes + 4 + 4 + 8;  // 56

  BlockHandle metaindex_handle;
  BlockHandle index_handle;

  void EncodeTo(std::string* dst) const;
  // REQUIRES: input holds exactly kEncodedLength bytes. Checks magic,
  // version and checksum.
  [[nodiscard]] Status DecodeFrom(const Slice& input);
};

// The masked checksum stored in a block trailer: over the contents, the type
// byte and fixed64(offset), offset being where the block starts in the file.
uint32_t BlockChecksum(const Slice& contents, uint8_t type, uint64_t offset);

// A checksum-verified block's contents: owned (in heap), or, when heap is
// null, lying in the map of the file it was read from (valid while that
// file's reader lives).
struct BlockContents {
  Slice data;  // points into heap, or into the file's map
  std::unique_ptr<char[]> heap;
  bool owned() const { return heap != nullptr; }
};

// Bytes of a file already read: [offset, offset + bytes.size()). Does not
// own them.
struct FilePrefetch {
  uint64_t offset = 0;
  Slice bytes;
  bool Covers(uint64_t start, uint64_t n) const {
    return start >= offset && n <= bytes.size() && start - offset <= bytes.size() - n;
  }
};

// Reads the block at handle, verifies its trailer (type and checksum) and
// hands back its contents, decompressed. Corruption if the handle runs past
// file_size_bytes, the read is short, the checksum fails, or the stored
// bytes do not decompress (util/compression.h). When prefetch (may be null)
// holds the whole block and trailer, they come from it, not the file; the
// checks are the same. The contents are owned, except that an uncompressed
// block read from a mapped file (RandomAccessFileReader::mapped) is left in
// the map, uncopied.
[[nodiscard]] Status ReadBlock(const RandomAccessFileReader* file, uint64_t file_size_bytes,
                               const BlockHandle& handle, BlockContents* result,
                               const FilePrefetch* prefetch = nullptr);

// Properties block: version:varint32 (=2), the ten TableProperties counters
// as varint64 in declaration order, then the compression type as varint64.
// Version 1 (no compression field) decodes with compression kNoCompression.
void EncodeTableProperties(const TableProperties& props, std::string* dst);
[[nodiscard]] Status DecodeTableProperties(Slice input, TableProperties* props);

}  // namespace shale
