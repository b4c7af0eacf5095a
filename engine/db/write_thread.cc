#include "db/write_thread.h"

#include "db/write_batch_internal.h"
#include "util/check.h"
#include "util/mutexlock.h"

namespace shale {

namespace {
// A group's WAL record grows to at most this many bytes...
constexpr size_t kMaxGroupBytes = 1 << 20;
// ...and a small leader's to its own size plus this, so a small write does
// not wait on a megabyte of other writers' records.
constexpr size_t kSmallBatchBytes = 128 << 10;
}  // namespace

using WriterState = WriteThread::Writer::State;

WriteThread::WriteThread(const Options& options, Mutex* db_mutex, Runtime* runtime,
                         StatsCounters* stats)
    : max_yield_micros_(options.write_thread_max_yield_usec),
      spin_before_blocking_(options.enable_write_thread_adaptive_yield &&
                            options.write_thread_max_yield_usec > 0 && runtime->CanSpin()),
      two_write_queues_(options.two_write_queues),
      db_mutex_(db_mutex),
      runtime_(runtime),
      stats_(stats) {}

void WriteThread::Join(Writer* w) {
  db_mutex_->AssertHeld();
  w->queue = w->disable_memtable() && two_write_queues_ ? &wal_only_writers_ : &writers_;
  w->queue->push_back(w);
}

bool WriteThread::IsLeader(const Writer* w) const {
  return w->state == WriterState::kQueued && w == w->queue->front();
}

// Whether w may join the group first leads (see BuildBatchGroup).
static bool JoinsGroupOf(const WriteThread::Writer* first, const WriteThread::Writer* w) {
  if (w->batch == nullptr) return false;      // SyncWAL / Flush lead their own group
  if (w->sync && !first->sync) return false;  // a sync write needs a syncing leader
  if (w->disable_wal != first->disable_wal) return false;
  // A group is all WAL-only or all memtable writes, publishing or not.
  if (w->disable_memtable() != first->disable_memtable()) return false;
  if (w->publishes() != first->publishes()) return false;
  // A prepared section is a WAL record of its own (recovery reads it whole).
  return !WriteBatchInternal::IsPreparedSection(first->batch) &&
         !WriteBatchInternal::IsPreparedSection(w->batch);
}

WriteBatch* WriteThread::BuildBatchGroup(Writer* leader, WriteGroup* group) {
  db_mutex_->AssertHeld();
  std::deque<Writer*>& queue = *leader->queue;
  SHALE_CHECK(IsLeader(leader) && leader->batch != nullptr);
  WriteBatch* scratch = &queue == &writers_ ? &main_scratch_ : &wal_only_scratch_;
  WriteBatch* result = leader->batch;
  size_t size = WriteBatchInternal::ByteSize(leader->batch);
  const size_t max_size = size <= kSmallBatchBytes ? size + kSmallBatchBytes : kMaxGroupBytes;
  group->writers.push_back(leader);
  for (auto it = queue.begin() + 1; it != queue.end(); ++it) {
    Writer* w = *it;
    if (!JoinsGroupOf(leader, w)) break;
    size += WriteBatchInternal::ByteSize(w->batch);
    if (size > max_size) break;
    if (result == leader->batch) {
      result = scratch;
      SHALE_CHECK(WriteBatchInternal::Count(result) == 0);
      WriteBatchInternal::Append(result, leader->batch);
    }
    WriteBatchInternal::Append(result, w->batch);
    group->writers.push_back(w);
  }
  return result;
}

bool WriteThread::CompleteQueued(Writer* last_writer, const Status& status) {
  db_mutex_->AssertHeld();
  for (Writer* member : *last_writer->queue) {
    member->status = status;
    member->state = WriterState::kDone;
    WakeWriter(member);
    if (member == last_writer) break;
  }
  return Pop(last_writer);
}

bool WriteThread::Pop(Writer* last_writer) {
  db_mutex_->AssertHeld();
  std::deque<Writer*>& queue = *last_writer->queue;
  while (true) {
    Writer* front = queue.front();
    queue.pop_front();
    if (front == last_writer) break;
  }
  if (queue.empty()) return true;
  WakeWriter(queue.front());
  return false;
}

void WriteThread::EnterMemtableStage(Writer* w, WriteGroup* group) {
  db_mutex_->AssertHeld();
  group->pipelined = true;
  memtable_stage_.push_back(group);
  while (memtable_stage_.front() != group) AwaitWakeup(w);
}

void WriteThread::LeaveMemtableStage(WriteGroup* group) {
  db_mutex_->AssertHeld();
  SHALE_CHECK(memtable_stage_.front() == group);
  (void)group;
  memtable_stage_.pop_front();
  if (!memtable_stage_.empty()) WakeWriter(memtable_stage_.front()->writers.front());
}

void WriteThread::WakeWriter(Writer* w) {
  db_mutex_->AssertHeld();
  w->wakeups.fetch_add(1, std::memory_order_release);
  w->cv->Signal();
}

void WriteThread::AwaitWakeup(Writer* w) {
  db_mutex_->AssertHeld();
  if (spin_before_blocking_) {
    const uint64_t seen = w->wakeups.load(std::memory_order_relaxed);
    {
      MutexUnlock unlock(db_mutex_);
      runtime_->SpinWhileEqual(w->wakeups, seen, max_yield_micros_);
    }
    // Exact here: wake-ups are counted with the DB mutex held, and the Wait
    // below releases it atomically, so none is missed between this check
    // and it.
    if (w->wakeups.load(std::memory_order_relaxed) != seen) {
      SHALE_COUNT(stats_, writer_waits_spun, 1);
      return;
    }
  }
  SHALE_COUNT(stats_, writer_waits_blocked, 1);
  w->cv->Wait();
}

}  // namespace shale
