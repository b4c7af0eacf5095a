// DBImpl's room for writes: L0 slowdowns and stops, memtable switches and
// the WAL switch that goes with each, and waiting for a flush.
#include "db/db_impl.h"
#include "memtable/memtable.h"
#include "util/check.h"
#include "util/file_options.h"
#include "util/mutexlock.h"
#include "version/filename.h"
#include "wal/log_writer.h"

namespace shale {

Status DBImpl::WaitForFlushOf(uint64_t memtable_id) {
  while (bg_error_.ok() && !imm_.empty() && imm_.oldest_id() <= memtable_id) {
    if (shutting_down_.load(std::memory_order_acquire)) return Status::ShutdownInProgress();
    bg_cv_->Wait();
  }
  return bg_error_;
}

Status DBImpl::MakeRoomForWrite(bool force) {
  bool allow_delay = !force;
  int first_l0_files = -1;  // planted bug: the count every later check reuses
  while (true) {
    if (!bg_error_.ok()) {
      SHALE_PROBE(runtime_, "write.refused_background_error");
      return bg_error_;
    }
    if (shutting_down_.load(std::memory_order_acquire)) return Status::ShutdownInProgress();
    // With auto compactions off nothing reduces L0, so L0 never stalls
    // writes (as in RocksDB).
    int l0_files = options_.disable_auto_compactions ? 0 : versions_->NumLevelFiles(0);
    if (HasBug(kBugSlowdownRereadsStaleLevel0)) {
      if (first_l0_files < 0) first_l0_files = l0_files;
      l0_files = first_l0_files;
    }
    if (allow_delay && l0_files >= options_.level0_slowdown_writes_trigger) {
      // Slow each write a little instead of stopping them all later.
      SHALE_PROBE(runtime_, "write.slowdown");
      SHALE_COUNT(&stats_, write_slowdowns, 1);
      SHALE_COUNT(&stats_, stall_micros, options_.slowdown_delay_micros);
      MutexUnlock unlock(mutex_.get());
      runtime_->SleepForMicroseconds(options_.slowdown_delay_micros);
      allow_delay = HasBug(kBugSlowdownRereadsStaleLevel0);
    } else if (!force && mem_->ApproximateMemoryUsage() <= options_.write_buffer_size) {
      return Status::OK();
    } else if (mem_->num_entries() == 0) {
      // Nothing to switch out (an empty memtable's arena may already exceed
      // a tiny write_buffer_size).
      return Status::OK();
    } else if (imm_.size() + 1 >= static_cast<size_t>(options_.max_write_buffer_number) ||
               l0_files >= options_.level0_stop_writes_trigger) {
      if (l0_files >= options_.level0_stop_writes_trigger) {
        SHALE_PROBE(runtime_, "write.stop_level0");
      } else {
        SHALE_PROBE(runtime_, "write.stop_memtables");
      }
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
      FileOptions wal_options =
          FileOptionsFor(options_, "the WAL writer", options_.use_direct_io_for_wal);
      // A mapped append is a memcpy that a kill can stop midway, leaving a
      // record whose checksum fails before the zero tail. Point-in-time and
      // skip-any recovery end there; the other two modes would refuse it
      // (and kAbsoluteConsistency the zero tail too), so their logs are
      // written with write(2), which a kill can only cut short.
      const WALRecoveryMode mode = options_.wal_recovery_mode;
      wal_options.use_mmap_writes = options_.allow_mmap_writes && !wal_options.use_direct_io &&
                                    (mode == WALRecoveryMode::kPointInTimeRecovery ||
                                     mode == WALRecoveryMode::kSkipAnyCorruptedRecords);
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
      if (HasBug(kBugWalFragmentIgnoresHeader)) new_log->PlantFragmentIgnoresHeader();
      MaybeMutexLock wal_lock(wal_mu_.get());
      if (log_ != nullptr) {
        // Sync the old log so SyncWAL only ever needs the current one.
        old_log_status = runtime_->InjectedFault("wal.switch.sync_old");
        if (old_log_status.ok()) old_log_status = log_->Sync();
        if (old_log_status.ok()) SHALE_COUNT(&stats_, wal_syncs, 1);
        // A writer that took the old log before this failure (a second
        // queue's leader waiting on wal_mu_) then fails with its cause.
        old_log_status = FirstError(old_log_status, log_->Close(old_log_status));
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
    SHALE_PROBE(runtime_, "write.old_wal_sync_failed");
    RecordBackgroundError(old_log_status);  // the old log's tail may be lost
    return old_log_status;
  }
  SHALE_CHECK(swapped);
  (void)swapped;
  logfile_number_ = number;
  return Status::OK();
}

MemTable* DBImpl::NewMemTable() const {
  MemTableOptions memtable_options;
  memtable_options.arena_block_bytes = options_.write_buffer_size / 8;
  memtable_options.concurrent_mu = memtable_mu_.get();
  memtable_options.huge_page_advisor = options_.memtable_huge_pages ? runtime_ : nullptr;
  if (options_.memtable_whole_key_filtering) {
    memtable_options.bloom_bytes =
        static_cast<size_t>(static_cast<double>(options_.write_buffer_size) *
                            options_.memtable_prefix_bloom_size_ratio);
  }
  return new MemTable(internal_comparator_, memtable_options);
}

Status DBImpl::SwitchMemTable() {
  // No insert may still be headed for the memtable that becomes immutable:
  // its WAL would be retired by the flush without its data (RocksDB's
  // WaitForPendingWrites).
  while (write_thread_.MemtableWritesInFlight()) {
    SHALE_PROBE(runtime_, "write.memtable_switch_waited_for_inserts");
    bg_cv_->Wait();
  }
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
