// A differential run's operation log: one random, single-threaded sequence
// of engine calls that two engines (or one engine under two option sets)
// must answer identically.
//
// The log mixes Puts, Deletes, write batches of both, snapshots and Gets
// at them, iterators in both directions (SeekToFirst, SeekToLast, Seek,
// SeekForPrev, then a run of Next or Prev, which may turn back part way),
// Flush, CompactRange over a range or everything, and close-and-reopen.
// Keys are "k" and four digits, some cut short or extended (so one key is
// a prefix of others); a few values are empty. It only names snapshots that
// are live (taken, not released, not ended by a reopen), so every log is
// valid on its own and every sub-log the shrinker keeps is made valid by
// dropping ops that name a snapshot no longer taken (ValidSubLog).
//
// Thread safety: values; GenerateDiffLog draws from the tape it is given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/choice_tape.h"

namespace shale::scenario {

struct DiffOp {
  enum class Kind : uint8_t {
    kPut,
    kDelete,
    kWrite,
    kSnapshot,
    kRelease,
    kGet,
    kIterate,
    kFlush,
    kCompact,
    kReopen
  };
  enum class Seek : uint8_t { kFirst, kLast, kSeek, kSeekForPrev };
  struct BatchEntry {
    std::string key;
    bool is_delete = false;
    std::string value;
  };

  Kind kind = Kind::kPut;
  std::string key;                // Put, Delete, Get, Iterate (Seek target), Compact (begin)
  std::string value;              // Put
  std::string end;                // Compact: the range's end ("" with key "": everything)
  std::vector<BatchEntry> batch;  // Write
  int snapshot = -1;  // Snapshot: the id it takes; Release, Get, Iterate: the one read (-1: none)
  Seek seek = Seek::kFirst;  // Iterate
  bool forward = true;       // Iterate: Next (true) or Prev after the seek
  int steps = 0;             // Iterate: moves after the seek
  int turn_after = -1;       // Iterate: moves before the direction flips (-1: never)
};

// Operations in one log, at most.
inline constexpr int kMaxDiffOps = 100000;

// A log of n ops (REQUIRES: 1 <= n <= kMaxDiffOps) drawn from tape.
std::vector<DiffOp> GenerateDiffLog(sim::ChoiceTape* tape, int n);

// ops with every op that names a snapshot not live at that point removed
// (what is left of a log after the shrinker dropped some ops).
std::vector<DiffOp> ValidSubLog(const std::vector<DiffOp>& ops);

// One line: the op as a reader would write it ("put k012 = v5..(40 bytes)").
std::string DescribeDiffOp(const DiffOp& op);

}  // namespace shale::scenario
