// LevelDbLogTap: reads LevelDB's write-ahead log as LevelDB writes it, so
// that Shale learns the sequence number LevelDB gave each write (its
// public API never says; the oracle orders writes by it).
//
// LevelDbEnv feeds it every append to a file named "*.log", at the file
// offset the bytes land at. It reassembles physical records into logical
// ones as LevelDB's log format defines them (doc/log_format.md of LevelDB
// 1.23: 32 KiB blocks; a 7-byte header of checksum, length and type FULL,
// FIRST, MIDDLE or LAST; a block tail under 7 bytes is zero padding), and
// keeps each logical record: a write group's batch (fixed64 sequence,
// fixed32 count, then Put and Delete records, the layout Shale's
// WriteBatch shares).
//
// LevelDB logs a write group as one record: the leader's batch first, then
// each member's, back to back. The leader is the thread that appends the
// record; the members are writes in flight on other threads. So when a
// record completes, the tap tiles it: the appending thread's write at its
// start, then in-flight writes whose records match the bytes that follow,
// each ending on a record boundary. Identical batches in flight at once
// are told apart only by a guess (the earliest-begun first, counted as
// ambiguous), corrected by what happens next: if the guessed write leads a
// group of its own, or another write with the same records returns first
// without a place, the guessed place goes to that other write.
//
// Checksums are not verified: these are the bytes LevelDB wrote, as it
// wrote them. Thread safety: none (one simulated task at a time; each task
// runs on a thread of its own, which is how the appending thread's write
// is found).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shale/slice.h"

namespace shale::hosted {

class LevelDbLogTap {
 public:
  // A write whose batch holds `records` (the batch's bytes after its
  // 12-byte header) is about to be handed to LevelDB on the calling thread.
  // REQUIRES: no other write is in flight on this thread.
  void BeginWrite(std::string records);
  // LevelDB returned from the calling thread's write: the sequence of its
  // first record if a logged group held it, else nullopt.
  std::optional<uint64_t> EndWrite();

  // Bytes appended to log file fname at file offset `offset`.
  void Appended(const std::string& fname, uint64_t offset, const Slice& data);

  // Records the tap could not tile with the writes in flight.
  uint64_t untiled() const { return untiled_; }
  // Writes placed by the earliest-begun guess among identical candidates.
  uint64_t ambiguous() const { return ambiguous_; }

 private:
  struct Stream {
    uint64_t offset = 0;  // file offset of the next byte
    std::string header;   // a physical header being gathered
    uint32_t payload_left = 0;
    uint8_t type = 0;
    std::string record;  // a logical record being gathered
  };
  struct Pending {
    std::string records;
    std::optional<uint64_t> sequence;
    bool guessed = false;  // placed by the guess among identical writes
  };
  void Feed(Stream* stream, const char* bytes, size_t n);
  void Completed(const std::string& record);
  // Tiles body[offset..] with unplaced writes (not `leader`), recording
  // each write's record index in *placed. True if it tiles exactly.
  bool Tile(const std::string& body, const std::vector<size_t>& boundaries, size_t offset,
            std::vector<std::pair<uint64_t, size_t>>* placed);

  std::map<std::string, Stream> streams_;
  std::map<uint64_t, Pending> pending_;  // by begin order
  std::vector<uint64_t> guessed_;        // Tile's guesses, until its tiling is kept
  uint64_t next_id_ = 0;
  uint64_t untiled_ = 0;
  uint64_t ambiguous_ = 0;
};

}  // namespace shale::hosted
