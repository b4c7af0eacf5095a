#include "table/format.h"

#include "util/check.h"
#include "util/coding.h"
#include "util/compression.h"
#include "util/crc32c.h"

namespace shale {

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint64(dst, offset_);
  PutVarint64(dst, size_);
}

Status BlockHandle::DecodeFrom(Slice* input) {
  if (GetVarint64(input, &offset_) && GetVarint64(input, &size_)) return Status::OK();
  return Status::Corruption("bad block handle");
}

namespace {
constexpr size_t kFooterCrcOffset = Footer::kHandlesBytes + 4;
}  // namespace

void Footer::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  metaindex_handle.EncodeTo(dst);
  index_handle.EncodeTo(dst);
  SHALE_CHECK(dst->size() - start <= kHandlesBytes);
  dst->resize(start + kHandlesBytes, '\0');
  PutFixed32(dst, kShaleTableFormatVersion);
  PutFixed32(dst, crc32c::Mask(crc32c::Value(dst->data() + start, kFooterCrcOffset)));
  PutFixed64(dst, kShaleTableMagicNumber);
  SHALE_CHECK(dst->size() - start == kEncodedLength);
}

Status Footer::DecodeFrom(const Slice& input) {
  SHALE_CHECK(input.size() == kEncodedLength);
  const char* base = input.data();
  if (DecodeFixed64(base + kFooterCrcOffset + 4) != kShaleTableMagicNumber) {
    return Status::Corruption("not a Shale table (bad magic number)");
  }
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(base + kFooterCrcOffset));
  if (crc32c::Value(base, kFooterCrcOffset) != expected) {
    return Status::Corruption("table footer checksum mismatch");
  }
  if (DecodeFixed32(base + kHandlesBytes) != kShaleTableFormatVersion) {
    return Status::Corruption("unsupported table format version");
  }
  Slice handles(base, kHandlesBytes);
  Status s = metaindex_handle.DecodeFrom(&handles);
  if (s.ok()) s = index_handle.DecodeFrom(&handles);
  return s;
}

namespace {
// BlockChecksum with the contents' crc already taken.
uint32_t FinishBlockChecksum(uint32_t contents_crc, uint8_t type, uint64_t offset) {
  char tail[9];
  tail[0] = static_cast<char>(type);
  EncodeFixed64(tail + 1, offset);
  return crc32c::Mask(crc32c::Extend(contents_crc, tail, sizeof(tail)));
}
}  // namespace

uint32_t BlockChecksum(const Slice& contents, uint8_t type, uint64_t offset) {
  return FinishBlockChecksum(crc32c::Value(contents.data(), contents.size()), type, offset);
}

Status ReadBlock(const RandomAccessFileReader* file, uint64_t file_size_bytes,
                 const BlockHandle& handle, BlockContents* result, const FilePrefetch* prefetch) {
  const uint64_t offset = handle.offset();
  const uint64_t size = handle.size();
  if (offset > file_size_bytes || size > file_size_bytes - offset ||
      kBlockTrailerBytes > file_size_bytes - offset - size) {
    return Status::Corruption("block handle past end of file", file->path());
  }
  const size_t n = static_cast<size_t>(size) + kBlockTrailerBytes;
  const bool from_prefetch = prefetch != nullptr && prefetch->Covers(offset, n);
  std::unique_ptr<char[]> buf;  // the read's scratch, unless the file maps
  Slice got;
  if (from_prefetch) {
    got = Slice(prefetch->bytes.data() + (offset - prefetch->offset), n);
  } else {
    if (!file->mapped()) buf.reset(new char[n]);
    Status s = file->Read(offset, n, &got, buf.get());
    if (!s.ok()) return s;
  }
  if (got.size() != n) return Status::Corruption("truncated block read", file->path());
  const char* data = got.data();  // a file may return its own buffer
  // The contents first, then the trailer: a block not yet in the CPU's
  // cache (a mapped file) is then fetched front to back in one stream, not
  // with a separate miss on its last line.
  const uint32_t contents_crc = crc32c::Value(data, static_cast<size_t>(size));
  const uint32_t stored = DecodeFixed32(data + size + 1);
  const uint8_t type = static_cast<uint8_t>(data[size]);
  if (FinishBlockChecksum(contents_crc, type, offset) != stored) {
    return Status::Corruption("block checksum mismatch", file->path());
  }
  if (type != kNoCompression) {
    // Decoded into its own buffer: data may point into buf.
    std::unique_ptr<char[]> decoded;
    size_t decoded_bytes = 0;
    Status s =
        UncompressBlock(type, Slice(data, static_cast<size_t>(size)), &decoded, &decoded_bytes);
    if (!s.ok()) return Status::Corruption(s.message(), file->path());
    result->data = Slice(decoded.get(), decoded_bytes);
    result->heap = std::move(decoded);
    return Status::OK();
  }
  if (!from_prefetch && file->mapped()) {
    result->data = Slice(data, static_cast<size_t>(size));  // stays in the map
    result->heap.reset();
    return Status::OK();
  }
  if (buf == nullptr || data != buf.get()) {
    std::unique_ptr<char[]> copy(new char[size]);
    std::memcpy(copy.get(), data, static_cast<size_t>(size));
    buf = std::move(copy);
  }
  result->data = Slice(buf.get(), static_cast<size_t>(size));
  result->heap = std::move(buf);
  return Status::OK();
}

namespace {
// Version 1: the ten counters. Version 2 adds the compression type.
constexpr uint32_t kPropertiesVersionCounters = 1;
constexpr uint32_t kPropertiesVersion = 2;

// Every TableProperties field, in the on-disk order.
template <typename Props, typename Fn>
void ForEachProperty(Props& p, Fn&& fn) {
  for (auto* field : {&p.num_entries, &p.num_deletions, &p.num_data_blocks, &p.raw_key_bytes,
                      &p.raw_value_bytes, &p.data_size_bytes, &p.index_size_bytes,
                      &p.filter_size_bytes, &p.smallest_seqno, &p.largest_seqno}) {
    if (!fn(field)) return;
  }
}
}  // namespace

void EncodeTableProperties(const TableProperties& props, std::string* dst) {
  PutVarint32(dst, kPropertiesVersion);
  ForEachProperty(props, [dst](const uint64_t* field) {
    PutVarint64(dst, *field);
    return true;
  });
  PutVarint64(dst, props.compression);
}

Status DecodeTableProperties(Slice input, TableProperties* props) {
  uint32_t version = 0;
  if (!GetVarint32(&input, &version) ||
      (version != kPropertiesVersion && version != kPropertiesVersionCounters)) {
    return Status::Corruption("bad table properties version");
  }
  bool ok = true;
  ForEachProperty(*props, [&](uint64_t* field) { return ok = GetVarint64(&input, field); });
  uint64_t compression = kNoCompression;  // version 1 predates compression
  if (ok && version == kPropertiesVersion) {
    ok = GetVarint64(&input, &compression) && compression <= UINT8_MAX &&
         IsBlockCompressionType(static_cast<uint8_t>(compression));
  }
  if (!ok || !input.empty()) return Status::Corruption("bad table properties");
  props->compression = static_cast<CompressionType>(compression);
  return Status::OK();
}

}  // namespace shale
