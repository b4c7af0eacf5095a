// FlashDevice: an open-channel SSD as the engine's flash backend sees it.
//
// The model is the Open-Channel SSD 2.0 specification (the "chunk" command
// set, which NVMe Zoned Namespaces later took over as zones): the host, not
// the device, decides where data goes, and must follow the media's rules.
//
// Geometry: groups (channels) x parallel units (LUNs) per group x chunks per
// parallel unit x sectors per chunk. A sector holds sector_bytes of data
// and oob_bytes of out-of-band (OOB) metadata, written and read with it.
// Chunks are named by one flat index:
//   chunk = (group * parallel_units_per_group + unit) * chunks_per_unit + c
// so a chunk's parallel unit is chunk / chunks_per_unit, and its group is
// that unit / parallel_units_per_group.
//
// Chunk states (spec 2.0 section 2.1.2, "Chunk states"):
//   FREE --write--> OPEN --write of the last sector--> CLOSED
//   OPEN or CLOSED or FREE --Reset--> FREE (the chunk's wear grows by one)
//   any --worn out, or a failed erase--> OFFLINE (for good)
// The rules a host must keep; a call that breaks one fails with
// InvalidArgument whose message starts "device rule:" and names the rule
// (and a simulated device also reports it as a rule violation):
//   * a write starts exactly at the chunk's write pointer;
//   * a write is a whole multiple of ws_min sectors and stays inside the
//     chunk;
//   * a write goes to a FREE or OPEN chunk (never CLOSED or OFFLINE);
//   * a write that opens a FREE chunk needs fewer than max_open_chunks
//     chunks OPEN;
//   * a read stays below the write pointer's cache window: on an OPEN chunk,
//     the last mw_cunits sectors written since power-up are still in the
//     device's write cache and may not be read (the host keeps its own
//     copy, spec 2.0 "mw_cunits");
//   * a Reset is never of an OFFLINE chunk.
// A read at or past the write pointer is not a rule violation: it fails
// with IOError, or returns zeros, as zeros_past_write_pointer says.
//
// Media behaviour (what the host must survive):
//   * The device cache: the last mw_cunits sectors behind the write pointer
//     of an OPEN chunk are volatile. A power loss loses them; the first
//     ws_min unit among them may be torn (a prefix of its sectors intact,
//     the rest unreadable or garbage), and the write pointer after power-up
//     stands after the torn unit, or at the first lost sector. Writing the
//     chunk's last sector closes it and flushes its cache.
//   * A program failure fails the write with IOError and closes the chunk
//     early: its write pointer stays where the failed write started, and
//     every sector before it (cached ones included) stays readable. Such a
//     chunk is grown bad: a later Reset fails and takes it OFFLINE.
//   * A Reset past the endurance limit (max_resets), or an erase failure,
//     fails with IOError and leaves the chunk OFFLINE. Factory-bad chunks
//     are OFFLINE from the start.
//   * After a power loss, ReportChunks gives what the media holds.
//
// Thread safety: every method may be called concurrently; a device
// serializes what shares a parallel unit.
// Ownership: the caller owns the device and keeps it alive while a file
// system uses it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shale/slice.h"
#include "shale/status.h"

namespace shale {

struct FlashGeometry {
  uint32_t groups = 1;
  uint32_t parallel_units_per_group = 1;
  uint32_t chunks_per_unit = 16;
  uint32_t sectors_per_chunk = 64;
  uint32_t sector_bytes = 4096;
  uint32_t oob_bytes = 32;
  // Writes are multiples of ws_min sectors; ws_opt is the size the device
  // programs at full speed (a multiple of ws_min).
  uint32_t ws_min = 4;
  uint32_t ws_opt = 8;
  // Sectors behind an OPEN chunk's write pointer that sit in the device
  // cache (a multiple of ws_min; 0: no cache).
  uint32_t mw_cunits = 0;
  uint32_t max_open_chunks = 16;
  // Resets a chunk survives; the next one takes it OFFLINE.
  uint32_t max_resets = 3000;
  // A read at or past the write pointer returns zeros (else IOError).
  bool zeros_past_write_pointer = false;

  uint32_t parallel_units() const { return groups * parallel_units_per_group; }
  uint32_t chunks() const { return parallel_units() * chunks_per_unit; }
  uint32_t UnitOf(uint32_t chunk) const { return chunk / chunks_per_unit; }
  uint32_t GroupOf(uint32_t chunk) const { return UnitOf(chunk) / parallel_units_per_group; }
  uint64_t chunk_bytes() const { return uint64_t{sectors_per_chunk} * sector_bytes; }
  // Empty if the geometry is one a device may report (every count > 0,
  // ws_opt and sectors_per_chunk multiples of ws_min, mw_cunits a multiple
  // of ws_min and below sectors_per_chunk, oob_bytes >= 32, sector_bytes a
  // power of two >= 512); otherwise what is wrong.
  std::string Invalid() const;
};

enum class ChunkState : uint8_t { kFree, kOpen, kClosed, kOffline };
const char* ChunkStateName(ChunkState state);

// One entry of the chunk report (spec 2.0 "Chunk Information").
struct ChunkDescriptor {
  ChunkState state = ChunkState::kFree;
  uint32_t write_pointer = 0;  // sectors written; sectors_per_chunk when CLOSED full
  uint32_t wear = 0;           // resets so far
};

class FlashDevice {
 public:
  virtual ~FlashDevice() = default;

  virtual const FlashGeometry& geometry() const = 0;

  // One descriptor per chunk, indexed by flat chunk number.
  [[nodiscard]] virtual Status ReportChunks(std::vector<ChunkDescriptor>* report) = 0;

  // Programs data.size() / sector_bytes sectors of chunk starting at
  // sector, with oob holding oob_bytes per sector.
  // REQUIRES: data.size() is a whole number of sectors; oob.size() is
  // oob_bytes per sector (else InvalidArgument, not a device rule).
  [[nodiscard]] virtual Status Write(uint32_t chunk, uint32_t sector, const Slice& data,
                                     const Slice& oob) = 0;

  // Reads count sectors of chunk from sector into data (count *
  // sector_bytes) and, if oob is not nullptr, their OOB (count * oob_bytes).
  // A sector the media cannot read fails the call with IOError naming it.
  [[nodiscard]] virtual Status Read(uint32_t chunk, uint32_t sector, uint32_t count, char* data,
                                    char* oob) = 0;

  // Erases chunk: FREE, write pointer 0, wear + 1 (or OFFLINE, see above).
  [[nodiscard]] virtual Status Reset(uint32_t chunk) = 0;
};

}  // namespace shale
