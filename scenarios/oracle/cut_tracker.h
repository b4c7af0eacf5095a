// CutTracker: the values each key may hold at a cut of a History, updated
// one acknowledged write at a time (the walk CheckRecovery makes over
// every cut, in sequence order).
//
// An INDETERMINATE write (failed, or cut short by a crash) has no known
// sequence; real time bounds where it sits among the acknowledged writes.
// It follows every write that ended before it began and precedes every
// write that began after it ended; between those it may sit anywhere, and
// it may be absent. So a cut may hold it as soon as every write it must
// follow is in the cut, not only once the whole history is: with two write
// queues, a commit that was logged and not yet published at a crash
// precedes writes acknowledged after it was logged.
//
// Thread safety: none. REQUIRES: the History outlives the tracker and does
// not change meanwhile (values are pointed at, not copied).
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenarios/oracle/history.h"

namespace shale::scenario {

// Where one indeterminate write may sit among the acknowledged writes in
// sequence order (acked): after acked[0, earliest), before acked[bound, end).
struct IndeterminateWindow {
  const WriteRecord* write = nullptr;
  size_t earliest = 0;
  size_t bound = 0;  // acked.size(): no acknowledged write follows it for sure
};

// The history's indeterminate writes, sorted by earliest (then by id).
std::vector<IndeterminateWindow> IndeterminateWindows(const History& history,
                                                      const std::vector<const WriteRecord*>& acked);

class CutTracker {
 public:
  // A key in unreadable never mismatches.
  CutTracker(const History& history, const State& recovered,
             const std::set<std::string>& unreadable);
  CutTracker(const CutTracker&) = delete;
  CutTracker& operator=(const CutTracker&) = delete;

  // Adds acked[index] to the cut. optional: the cut may lack it (an
  // unlogged write no flush covered); else it overwrites its keys.
  // REQUIRES: indices come in increasing order.
  void Apply(const WriteRecord& w, size_t index, bool optional);
  // Lets the cut hold an indeterminate write, once the cut holds
  // acked[0, window.earliest). Its value stays possible for a key until
  // the cut holds a write to the key at or past window.bound.
  void Admit(const IndeterminateWindow& window);

  size_t mismatches() const { return bad_count_; }
  // The mismatching keys, sorted.
  std::vector<std::string> bad_keys() const;
  std::vector<Value> allowed(const std::string& key) const;

 private:
  struct Pending {
    const Value* value;
    size_t bound;
  };
  struct Slot {
    std::vector<Value> base;            // the History's base values (owned)
    std::vector<const Value*> allowed;  // into base or the History's writes
    std::vector<Pending> admitted;      // indeterminate writes' values for the key
    size_t definite_end = 0;            // 1 + index of the last overwriting write (0: none)
    Value recovered;
    bool unreadable = false;
    bool bad = false;
  };
  // The key's slot; a key the constructor did not see starts absent.
  Slot& SlotFor(const std::string& key);
  void Recount(Slot* slot);

  std::map<std::string, Slot> slots_;  // sorted: reports never depend on hashing
  size_t bad_count_ = 0;
};

// A CutTracker walked over acked in order, admitting each indeterminate
// write as soon as a cut may hold it.
class CutWalk {
 public:
  CutWalk(const History& history, const std::vector<const WriteRecord*>& acked,
          const State& recovered, const std::set<std::string>& unreadable);

  // Admits the indeterminate writes the cut of the first cut() writes may hold.
  void AdmitReady();
  // Adds the next acknowledged write. REQUIRES: cut() < acked.size().
  void Step(bool optional);
  size_t cut() const { return cut_; }
  const CutTracker& tracker() const { return tracker_; }
  // Every indeterminate write, by earliest cut; the first admitted() of
  // them are admitted so far.
  const std::vector<IndeterminateWindow>& windows() const { return windows_; }
  size_t admitted() const { return admitted_; }

 private:
  const std::vector<const WriteRecord*>& acked_;
  CutTracker tracker_;
  std::vector<IndeterminateWindow> windows_;
  size_t admitted_ = 0;
  size_t cut_ = 0;
};

}  // namespace shale::scenario
