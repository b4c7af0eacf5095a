// Snapshots: the DB's list of live snapshots, oldest first.
//
// Thread safety: guarded by the DB mutex. Ownership: the list owns its
// SnapshotImpl objects; users hold const Snapshot* until ReleaseSnapshot.
#pragma once

#include <vector>

#include "db/dbformat.h"
#include "shale/db.h"
#include "util/check.h"

namespace shale {

class SnapshotList;

class SnapshotImpl final : public Snapshot {
 public:
  explicit SnapshotImpl(SequenceNumber seq) : sequence_(seq) {}
  uint64_t GetSequenceNumber() const override { return sequence_; }

 private:
  friend class SnapshotList;
  ~SnapshotImpl() override = default;
  const SequenceNumber sequence_;
  SnapshotImpl* prev_ = nullptr;
  SnapshotImpl* next_ = nullptr;
  SnapshotList* list_ = nullptr;  // for debug checks
};

class SnapshotList {
 public:
  SnapshotList() : head_(0) {
    head_.prev_ = &head_;
    head_.next_ = &head_;
  }
  ~SnapshotList() { SHALE_CHECK(empty()); }

  bool empty() const { return head_.next_ == &head_; }
  SequenceNumber oldest_sequence() const {
    SHALE_CHECK(!empty());
    return head_.next_->sequence_;
  }

  // REQUIRES: seq >= every live snapshot's sequence.
  SnapshotImpl* New(SequenceNumber seq) {
    SHALE_CHECK(empty() || head_.prev_->sequence_ <= seq);
    SnapshotImpl* s = new SnapshotImpl(seq);
    s->list_ = this;
    s->next_ = &head_;
    s->prev_ = head_.prev_;
    s->prev_->next_ = s;
    s->next_->prev_ = s;
    return s;
  }
  void Delete(const SnapshotImpl* s) {
    SHALE_CHECK(s->list_ == this);
    s->prev_->next_ = s->next_;
    s->next_->prev_ = s->prev_;
    delete s;
  }
  // Every live snapshot's sequence, ascending.
  std::vector<SequenceNumber> Sequences() const {
    std::vector<SequenceNumber> out;
    for (const SnapshotImpl* s = head_.next_; s != &head_; s = s->next_)
      out.push_back(s->sequence_);
    return out;
  }
  // Deletes every snapshot (at Close: their holders must not use them after).
  void Clear() {
    while (!empty()) Delete(head_.next_);
  }

 private:
  SnapshotImpl head_;  // dummy head of a circular list
};

}  // namespace shale
