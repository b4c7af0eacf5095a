// DBImpl's write path, part 1: the API entry points, the WAL record of a
// group, memtable switches and stalls. Groups themselves: db_impl_write_group.cc.
#include <algorithm>

#include "db/db_impl.h"
#include "db/db_impl_writer.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"
#include "util/file_options.h"
#include "util/mutexlock.h"
#include "version/filename.h"
#include "wal/log_writer.h"

namespace shale {

namespace {
constexpr size_t kMaxGroupBytes = 1 << 20;
constexpr size_t kSmallBatchBytes = 128 << 10;
}  // namespace

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
  return WaitForFlushOf(mem_id_ - 1);
}

Status DBImpl::WaitForFlushOf(uint64_t memtable_id) {
  while (bg_error_.ok() && !imm_.empty() && imm_.oldest_id() <= memtable_id) {
    if (shutting_down_.load(std::memory_order_acquire)) return Status::ShutdownInProgress();
    bg_cv_->Wait();
  }
  return bg_error_;
}

Status DBImpl::WriteGroupToWAL(WriteBatch* group, bool sync) {
  Status s = FrontWriterLog()->AddRecord(WriteBatchInternal::Contents(group));
  if (s.ok() && sync && !HasBug(kBugAckSyncWriteBeforeWalSync)) {
    runtime_->YieldPoint("wal.before_sync");
    s = runtime_->InjectedFault("write.wal_sync");
    if (s.ok()) s = FrontWriterLog()->Sync();
    if (s.ok()) SHALE_COUNT(&stats_, wal_syncs, 1);
  }
  return s;
}

std::deque<DBImpl::Writer*>* DBImpl::QueueFor(const Writer* w) {
  return w->disable_memtable() && options_.two_write_queues ? &wal_only_writers_ : &writers_;
}

WriteBatch* DBImpl::BuildBatchGroup(Writer* leader, Writer** last_writer) {
  std::deque<Writer*>& queue = *leader->queue;
  Writer* first = queue.front();
  assert(first == leader);
  WriteBatch* scratch = &queue == &writers_ ? tmp_batch_.get() : wal_only_tmp_batch_.get();
  WriteBatch* result = first->batch;
  size_t size = WriteBatchInternal::ByteSize(first->batch);
  const size_t max_size = size <= kSmallBatchBytes ? size + kSmallBatchBytes : kMaxGroupBytes;
  *last_writer = first;
  for (auto it = queue.begin() + 1; it != queue.end(); ++it) {
    Writer* w = *it;
    if (w->batch == nullptr) break;      // SyncWAL / Flush lead their own group
    if (w->sync && !first->sync) break;  // a sync write needs a syncing leader
    if (w->disable_wal != first->disable_wal) break;
    // A group is all WAL-only or all memtable writes, publishing or not.
    if (w->disable_memtable() != first->disable_memtable()) break;
    if (w->publishes() != first->publishes()) break;
    // A prepared section is a WAL record of its own (recovery reads it whole).
    if (WriteBatchInternal::IsPreparedSection(first->batch) ||
        WriteBatchInternal::IsPreparedSection(w->batch)) {
      break;
    }
    size += WriteBatchInternal::ByteSize(w->batch);
    if (size > max_size) break;
    if (result == first->batch) {
      result = scratch;
      assert(WriteBatchInternal::Count(result) == 0);
      WriteBatchInternal::Append(result, first->batch);
    }
    WriteBatchInternal::Append(result, w->batch);
    *last_writer = w;
  }
  return result;
}

Status DBImpl::MakeRoomForWrite(bool force) {
  bool allow_delay = !force;
  while (true) {
    if (!bg_error_.ok()) return bg_error_;
    if (shutting_down_.load(std::memory_order_acquire)) return Status::ShutdownInProgress();
    // With auto compactions off nothing reduces L0, so L0 never stalls
    // writes (as in RocksDB).
    const int l0_files = options_.disable_auto_compactions ? 0 : versions_->NumLevelFiles(0);
    if (allow_delay && l0_files >= options_.level0_slowdown_writes_trigger) {
      // Slow each write a little instead of stopping them all later.
      SHALE_COUNT(&stats_, write_slowdowns, 1);
      SHALE_COUNT(&stats_, stall_micros, options_.slowdown_delay_micros);
      MutexUnlock unlock(mutex_.get());
      runtime_->SleepForMicroseconds(options_.slowdown_delay_micros);
      allow_delay = false;
    } else if (!force && mem_->ApproximateMemoryUsage() <= options_.write_buffer_size) {
      return Status::OK();
    } else if (mem_->num_entries() == 0) {
      // Nothing to switch out (an empty memtable's arena may already exceed
      // a tiny write_buffer_size).
      return Status::OK();
    } else if (imm_.size() + 1 >= static_cast<size_t>(options_.max_write_buffer_number) ||
               l0_files >= options_.level0_stop_writes_trigger) {
      SHALE_COUNT(&stats_, write_stops, 1);
      const uint64_t start_nanos = env_->clock()->NowNanos();
      bg_cv_->Wait();
      SHALE_COUNT(&stats_, stall_micros, (env_->clock()->NowNanos() - start_nanos) / 1000);
    } else {
      Status s = SwitchMemTable();
      if (!s.ok()) return s;
      force = false;
    }
  }
}

Status DBImpl::NewWAL() {
  mutex_->AssertHeld();
  const uint64_t number = versions_->NewFileNumber();
  const std::string path = LogFileName(dbname_, number);
  Status s;
  Status old_log_status;
  bool swapped = false;
  {
    // Only the front writer (or Open, alone) switches log_, so the file work
    // and its fsyncs run without the DB mutex; the second queue's leader
    // appends under wal_mu_, which the swap holds too.
    MutexUnlock unlock(mutex_.get());
    std::unique_ptr<WritableFile> file;
    s = runtime_->InjectedFault("wal.switch.new_file");
    if (s.ok()) {
      const FileOptions wal_options =
          FileOptionsFor(options_, "the WAL writer", options_.use_direct_io_for_wal);
      s = fs_->NewWritableFile(path, wal_options, &file);
    }
    // The new log's name must be durable before any sync write relies on it.
    if (s.ok()) s = fs_->SyncDir(dbname_);
    if (s.ok()) {
      SHALE_COUNT(&stats_, dir_syncs, 1);
      auto writer = std::make_unique<WritableFileWriter>(std::move(file), path, &stats_, 8 << 10);
      auto new_log = std::make_unique<log::Writer>(std::move(writer), number);
      if (HasBug(kBugDirectWalSkipsSyncPadding)) new_log->PlantSkipSyncPadding();
      if (HasBug(kBugMixPositionalAndAppend)) new_log->PlantHeaderRewriteAtSync();
      MaybeMutexLock wal_lock(wal_mu_.get());
      if (log_ != nullptr) {
        // Sync the old log so SyncWAL only ever needs the current one.
        old_log_status = runtime_->InjectedFault("wal.switch.sync_old");
        if (old_log_status.ok()) old_log_status = log_->Sync();
        if (old_log_status.ok()) SHALE_COUNT(&stats_, wal_syncs, 1);
        old_log_status = FirstError(old_log_status, log_->Close());
      }
      if (old_log_status.ok()) {
        log_ = std::move(new_log);
        swapped = true;
      }
    }
  }
  if (!s.ok()) {
    versions_->ReuseFileNumber(number);
    return s;
  }
  if (!old_log_status.ok()) {
    RecordBackgroundError(old_log_status);  // the old log's tail may be lost
    return old_log_status;
  }
  assert(swapped);
  (void)swapped;
  logfile_number_ = number;
  return Status::OK();
}

MemTable* DBImpl::NewMemTable() const {
  return new MemTable(internal_comparator_, options_.write_buffer_size / 8, memtable_mu_.get());
}

Status DBImpl::SwitchMemTable() {
  // No insert may still be headed for the memtable that becomes immutable:
  // its WAL would be retired by the flush without its data (RocksDB's
  // WaitForPendingWrites).
  while (pending_memtable_writes_ > 0 || !memtable_groups_.empty()) bg_cv_->Wait();
  Status s = NewWAL();
  if (!s.ok()) return s;
  imm_.Add(mem_, mem_id_);  // the list takes over mem_'s reference
  mem_ = NewMemTable();
  mem_->Ref();
  mem_->set_log_number(logfile_number_);
  mem_id_ = next_memtable_id_++;
  bg_cv_->SignalAll();  // wake the flush thread
  return Status::OK();
}

}  // namespace shale
