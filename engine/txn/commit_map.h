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
// A commit is final only once its marker is durable: until the memtable of
// the WAL it went to is flushed, a power loss (the WAL's unsynced tail) or
// damage (synced or not) may take the marker, and recovery then finds the
// range prepared again. Readers see it committed at once (IsVisible);
// compaction, which drops the versions a commit shadows, must not
// (CommitSequence with the first unflushed WAL's number).
//
// Committed ranges are dropped (Prune) once every live snapshot and every
// future reader is past their commit and their marker is durable: then
// "committed at itself" gives the same answers. So the map holds the ranges prepared but not committed,
// plus those committed since the oldest live snapshot; its size is that, not
// a fixed cache (RocksDB's commit cache with its eviction is not modelled).
// Prune costs only the ranges it drops.
//
// Thread safety: thread-safe (one Runtime mutex; it nests inside the DB
// mutex and takes no other lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "db/dbformat.h"
#include "shale/env.h"

namespace shale {

class CommitMap {
 public:
  explicit CommitMap(Runtime* runtime);

  // [first, last] was written and is not visible until committed.
  // REQUIRES: first <= last; the range overlaps no other range.
  void AddPrepared(SequenceNumber first, SequenceNumber last);
  // marker_log for a commit whose marker is known durable (recovered).
  static constexpr uint64_t kDurable = 0;
  // Any first_unflushed_log for which every marker counts as durable (readers' own
  // questions, not compaction's).
  static constexpr uint64_t kAnyLog = UINT64_MAX;

  // The prepared range starting at first becomes visible at commit_seq;
  // its commit (or rollback) marker went to WAL marker_log.
  // REQUIRES: [first, ...] was added as prepared; commit_seq > its last.
  void AddCommitted(SequenceNumber first, SequenceNumber commit_seq, uint64_t marker_log);
  // Forgets the prepared range starting at first (its write failed: no
  // entry of it reached a memtable that outlives the failure).
  void RemovePrepared(SequenceNumber first);
  // Drops committed ranges with commit_seq <= bound whose marker is in a
  // WAL older than first_unflushed_log (the first WAL whose memtable is not
  // yet in a table).
  // REQUIRES: bound <= every live snapshot and <= the published sequence.
  void Prune(SequenceNumber bound, uint64_t first_unflushed_log);

  // Visibility of seq to a reader at snapshot (see the file comment).
  bool IsVisible(SequenceNumber seq, SequenceNumber snapshot) const;
  // The sequence at which seq became visible if that is <= bound and its
  // marker is in a WAL older than first_unflushed_log (durable), else
  // kMaxSequenceNumber (prepared, committed after bound, or not yet final).
  SequenceNumber CommitSequence(SequenceNumber seq, SequenceNumber bound,
                                uint64_t first_unflushed_log) const;

 private:
  struct Range {
    SequenceNumber last;
    SequenceNumber commit;           // kMaxSequenceNumber while prepared
    uint64_t marker_log = kDurable;  // the WAL of its marker, until durable
  };
  // The range holding seq, or nullptr. REQUIRES: mu_ held.
  const Range* Find(SequenceNumber seq) const;

  std::unique_ptr<Mutex> mu_;
  std::map<SequenceNumber, Range> ranges_;  // by first sequence
  // The committed ranges with a durable marker by (commit, first), so Prune
  // takes only what it drops; the others by (marker WAL, first) until it is
  // closed.
  std::set<std::pair<SequenceNumber, SequenceNumber>> by_commit_;
  std::set<std::pair<uint64_t, SequenceNumber>> by_marker_log_;
};

}  // namespace shale
