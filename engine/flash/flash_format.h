// The flash backend's on-flash format (docs/flash_format.md says the same
// for readers outside the code).
//
// A file is a chain of chunks. Chunk number k of a file (its chain index)
// holds, sector by sector:
//   sector 0                 START: who owns the chunk and where it sits
//   sectors 1 .. S-2         DATA, PAD or TRUNCATE sectors, in write order
//   sector S-1               CLOSE, written when the chunk fills
// where S is sectors_per_chunk. Every sector's OOB bytes carry a tag:
//
//   offset size field
//   0      4    masked CRC32C of the sector's data bytes, then OOB bytes 4..31
//   4      1    kind (SectorKind)
//   5      1    format version (1)
//   6      2    zero
//   8      8    file id (unique per file on the device; never reused while
//               any chunk holds it)
//   16     8    DATA: file offset of the sector's first byte; else 0
//   24     4    chain index of the chunk
//   28     4    valid bytes: DATA: file bytes from the sector's start;
//               START, CLOSE, TRUNCATE: payload bytes; PAD: 0
//   32..   zero
//
// Payloads (little-endian fixed-width integers, from the sector's start):
//   START     "SHLFLSH1", owner id u64, file id u64, chain index u32,
//             start offset u64 (the file's size when the chunk was started),
//             name length u32, name (the file's full path)
//   CLOSE     "SHLFEND1", file id u64, chain index u32, flags u32 (bit 0:
//             the CRC is valid), data bytes u64 (DATA bytes in the chunk),
//             next chunk u32 (kNoChunk if not known), CRC32C u32 of the
//             chunk's DATA bytes in order (masked)
//   TRUNCATE  new file size u64: bytes at and past it are gone
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "shale/slice.h"

namespace shale::flash {

inline constexpr uint32_t kNoChunk = 0xffff'ffffu;
inline constexpr uint32_t kTagBytes = 32;  // REQUIRES of a geometry: oob_bytes >= this
inline constexpr uint32_t kMaxNameBytes = 1024;
// A START payload's bytes besides the name (magic, ids, offsets, length).
inline constexpr uint32_t kStartPayloadBytes = 8 + 8 + 8 + 4 + 8 + 4;

enum class SectorKind : uint8_t { kStart = 1, kData = 2, kPad = 3, kTruncate = 4, kClose = 5 };

struct SectorTag {
  SectorKind kind = SectorKind::kPad;
  uint64_t file_id = 0;
  uint64_t file_offset = 0;
  uint32_t chain_index = 0;
  uint32_t valid_bytes = 0;
};

// Writes tag into oob (oob_bytes, the rest zeroed) with the CRC over data
// (sector_bytes) and the tag.
void EncodeTag(const SectorTag& tag, const char* data, size_t sector_bytes, char* oob,
               size_t oob_bytes);
// Reads the tag of a sector; false if its CRC, kind, version or valid
// bytes do not check (a torn, garbage or foreign sector). verify_crc false
// skips the CRC (only a planted bug does).
[[nodiscard]] bool DecodeTag(const char* data, size_t sector_bytes, const char* oob,
                             size_t oob_bytes, SectorTag* tag, bool verify_crc = true);

struct ChunkStart {
  uint64_t owner_id = 0;
  uint64_t file_id = 0;
  uint32_t chain_index = 0;
  uint64_t start_offset = 0;
  std::string name;
};
std::string EncodeChunkStart(const ChunkStart& start);
[[nodiscard]] bool DecodeChunkStart(Slice payload, ChunkStart* start);

struct ChunkClose {
  uint64_t file_id = 0;
  uint32_t chain_index = 0;
  bool crc_valid = false;
  uint64_t data_bytes = 0;
  uint32_t next_chunk = kNoChunk;
  uint32_t data_crc = 0;  // unmasked CRC32C of the chunk's DATA bytes
};
std::string EncodeChunkClose(const ChunkClose& close);
[[nodiscard]] bool DecodeChunkClose(Slice payload, ChunkClose* close);

std::string EncodeTruncate(uint64_t new_size);
[[nodiscard]] bool DecodeTruncate(Slice payload, uint64_t* new_size);

// Sectors being put together for one device write.
class SectorBatch {
 public:
  SectorBatch(uint32_t sector_bytes, uint32_t oob_bytes)
      : sector_bytes_(sector_bytes), oob_bytes_(oob_bytes) {}
  // Appends one sector: payload (at most sector_bytes) zero-padded.
  void Add(const SectorTag& tag, Slice payload);
  uint32_t sectors() const { return sectors_; }
  uint32_t count(SectorKind kind) const { return kinds_[static_cast<size_t>(kind)]; }
  Slice data() const { return data_; }
  Slice oob() const { return oob_; }

 private:
  uint32_t sector_bytes_;
  uint32_t oob_bytes_;
  uint32_t sectors_ = 0;
  uint32_t kinds_[6] = {};
  std::string data_;
  std::string oob_;
};

}  // namespace shale::flash
