#include "flash/flash_format.h"

#include <cstring>

#include "util/check.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace shale::flash {

namespace {

constexpr uint8_t kFormatVersion = 1;
constexpr char kStartMagic[] = "SHLFLSH1";
constexpr char kCloseMagic[] = "SHLFEND1";
constexpr size_t kMagicBytes = 8;

uint32_t TagCrc(const char* data, size_t sector_bytes, const char* oob) {
  const uint32_t crc = crc32c::Extend(crc32c::Value(data, sector_bytes), oob + 4, kTagBytes - 4);
  return crc32c::Mask(crc);
}

bool TakeMagic(Slice* in, const char* magic) {
  if (in->size() < kMagicBytes || std::memcmp(in->data(), magic, kMagicBytes) != 0) return false;
  in->remove_prefix(kMagicBytes);
  return true;
}

}  // namespace

void EncodeTag(const SectorTag& tag, const char* data, size_t sector_bytes, char* oob,
               size_t oob_bytes) {
  std::memset(oob, 0, oob_bytes);
  oob[4] = static_cast<char>(tag.kind);
  oob[5] = static_cast<char>(kFormatVersion);
  EncodeFixed64(oob + 8, tag.file_id);
  EncodeFixed64(oob + 16, tag.file_offset);
  EncodeFixed32(oob + 24, tag.chain_index);
  EncodeFixed32(oob + 28, tag.valid_bytes);
  EncodeFixed32(oob, TagCrc(data, sector_bytes, oob));
}

bool DecodeTag(const char* data, size_t sector_bytes, const char* oob, size_t oob_bytes,
               SectorTag* tag, bool verify_crc) {
  if (oob_bytes < kTagBytes) return false;
  if (verify_crc && DecodeFixed32(oob) != TagCrc(data, sector_bytes, oob)) return false;
  const auto kind = static_cast<uint8_t>(oob[4]);
  if (kind < static_cast<uint8_t>(SectorKind::kStart) ||
      kind > static_cast<uint8_t>(SectorKind::kClose) ||
      static_cast<uint8_t>(oob[5]) != kFormatVersion) {
    return false;
  }
  tag->kind = static_cast<SectorKind>(kind);
  tag->file_id = DecodeFixed64(oob + 8);
  tag->file_offset = DecodeFixed64(oob + 16);
  tag->chain_index = DecodeFixed32(oob + 24);
  tag->valid_bytes = DecodeFixed32(oob + 28);
  return tag->valid_bytes <= sector_bytes;
}

std::string EncodeChunkStart(const ChunkStart& start) {
  std::string out(kStartMagic, kMagicBytes);
  PutFixed64(&out, start.owner_id);
  PutFixed64(&out, start.file_id);
  PutFixed32(&out, start.chain_index);
  PutFixed64(&out, start.start_offset);
  PutFixed32(&out, static_cast<uint32_t>(start.name.size()));
  out += start.name;
  return out;
}

bool DecodeChunkStart(Slice in, ChunkStart* start) {
  uint32_t name_bytes = 0;
  if (!TakeMagic(&in, kStartMagic) || !GetFixed64(&in, &start->owner_id) ||
      !GetFixed64(&in, &start->file_id) || !GetFixed32(&in, &start->chain_index) ||
      !GetFixed64(&in, &start->start_offset) || !GetFixed32(&in, &name_bytes) ||
      name_bytes > kMaxNameBytes || in.size() < name_bytes) {
    return false;
  }
  start->name.assign(in.data(), name_bytes);
  return true;
}

std::string EncodeChunkClose(const ChunkClose& close) {
  std::string out(kCloseMagic, kMagicBytes);
  PutFixed64(&out, close.file_id);
  PutFixed32(&out, close.chain_index);
  PutFixed32(&out, close.crc_valid ? 1u : 0u);
  PutFixed64(&out, close.data_bytes);
  PutFixed32(&out, close.next_chunk);
  PutFixed32(&out, crc32c::Mask(close.data_crc));
  return out;
}

bool DecodeChunkClose(Slice in, ChunkClose* close) {
  uint32_t flags = 0;
  uint32_t masked_crc = 0;
  if (!TakeMagic(&in, kCloseMagic) || !GetFixed64(&in, &close->file_id) ||
      !GetFixed32(&in, &close->chain_index) || !GetFixed32(&in, &flags) ||
      !GetFixed64(&in, &close->data_bytes) || !GetFixed32(&in, &close->next_chunk) ||
      !GetFixed32(&in, &masked_crc) || flags > 1) {
    return false;
  }
  close->crc_valid = (flags & 1) != 0;
  close->data_crc = crc32c::Unmask(masked_crc);
  return true;
}

std::string EncodeTruncate(uint64_t new_size) {
  std::string out;
  PutFixed64(&out, new_size);
  return out;
}

bool DecodeTruncate(Slice in, uint64_t* new_size) { return GetFixed64(&in, new_size); }

void SectorBatch::Add(const SectorTag& tag, Slice payload) {
  SHALE_CHECK(payload.size() <= sector_bytes_);
  kinds_[static_cast<size_t>(tag.kind)]++;
  const size_t data_at = data_.size();
  data_.resize(data_at + sector_bytes_, '\0');
  std::memcpy(data_.data() + data_at, payload.data(), payload.size());
  const size_t oob_at = oob_.size();
  oob_.resize(oob_at + oob_bytes_, '\0');
  EncodeTag(tag, data_.data() + data_at, sector_bytes_, oob_.data() + oob_at, oob_bytes_);
  sectors_++;
}

}  // namespace shale::flash
