// DBImpl's write path: the API entry points and write groups in their modes.
//
// Every mode starts the same way: the front writer of its queue (WriteThread)
// leads a group, makes room, merges the group's batches into one WAL record,
// numbers them from VersionSet::LastAllocatedSequence and writes the record
// (without the mutex). Then:
//   vanilla    the group stays queued while its batches go into the memtable
//              (the leader inserts them all, or with
//              allow_concurrent_memtable_write each writer its own, in
//              parallel); the last inserter publishes the group's last
//              sequence, so a reader sees a batch whole or not at all.
//   pipelined  the group leaves its queue at once (the next group may write
//              its WAL record) and waits in the memtable stage; groups insert
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
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"
#include "util/hash.h"
#include "util/mutexlock.h"
#include "wal/log_writer.h"

namespace shale {

using WriterState = DBImpl::Writer::State;

Status DB::Put(const WriteOptions& options, const Slice& key, const Slice& value) {
  WriteBatch batch;
  batch.Put(key, value);
  return Write(options, &batch);
}

Status DB::Delete(const WriteOptions& options, const Slice& key) {
  WriteBatch batch;
  batch.Delete(key);
  return Write(options, &batch);
}

Status DBImpl::Write(const WriteOptions& options, WriteBatch* batch) {
  if (HasBug(kBugWriteReturnsCorruption) && batch != nullptr) {
    const Slice rep = WriteBatchInternal::Contents(batch);
    if (Hash64(rep.data(), rep.size()) % 500 == 0) {
      return Status::Corruption("write batch has a bad count");
    }
  }
  return WriteWithHooks(options, batch, nullptr);
}

Status DBImpl::WriteWithHooks(const WriteOptions& options, WriteBatch* batch,
                              const WriteHooks* hooks) {
  if (batch == nullptr) return Status::InvalidArgument("Write: batch is null");
  if (hooks != nullptr && hooks->disable_memtable && options.disable_wal) {
    return Status::InvalidArgument("Write: a WAL-only write without the WAL");
  }
  if (options.sync && options.disable_wal) {
    return Status::InvalidArgument("Write: sync and disable_wal together");
  }
  Writer w(runtime_, mutex_.get());
  w.batch = batch;
  w.sync = options.sync;
  w.disable_wal = options.disable_wal;
  w.hooks = hooks;
  return WriteImpl(&w);
}

Status DBImpl::SyncWAL() {
  Writer w(runtime_, mutex_.get());
  w.sync = true;
  return WriteImpl(&w);
}

Status DBImpl::Flush(const FlushOptions& options) {
  Writer w(runtime_, mutex_.get());
  w.force_switch = true;
  Status s = WriteImpl(&w);
  if (!s.ok() || !options.wait) return s;
  MutexLock l(mutex_.get());
  if (HasBug(kBugFlushWaitReadsMissingMemtable) && !imm_.empty() &&
      imm_.second_oldest()->ApproximateMemoryUsage() == 0) {
    return s;
  }
  return WaitForFlushOf(mem_id_ - 1);
}

namespace {

// Copies a batch's records into two batches, the first `first_count` into
// *head and the rest into *tail, numbered on from the batch's sequence.
// Returns false (nothing split) if it holds a transaction marker.
class BatchSplitter final : public WriteBatch::Handler {
 public:
  BatchSplitter(uint32_t first_count, WriteBatch* head, WriteBatch* tail)
      : first_count_(first_count), head_(head), tail_(tail) {}
  void Put(const Slice& key, const Slice& value) override { Next()->Put(key, value); }
  void Delete(const Slice& key) override { Next()->Delete(key); }
  void MarkBeginPrepare() override { has_marker_ = true; }
  void MarkEndPrepare(const Slice&) override { has_marker_ = true; }
  void MarkCommit(const Slice&) override { has_marker_ = true; }
  void MarkRollback(const Slice&) override { has_marker_ = true; }
  bool has_marker() const { return has_marker_; }

 private:
  WriteBatch* Next() { return seen_++ < first_count_ ? head_ : tail_; }
  const uint32_t first_count_;
  WriteBatch* const head_;
  WriteBatch* const tail_;
  uint32_t seen_ = 0;
  bool has_marker_ = false;
};

// The planted kBugSplitUnsyncedGroupInWal: group's records as two WAL
// records. False if it cannot be split (fewer than 2 records, a marker).
bool SplitForPlantedBug(const WriteBatch& group, WriteBatch* head, WriteBatch* tail) {
  const uint32_t count = WriteBatchInternal::Count(&group);
  if (count < 2) return false;
  BatchSplitter splitter(count / 2, head, tail);
  if (!group.Iterate(&splitter).ok() || splitter.has_marker()) return false;
  const SequenceNumber first = WriteBatchInternal::Sequence(&group);
  WriteBatchInternal::SetSequence(head, first);
  WriteBatchInternal::SetSequence(tail, first + count / 2);
  return true;
}

}  // namespace

Status DBImpl::WriteGroupToWAL(WriteBatch* group, bool sync) {
  if (!sync && HasBug(kBugSplitUnsyncedGroupInWal)) {
    WriteBatch head, tail;
    if (SplitForPlantedBug(*group, &head, &tail)) {
      Status s = FrontWriterLog()->AddRecord(WriteBatchInternal::Contents(&head));
      if (s.ok()) s = FrontWriterLog()->AddRecord(WriteBatchInternal::Contents(&tail));
      return s;
    }
  }
  Status s = FrontWriterLog()->AddRecord(WriteBatchInternal::Contents(group));
  if (s.ok() && sync && !HasBug(kBugAckSyncWriteBeforeWalSync)) {
    runtime_->YieldPoint("wal.before_sync");
    s = runtime_->InjectedFault("write.wal_sync");
    if (s.ok()) s = FrontWriterLog()->Sync();
    if (s.ok()) SHALE_COUNT(&stats_, wal_syncs, 1);
  }
  return s;
}

Status DBImpl::WriteImpl(Writer* w) {
  MutexLock l(mutex_.get());
  if (closed_) return Status::ShutdownInProgress("DB is closing");
  const bool planted_stale_sequence =
      HasBug(kBugFollowerSequenceNotReported) && w->batch != nullptr;
  const SequenceNumber sequence_before =
      planted_stale_sequence ? WriteBatchInternal::Sequence(w->batch) : 0;
  write_thread_.Join(w);
  while (true) {
    if (w->state == WriterState::kDone) {  // a follower: the leader wrote it
      if (planted_stale_sequence) WriteBatchInternal::SetSequence(w->batch, sequence_before);
      return w->status;
    }
    if (w->state == WriterState::kInsertOwn) return InsertOwnBatch(w);
    if (write_thread_.IsLeader(w)) break;
    write_thread_.AwaitWakeup(w);
  }
  return LeadWriteGroup(w);
}

Status DBImpl::LeadWriteGroup(Writer* w) {
  mutex_->AssertHeld();
  // Only the main queue's leader switches memtables and WALs.
  const uint64_t mem_before = mem_id_;
  Status status = write_thread_.InMainQueue(w) ? MakeRoomForWrite(w->force_switch) : bg_error_;
  if (!status.ok() || w->batch == nullptr) {
    // A Flush that found the memtable empty switched nothing out, so nothing
    // synced the WAL: WAL-only records (transaction markers) may still sit
    // in its unsynced tail, and Flush promises them durable.
    const bool flush_without_switch = w->force_switch && mem_id_ == mem_before;
    if (status.ok() && (w->sync || flush_without_switch)) status = SyncWALLocked();
    CompleteQueued(w, status);
    return status;
  }
  WriteGroup group;
  WriteBatch* merged = write_thread_.BuildBatchGroup(w, &group);
  if (group.writers.size() >= 2) SHALE_PROBE(runtime_, "write.group_of_several");
  if (!write_thread_.InMainQueue(w)) SHALE_PROBE(runtime_, "write.second_queue_leader");
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
    CompleteQueued(group.writers.back(), status);
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
  // The WAL the group's record goes to: log_'s own number, which its swap
  // sets under wal_mu_ (held here with two queues; with one, only this
  // leader switches logs). logfile_number_ follows only once the switching
  // writer takes the DB mutex back, after a second queue's leader may have.
  const uint64_t wal_number = log_ != nullptr ? log_->log_number() : logfile_number_;
  SequenceNumber next = first;
  for (Writer* member : group.writers) {
    WriteBatchInternal::SetSequence(member->batch, next);
    const uint32_t count = WriteBatchInternal::Count(member->batch);
    if (member->hooks != nullptr && member->hooks->on_allocated && count > 0) {
      member->hooks->on_allocated(next, next + count - 1, wal_number);
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
  write_thread_.AddUnorderedInserts(static_cast<int>(group->writers.size()));
  for (Writer* member : group->writers) {
    member->insert_into = mem_;
    member->group = nullptr;
    member->state = WriterState::kInsertOwn;
    if (member != w) write_thread_.WakeWriter(member);
  }
  PopQueued(group->writers.back());
  return InsertOwnBatch(w);
}

Status DBImpl::EnterMemtableStage(Writer* w, WriteGroup* group) {
  mutex_->AssertHeld();
  for (Writer* member : group->writers) member->state = WriterState::kWalWritten;
  PopQueued(group->writers.back());
  write_thread_.EnterMemtableStage(w, group);
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
      if (member != w) write_thread_.WakeWriter(member);
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
    if (write_thread_.FinishUnorderedInsert()) bg_cv_->SignalAll();
    w->status = s;
    w->state = WriterState::kDone;
    return s;
  }
  if (group->status.ok()) group->status = s;
  if (--group->inserts_pending == 0) CompleteGroup(group);
  while (w->state != WriterState::kDone) write_thread_.AwaitWakeup(w);
  return w->status;
}

void DBImpl::CompleteGroup(WriteGroup* group) {
  mutex_->AssertHeld();
  if (group->status.ok()) PublishGroup(*group);
  for (Writer* member : group->writers) {
    member->status = group->status;
    member->state = WriterState::kDone;
    write_thread_.WakeWriter(member);
  }
  if (!group->pipelined) {
    PopQueued(group->writers.back());
    return;
  }
  write_thread_.LeaveMemtableStage(group);
  bg_cv_->SignalAll();  // a memtable switch or Close may wait for the stage to drain
}

void DBImpl::CompleteQueued(Writer* last_writer, const Status& status) {
  SignalIfDrained(write_thread_.CompleteQueued(last_writer, status));
}

void DBImpl::PopQueued(Writer* last_writer) { SignalIfDrained(write_thread_.Pop(last_writer)); }

void DBImpl::SignalIfDrained(bool queue_emptied) {
  if (queue_emptied && closed_) bg_cv_->SignalAll();
}

}  // namespace shale
