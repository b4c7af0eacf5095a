#include "util/compression.h"

#include <lz4.h>
#include <snappy.h>
#include <zstd.h>

#include <climits>

#include "util/check.h"
#include "util/coding.h"

namespace shale {

bool IsBlockCompressionType(uint8_t type) {
  return type == kNoCompression || type == kSnappyCompression || type == kLZ4Compression ||
         type == kZSTD;
}

namespace {
struct NamedType {
  CompressionType type;
  const char* name;
  const char* rocksdb_name;
};
constexpr NamedType kNames[] = {
    {kNoCompression, "none", "kNoCompression"},
    {kSnappyCompression, "snappy", "kSnappyCompression"},
    {kLZ4Compression, "lz4", "kLZ4Compression"},
    {kZSTD, "zstd", "kZSTD"},
    {kDisableCompressionOption, "disable", "kDisableCompressionOption"},
};
}  // namespace

const char* CompressionTypeName(CompressionType type) {
  for (const NamedType& n : kNames) {
    if (n.type == type) return n.name;
  }
  return "unknown";
}

bool ParseCompressionType(std::string_view name, CompressionType* type) {
  for (const NamedType& n : kNames) {
    if (name == n.name || name == n.rocksdb_name) {
      *type = n.type;
      return true;
    }
  }
  return false;
}

BlockCompressor::BlockCompressor(CompressionType type) : type_(type) {
  SHALE_CHECK(IsBlockCompressionType(type));
  if (type == kZSTD) zstd_context_ = ZSTD_createCCtx();
}

BlockCompressor::~BlockCompressor() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_context_)); }

namespace {
// Appends the varint32 decoded length; returns where the payload starts.
size_t PutDecodedLength(size_t raw_bytes, std::string* framed) {
  framed->clear();
  PutVarint32(framed, static_cast<uint32_t>(raw_bytes));
  return framed->size();
}
}  // namespace

bool BlockCompressor::Compress(const Slice& raw, std::string* framed) {
  if (raw.size() > kMaxUncompressedBlockBytes) return false;
  switch (type_) {
    case kSnappyCompression: {
      framed->resize(snappy::MaxCompressedLength(raw.size()));
      size_t n = 0;
      snappy::RawCompress(raw.data(), raw.size(), framed->data(), &n);
      framed->resize(n);
      return true;
    }
    case kLZ4Compression: {
      const size_t start = PutDecodedLength(raw.size(), framed);
      const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
      if (bound <= 0) return false;
      framed->resize(start + static_cast<size_t>(bound));
      const int n = LZ4_compress_default(raw.data(), framed->data() + start,
                                         static_cast<int>(raw.size()), bound);
      if (n <= 0) return false;
      framed->resize(start + static_cast<size_t>(n));
      return true;
    }
    case kZSTD: {
      if (zstd_context_ == nullptr) return false;
      const size_t start = PutDecodedLength(raw.size(), framed);
      framed->resize(start + ZSTD_compressBound(raw.size()));
      const size_t n =
          ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_context_), framed->data() + start,
                            framed->size() - start, raw.data(), raw.size(), ZSTD_CLEVEL_DEFAULT);
      if (ZSTD_isError(n)) return false;
      framed->resize(start + n);
      return true;
    }
    default:
      return false;
  }
}

namespace {
// Reads the varint32 decoded length in front of an LZ4 or ZSTD payload.
Status TakeDecodedLength(Slice* framed, size_t* decoded_bytes) {
  uint32_t n = 0;
  if (!GetVarint32(framed, &n)) return Status::Corruption("compressed block: bad length");
  if (n > kMaxUncompressedBlockBytes) {
    return Status::Corruption("compressed block: decoded length over the limit");
  }
  *decoded_bytes = n;
  return Status::OK();
}

Status UncompressSnappy(const Slice& framed, std::unique_ptr<char[]>* out, size_t* n) {
  if (!snappy::GetUncompressedLength(framed.data(), framed.size(), n)) {
    return Status::Corruption("snappy block: bad length");
  }
  if (*n > kMaxUncompressedBlockBytes) {
    return Status::Corruption("snappy block: decoded length over the limit");
  }
  out->reset(new char[*n == 0 ? 1 : *n]);
  if (!snappy::RawUncompress(framed.data(), framed.size(), out->get())) {
    return Status::Corruption("snappy block does not decode");
  }
  return Status::OK();
}

Status UncompressLz4(Slice framed, std::unique_ptr<char[]>* out, size_t* n) {
  Status s = TakeDecodedLength(&framed, n);
  if (!s.ok()) return s;
  if (framed.size() > static_cast<size_t>(INT_MAX)) {
    return Status::Corruption("lz4 block: payload over the limit");
  }
  out->reset(new char[*n == 0 ? 1 : *n]);
  const int got = LZ4_decompress_safe(framed.data(), out->get(), static_cast<int>(framed.size()),
                                      static_cast<int>(*n));
  if (got < 0 || static_cast<size_t>(got) != *n) {
    return Status::Corruption("lz4 block does not decode to its recorded length");
  }
  return Status::OK();
}

Status UncompressZstd(Slice framed, std::unique_ptr<char[]>* out, size_t* n) {
  Status s = TakeDecodedLength(&framed, n);
  if (!s.ok()) return s;
  // The frame's own content size, when present, must agree before anything
  // is allocated for it.
  const unsigned long long frame_bytes = ZSTD_getFrameContentSize(framed.data(), framed.size());
  if (frame_bytes == ZSTD_CONTENTSIZE_ERROR ||
      (frame_bytes != ZSTD_CONTENTSIZE_UNKNOWN && frame_bytes != *n)) {
    return Status::Corruption("zstd block: frame header disagrees with the recorded length");
  }
  out->reset(new char[*n == 0 ? 1 : *n]);
  const size_t got = ZSTD_decompress(out->get(), *n, framed.data(), framed.size());
  if (ZSTD_isError(got) || got != *n) {
    return Status::Corruption("zstd block does not decode to its recorded length");
  }
  return Status::OK();
}
}  // namespace

Status UncompressBlock(uint8_t type, const Slice& framed, std::unique_ptr<char[]>* decoded,
                       size_t* decoded_bytes) {
  SHALE_CHECK(type != kNoCompression);
  switch (type) {
    case kSnappyCompression:
      return UncompressSnappy(framed, decoded, decoded_bytes);
    case kLZ4Compression:
      return UncompressLz4(framed, decoded, decoded_bytes);
    case kZSTD:
      return UncompressZstd(framed, decoded, decoded_bytes);
    default:
      return Status::Corruption("unsupported compression type " + std::to_string(type));
  }
}

}  // namespace shale
