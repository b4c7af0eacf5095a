// ChunkTable: the open-channel chunk rules (shale/flash_device.h) as pure
// state, so that every device model keeps them the same way: the simulated
// device (sim/flash/) and the file-backed device for real runs both keep
// one ChunkTable and store the sectors themselves.
//
// It tracks, per chunk: state, write pointer, wear, where the device cache
// starts, and whether the chunk is grown bad. Check* calls say whether a
// call keeps the rules (an empty string) or which rule it breaks; Apply*
// calls change the state and REQUIRE the matching Check* passed.
//
// Thread safety: none; the device that owns it serializes calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shale/flash_device.h"

namespace shale::flash {

class ChunkTable {
 public:
  // REQUIRES: geometry.Invalid() is empty. Every chunk starts FREE, wear 0.
  explicit ChunkTable(const FlashGeometry& geometry);

  const FlashGeometry& geometry() const { return geometry_; }
  const ChunkDescriptor& descriptor(uint32_t chunk) const { return chunks_[chunk].d; }
  std::vector<ChunkDescriptor> Report() const;
  uint32_t open_chunks() const { return open_chunks_; }

  // Factory-bad: OFFLINE from the start. REQUIRES: before any write.
  void MarkFactoryBad(uint32_t chunk);
  // Loads a chunk's state as a device kept it across a restart (nothing is
  // cached then). REQUIRES: before any write; d is a state the rules can
  // reach (write_pointer 0 when FREE or OFFLINE, below sectors_per_chunk
  // when OPEN, at most it when CLOSED).
  void Restore(uint32_t chunk, const ChunkDescriptor& d, bool grown_bad);
  bool grown_bad(uint32_t chunk) const { return chunks_[chunk].grown_bad; }

  // "" if writing count sectors at sector of chunk keeps the rules; else the
  // rule it breaks, e.g. "write not at the write pointer (sector 8, write
  // pointer 12)". Also rejects a chunk number out of range.
  std::string CheckWrite(uint32_t chunk, uint32_t sector, uint32_t count) const;
  // The write happened: the write pointer moves, a FREE chunk opens, a full
  // one closes (and its cache is flushed); the cache window follows.
  void ApplyWrite(uint32_t chunk, uint32_t count);
  // The write at the write pointer failed to program: the chunk closes
  // early (write pointer unchanged, cache flushed) and is grown bad.
  void ApplyProgramFailure(uint32_t chunk);

  // "" if reading count sectors at sector keeps the rules (no sector in the
  // device cache); the read may still reach past the write pointer, which
  // is not a rule (ReadsPastWritePointer).
  std::string CheckRead(uint32_t chunk, uint32_t sector, uint32_t count) const;
  bool ReadsPastWritePointer(uint32_t chunk, uint32_t sector, uint32_t count) const;

  // "" unless chunk is OFFLINE (or out of range).
  std::string CheckReset(uint32_t chunk) const;
  // Whether a reset now would take the chunk OFFLINE by itself (worn out,
  // or grown bad); a device may also fail it by injection.
  bool ResetWillFail(uint32_t chunk) const;
  // The reset happened: FREE, write pointer 0, wear + 1; or, if failed,
  // OFFLINE (wear + 1 too: the erase was tried).
  void ApplyReset(uint32_t chunk, bool failed);

  // A CLOSED chunk failed as a whole (its block or die died at rest): it
  // is OFFLINE, write pointer 0, its wear unchanged.
  void ApplyLoss(uint32_t chunk);

  // The device cache of an OPEN chunk: sectors [cache_start, write pointer).
  uint32_t cache_start(uint32_t chunk) const { return chunks_[chunk].cache_start; }
  // A power loss cut chunk's write pointer back to write_pointer (at or
  // past cache_start, at most the old write pointer); nothing is cached
  // afterwards. A chunk cut back to 0 sectors is FREE again (its wear
  // stays); one that still holds every sector stays CLOSED.
  void ApplyPowerLoss(uint32_t chunk, uint32_t write_pointer);

 private:
  struct Chunk {
    ChunkDescriptor d;
    uint32_t cache_start = 0;
    bool grown_bad = false;
  };
  std::string InRange(uint32_t chunk) const;

  FlashGeometry geometry_;
  std::vector<Chunk> chunks_;
  uint32_t open_chunks_ = 0;
};

}  // namespace shale::flash
