// CommitMap: WritePrepared's record of which sequence numbers are visible.
//
// Every write of a WritePrepared TransactionDB goes into the memtable before
// it is committed, as a range of sequence numbers [first, last] (a prepared
// section, a plain write, a rollback's restoring batch). The range is added
// as prepared when its sequences are allocated, before any later sequence
// can be published, and marked committed at commit_seq before commit_seq is
// published. A reader at snapshot S sees an entry at sequence s iff s <= S
// and s is not in a prepared range and, if in a committed range, its
// commit_seq <= S. A sequence in no range was committed at itself.
//
// Committed ranges are dropped (Prune) once every live snapshot and every
// future reader is past their commit: then "committed at itself" gives the
// same answers. So the map holds the ranges prepared but not committed,
// plus those committed since the oldest live snapshot; its size is that, not
// a fixed cache (RocksDB's commit cache with its eviction is not modelled).
// Prune costs only the ranges it drops.
//
// Thread safety: thread-safe (one Runtime mutex; it nests inside the DB
// mutex and takes no other lock).
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <utility>
#include <memory>

#include "db/dbformat.h"
#include "shale/env.h"

namespace shale {

class CommitMap {
 public:
  explicit CommitMap(Runtime* runtime);

  // [first, last] was written and is not visible until committed.
  // REQUIRES: first <= last; the range overlaps no other range.
  void AddPrepared(SequenceNumber first, SequenceNumber last);
  // The prepared range starting at first becomes visible at commit_seq.
  // REQUIRES: [first, ...] was added as prepared; commit_seq > its last.
  void AddCommitted(SequenceNumber first, SequenceNumber commit_seq);
  // Forgets the prepared range starting at first (its write failed: no
  // entry of it reached a memtable that outlives the failure).
  void RemovePrepared(SequenceNumber first);
  // Drops committed ranges with commit_seq <= bound.
  // REQUIRES: bound <= every live snapshot and <= the published sequence.
  void Prune(SequenceNumber bound);

  // Visibility of seq to a reader at snapshot (see the file comment).
  bool IsVisible(SequenceNumber seq, SequenceNumber snapshot) const;
  // The sequence at which seq became visible if that is <= bound, else
  // kMaxSequenceNumber (prepared, or committed after bound).
  SequenceNumber CommitSequence(SequenceNumber seq, SequenceNumber bound) const;

 private:
  struct Range {
    SequenceNumber last;
    SequenceNumber commit;  // kMaxSequenceNumber while prepared
  };
  // The range holding seq, or nullptr. REQUIRES: mu_ held.
  const Range* Find(SequenceNumber seq) const;

  std::unique_ptr<Mutex> mu_;
  std::map<SequenceNumber, Range> ranges_;  // by first sequence
  // The committed ranges by (commit, first), so Prune takes only what it drops.
  std::set<std::pair<SequenceNumber, SequenceNumber>> by_commit_;
};

}  // namespace shale
