// DBImpl's write path, part 2: write groups in the three modes.
//
// Every mode starts the same way: the front writer of writers_ leads a group,
// makes room, merges the group's batches into one WAL record, numbers them
// from VersionSet::LastAllocatedSequence and writes the record (without the mutex).
// Then:
//   vanilla    the group stays queued while its batches go into the memtable
//              (the leader inserts them all, or with
//              allow_concurrent_memtable_write each writer its own, in
//              parallel); the last inserter publishes the group's last
//              sequence, so a reader sees a batch whole or not at all.
//   pipelined  the group leaves writers_ at once (the next group may write
//              its WAL record) and queues in memtable_groups_; groups insert
//              and publish in WAL order, so readers see what vanilla gives.
//   WAL-only   (a transaction's prepared section or commit marker) the group
//              completes right after its WAL write; with two_write_queues
//              such writes have their own queue and leader.
//   unordered  the last sequence is published right after the WAL write;
//              each writer then inserts its own batch with no ordering among
//              writers. A reader may see part of a batch, and a snapshot may
//              gain entries later; a writer still reads its own write once
//              Write returns.
// Named yield points mark every step so the simulator can interleave
// writers and readers there.

#include "db/db_impl.h"
#include "db/db_impl_writer.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"
#include "util/mutexlock.h"
#include "wal/log_writer.h"

namespace shale {

using WriterState = DBImpl::Writer::State;

Status DBImpl::WriteImpl(Writer* w) {
  MutexLock l(mutex_.get());
  if (closed_) return Status::ShutdownInProgress("DB is closing");
  w->queue = QueueFor(w);
  w->queue->push_back(w);
  while (true) {
    if (w->state == WriterState::kDone) return w->status;
    if (w->state == WriterState::kInsertOwn) return InsertOwnBatch(w);
    if (w->state == WriterState::kQueued && w == w->queue->front()) break;
    AwaitWakeup(w);
  }
  return LeadWriteGroup(w);
}

Status DBImpl::LeadWriteGroup(Writer* w) {
  mutex_->AssertHeld();
  Writer* last_writer = w;
  // Only the main queue's leader switches memtables and WALs.
  const uint64_t mem_before = mem_id_;
  Status status = w->queue == &writers_ ? MakeRoomForWrite(w->force_switch) : bg_error_;
  if (!status.ok() || w->batch == nullptr) {
    // A Flush that found the memtable empty switched nothing out, so nothing
    // synced the WAL: WAL-only records (transaction markers) may still sit
    // in its unsynced tail, and Flush promises them durable.
    const bool flush_without_switch = w->force_switch && mem_id_ == mem_before;
    if (status.ok() && (w->sync || flush_without_switch)) status = SyncWALLocked();
    CompleteQueued(last_writer, status);
    return status;
  }
  WriteBatch* merged = BuildBatchGroup(w, &last_writer);
  WriteGroup group;
  for (Writer* member : *w->queue) {
    group.writers.push_back(member);
    if (member == last_writer) break;
  }
  // With two queues, each leader allocates its sequences and appends its
  // WAL record under wal_mu_, so the WAL holds writes in sequence order
  // (as RocksDB's log_write_mutex_ keeps it): recovery replays a prefix of
  // the WAL, and that must be a prefix in sequence order. wal_mu_ is taken
  // without mutex_ (see its comment).
  if (wal_mu_ != nullptr) {
    MutexUnlock unlock(mutex_.get());
    LockIfAny(wal_mu_.get());
  }
  const SequenceNumber first = versions_->LastAllocatedSequence() + 1;
  WriteBatchInternal::SetSequence(merged, first);
  group.last_sequence = first + WriteBatchInternal::Count(merged) - 1;
  versions_->SetLastAllocatedSequence(group.last_sequence);
  StampGroupSequences(first, group);
  bool wal_failed = false;
  {
    MutexUnlock unlock(mutex_.get());
    runtime_->YieldPoint("write.before_wal_append");
    if (!w->disable_wal) {
      status = WriteGroupToWAL(merged, w->sync);
      wal_failed = !status.ok();
    }
    runtime_->YieldPoint("write.after_wal_append");
    UnlockIfAny(wal_mu_.get());
  }
  if (merged != w->batch) merged->Clear();  // the queue's scratch batch
  // A failed WAL append or sync leaves the log's tail unknown (and a failed
  // fsync may have dropped pages): stop all writes, as RocksDB does.
  if (wal_failed) RecordBackgroundError(status);
  if (!status.ok()) {
    CompleteQueued(last_writer, status);
    return status;
  }
  if (w->disable_wal) has_unpersisted_data_ = true;
  SHALE_COUNT(&stats_, keys_written, group.last_sequence - first + 1);
  SHALE_COUNT(&stats_, write_groups, 1);
  if (w->disable_memtable()) {  // WAL-only: nothing to insert
    CompleteGroup(&group);
    return w->status;
  }
  if (options_.unordered_write) return StartUnorderedInserts(w, &group);
  if (options_.enable_pipelined_write) return EnterMemtableStage(w, &group);
  return InsertGroup(w, &group);
}

void DBImpl::StampGroupSequences(SequenceNumber first, const WriteGroup& group) {
  SequenceNumber next = first;
  for (Writer* member : group.writers) {
    WriteBatchInternal::SetSequence(member->batch, next);
    const uint32_t count = WriteBatchInternal::Count(member->batch);
    if (member->hooks != nullptr && member->hooks->on_allocated && count > 0) {
      member->hooks->on_allocated(next, next + count - 1, logfile_number_);
    }
    next += count;
  }
}

void DBImpl::PublishGroup(const WriteGroup& group) {
  for (Writer* member : group.writers) {
    const uint32_t count = WriteBatchInternal::Count(member->batch);
    if (member->hooks != nullptr && member->hooks->before_publish && count > 0) {
      const SequenceNumber first = WriteBatchInternal::Sequence(member->batch);
      member->hooks->before_publish(first, first + count - 1);
    }
  }
  if (!group.writers.front()->publishes()) return;
  sequence_before_last_publish_ = versions_->LastSequence();
  versions_->SetLastSequence(group.last_sequence);
}

Status DBImpl::SyncWALLocked() {
  mutex_->AssertHeld();
  Status status;
  {
    MutexUnlock unlock(mutex_.get());
    MaybeMutexLock wal_lock(wal_mu_.get());
    runtime_->YieldPoint("wal.before_sync");
    status = FrontWriterLog()->Sync();
  }
  if (status.ok()) {
    SHALE_COUNT(&stats_, wal_syncs, 1);
  } else {
    RecordBackgroundError(status);  // the log's unsynced tail may be gone
  }
  return status;
}

Status DBImpl::StartUnorderedInserts(Writer* w, WriteGroup* group) {
  mutex_->AssertHeld();
  PublishGroup(*group);  // before the inserts
  pending_memtable_writes_ += static_cast<int>(group->writers.size());
  for (Writer* member : group->writers) {
    member->insert_into = mem_;
    member->group = nullptr;
    member->state = WriterState::kInsertOwn;
    if (member != w) WakeWriter(member);
  }
  PopQueued(group->writers.back());
  return InsertOwnBatch(w);
}

Status DBImpl::EnterMemtableStage(Writer* w, WriteGroup* group) {
  mutex_->AssertHeld();
  group->pipelined = true;
  for (Writer* member : group->writers) member->state = WriterState::kWalWritten;
  PopQueued(group->writers.back());
  memtable_groups_.push_back(group);
  while (memtable_groups_.front() != group) AwaitWakeup(w);
  return InsertGroup(w, group);
}

Status DBImpl::InsertGroup(Writer* w, WriteGroup* group) {
  mutex_->AssertHeld();
  if (HasBug(kBugPublishBeforeMemtableInsert)) versions_->SetLastSequence(group->last_sequence);
  const bool parallel = options_.allow_concurrent_memtable_write && group->writers.size() > 1;
  if (parallel) {
    group->inserts_pending = static_cast<int>(group->writers.size());
    for (Writer* member : group->writers) {
      member->insert_into = mem_;
      member->group = group;
      member->state = WriterState::kInsertOwn;
      if (member != w) WakeWriter(member);
    }
    return InsertOwnBatch(w);
  }
  MemTable* mem = mem_;
  {
    MutexUnlock unlock(mutex_.get());
    for (Writer* member : group->writers) {
      runtime_->YieldPoint("write.before_memtable_insert");
      const Status s = WriteBatchInternal::InsertInto(member->batch, mem, /*concurrent=*/false);
      if (group->status.ok()) group->status = s;
    }
    runtime_->YieldPoint("write.before_publish");
  }
  CompleteGroup(group);
  return w->status;
}

Status DBImpl::InsertOwnBatch(Writer* w) {
  mutex_->AssertHeld();
  Status s;
  {
    MutexUnlock unlock(mutex_.get());
    runtime_->YieldPoint("write.before_memtable_insert");
    s = WriteBatchInternal::InsertInto(w->batch, w->insert_into, /*concurrent=*/true);
    runtime_->YieldPoint("write.after_memtable_insert");
  }
  WriteGroup* group = w->group;
  if (group == nullptr) {  // unordered: nothing waits for the others
    if (--pending_memtable_writes_ == 0) bg_cv_->SignalAll();
    w->status = s;
    w->state = WriterState::kDone;
    return s;
  }
  if (group->status.ok()) group->status = s;
  if (--group->inserts_pending == 0) CompleteGroup(group);
  while (w->state != WriterState::kDone) AwaitWakeup(w);
  return w->status;
}

void DBImpl::CompleteGroup(WriteGroup* group) {
  mutex_->AssertHeld();
  if (group->status.ok()) PublishGroup(*group);
  for (Writer* member : group->writers) {
    member->status = group->status;
    member->state = WriterState::kDone;
    WakeWriter(member);
  }
  if (!group->pipelined) {
    PopQueued(group->writers.back());
    return;
  }
  assert(memtable_groups_.front() == group);
  memtable_groups_.pop_front();
  if (!memtable_groups_.empty()) WakeWriter(memtable_groups_.front()->writers.front());
  bg_cv_->SignalAll();  // a memtable switch or Close may wait for the stage to drain
}

void DBImpl::CompleteQueued(Writer* last_writer, const Status& status) {
  mutex_->AssertHeld();
  for (Writer* member : *last_writer->queue) {
    member->status = status;
    member->state = WriterState::kDone;
    WakeWriter(member);
    if (member == last_writer) break;
  }
  PopQueued(last_writer);
}

void DBImpl::PopQueued(Writer* last_writer) {
  mutex_->AssertHeld();
  std::deque<Writer*>& queue = *last_writer->queue;
  while (true) {
    Writer* front = queue.front();
    queue.pop_front();
    if (front == last_writer) break;
  }
  if (!queue.empty()) {
    WakeWriter(queue.front());
  } else if (closed_) {
    bg_cv_->SignalAll();  // Close() waits for the queue to drain
  }
}

void DBImpl::WakeWriter(Writer* w) {
  mutex_->AssertHeld();
  w->wakeups.fetch_add(1, std::memory_order_release);
  w->cv->Signal();
}

void DBImpl::AwaitWakeup(Writer* w) {
  mutex_->AssertHeld();
  if (spin_before_blocking_) {
    const uint64_t seen = w->wakeups.load(std::memory_order_relaxed);
    {
      MutexUnlock unlock(mutex_.get());
      runtime_->SpinWhileEqual(w->wakeups, seen, options_.write_thread_max_yield_usec);
    }
    // Exact here: wake-ups are counted with mutex_ held, and the Wait below
    // releases it atomically, so none is missed between this check and it.
    if (w->wakeups.load(std::memory_order_relaxed) != seen) {
      SHALE_COUNT(&stats_, writer_waits_spun, 1);
      return;
    }
  }
  SHALE_COUNT(&stats_, writer_waits_blocked, 1);
  w->cv->Wait();
}

}  // namespace shale
