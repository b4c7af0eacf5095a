// CheckRecovery: does the state a DB recovered after a crash keep the
// durability and recovery promises (history.h lists them)?
//
// The recovered state must equal the model after some CUT: the first k
// acknowledged writes in sequence order (prefix recovery: no holes, no
// reordering, no resurrected deletes), with k covering every write that
// must survive (durability; for a process crash every acknowledged WAL
// write in the log file). Within the cut, a disable_wal write that no flush covered may be
// missing. A write that failed or was cut short (indeterminate) may be
// present in a cut that holds every write that ended before it began, and
// may sit anywhere after those, but before any write that began after it
// returned (real-time order; see cut_tracker.h). Every write is all or
// nothing: one whose own value shows for one key must show for all its
// keys, unless a write that may be ordered after it rewrote them
// (atomicity). A value from before the last crash check coming back is a
// resurrection; one no write ever gave the key is a phantom.
//
// A key the caller could not read (the engine reported damage under it) is
// left out of every comparison: a check narrowed to what the damage can
// reach. The verdict lists the values each such key may hold.
//
// Thread safety: pure function over its arguments.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "scenarios/oracle/history.h"

namespace shale::scenario {

struct RecoveryVerdict {
  bool ok = true;
  uint64_t cut = 0;  // acked writes (in sequence order) the state reflects
  // The fewest acked writes (in sequence order) a cut that fits the state
  // may hold (<= cut): the state holds at least acked[0, min_cut).
  uint64_t min_cut = 0;
  std::string
      property;  // "durability", "prefix recovery", "atomicity", "resurrection", "no phantoms"
  std::string key;
  std::string expected;  // what the model allowed (at the full history)
  std::string observed;
  // For each unreadable key, the values it may hold: those allowed at any
  // cut that fits the keys read (when ok).
  UnknownValues unknown;
};

// Sequences from begin up to (not including) end.
struct SequenceRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool Holds(uint64_t sequence) const { return begin <= sequence && sequence < end; }
};

// What one check may hold the recovered state to.
struct CheckScope {
  // The page cache survived: every acknowledged WAL write must too.
  bool process_crash = false;
  // Writes that had to survive must have (and, with transactions, an
  // ended transaction stays ended). False only while recovery reads a WAL
  // whose damage was injected: point-in-time recovery stops at the damage,
  // and any write or transaction marker logged from it on may be lost; but
  // a write a successful Flush put in a table, or one logged before the
  // damage (durable_below_sequence), must still survive (the order,
  // atomicity and no-phantom promises still hold).
  bool durability = true;
  // Keys whose reads failed on injected damage: left out (see above).
  // REQUIRES: none is a key of the recovered state.
  std::set<std::string> unreadable;
  // With durability false: writes whose sequence is below this keep the
  // durability they had (recovery replayed the logs up to the damage).
  uint64_t durable_below_sequence = 0;
  // Skip-any recovery read logs with damage in them: each acknowledged
  // write whose sequence lies in one of these [begin, end) ranges (a
  // damaged log's writes, from where its damage may begin) may be missing
  // on its own, as a disable_wal write may, unless a Flush put it in a
  // table. Every other promise holds for it.
  std::vector<SequenceRange> skippable = {};
};
RecoveryVerdict CheckRecovery(const History& history, const CheckScope& scope,
                              const State& recovered);
// The common scope: durability on, every key read.
inline RecoveryVerdict CheckRecovery(const History& history, bool process_crash,
                                     const State& recovered) {
  return CheckRecovery(history, CheckScope{process_crash, true, {}}, recovered);
}

// Whether an acknowledged write had to survive a crash with durability on:
// it was durable, or the crash was a process crash and it was in the log
// file (WriteRecord::written).
bool MustSurvive(const WriteRecord& w, bool process_crash);

// history's acknowledged writes in sequence order: the order a cut counts
// them in (RecoveryVerdict::cut).
std::vector<const WriteRecord*> AckedBySequence(const History& history);

// Renders a value for reports: "<absent>" or the (escaped, shortened) bytes.
std::string DescribeValue(const Value& value);
// Renders a write's operations for stories: "put k=v, delete k2".
std::string DescribeKeyOps(const std::vector<KeyOp>& ops);

}  // namespace shale::scenario
