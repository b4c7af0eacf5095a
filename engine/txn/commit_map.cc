#include "txn/commit_map.h"

#include "util/check.h"
#include "util/mutexlock.h"

namespace shale {

CommitMap::CommitMap(Runtime* runtime) : mu_(runtime->NewMutex()) {}

void CommitMap::AddPrepared(SequenceNumber first, SequenceNumber last) {
  SHALE_CHECK(first <= last);
  MutexLock l(mu_.get());
  SHALE_CHECK(Find(first) == nullptr && Find(last) == nullptr);
  ranges_[first] = Range{last, kMaxSequenceNumber};
}

void CommitMap::AddCommitted(SequenceNumber first, SequenceNumber commit_seq, uint64_t marker_log) {
  MutexLock l(mu_.get());
  auto it = ranges_.find(first);
  SHALE_CHECK(it != ranges_.end() && it->second.commit == kMaxSequenceNumber);
  if (it == ranges_.end() || it->second.commit != kMaxSequenceNumber) return;
  SHALE_CHECK(commit_seq > it->second.last);
  it->second.commit = commit_seq;
  it->second.marker_log = marker_log;
  if (marker_log == kDurable) {
    by_commit_.emplace(commit_seq, first);
  } else {
    by_marker_log_.emplace(marker_log, first);
  }
}

void CommitMap::RemovePrepared(SequenceNumber first) {
  MutexLock l(mu_.get());
  auto it = ranges_.find(first);
  if (it == ranges_.end() || it->second.commit != kMaxSequenceNumber) return;
  ranges_.erase(it);
}

void CommitMap::Prune(SequenceNumber bound, uint64_t first_unflushed_log) {
  MutexLock l(mu_.get());
  // Markers in WALs whose memtables are in tables are durable now.
  while (!by_marker_log_.empty() && by_marker_log_.begin()->first < first_unflushed_log) {
    Range& r = ranges_.at(by_marker_log_.begin()->second);
    r.marker_log = kDurable;
    by_commit_.emplace(r.commit, by_marker_log_.begin()->second);
    by_marker_log_.erase(by_marker_log_.begin());
  }
  while (!by_commit_.empty() && by_commit_.begin()->first <= bound) {
    ranges_.erase(by_commit_.begin()->second);
    by_commit_.erase(by_commit_.begin());
  }
}

const CommitMap::Range* CommitMap::Find(SequenceNumber seq) const {
  auto it = ranges_.upper_bound(seq);
  if (it == ranges_.begin()) return nullptr;
  --it;
  return seq <= it->second.last ? &it->second : nullptr;
}

bool CommitMap::IsVisible(SequenceNumber seq, SequenceNumber snapshot) const {
  if (seq > snapshot) return false;
  MutexLock l(mu_.get());
  const Range* r = Find(seq);
  return r == nullptr || (r->commit != kMaxSequenceNumber && r->commit <= snapshot);
}

SequenceNumber CommitMap::CommitSequence(SequenceNumber seq, SequenceNumber bound,
                                         uint64_t first_unflushed_log) const {
  MutexLock l(mu_.get());
  const Range* r = Find(seq);
  if (r != nullptr && r->marker_log != kDurable && r->marker_log >= first_unflushed_log) {
    return kMaxSequenceNumber;  // its marker may yet be lost
  }
  const SequenceNumber commit = r == nullptr ? seq : r->commit;
  return commit <= bound ? commit : kMaxSequenceNumber;
}

}  // namespace shale
