// DBImpl's flush thread: immutable memtables to L0 tables.
#include "db/db_impl.h"
#include "db/table_file_builder.h"
#include "memtable/memtable.h"
#include "util/file_options.h"
#include "util/mutexlock.h"
#include "version/filename.h"

namespace shale {

void DBImpl::FlushThreadMain() {
  MutexLock l(mutex_.get());
  while (true) {
    while (!shutting_down_.load(std::memory_order_acquire) && (imm_.empty() || !bg_error_.ok())) {
      bg_cv_->Wait();
    }
    if (shutting_down_.load(std::memory_order_acquire)) break;
    flush_running_ = true;
    Status s = FlushOldestImmutable();
    flush_running_ = false;
    if (!s.ok()) RecordBackgroundError(s);
    bg_cv_->SignalAll();
  }
}

Status DBImpl::FlushOldestImmutable() {
  mutex_->AssertHeld();
  MemTable* mem = imm_.oldest();
  VersionEdit edit;
  Status s = WriteLevel0Table(mem, &edit);
  if (s.ok()) {
    // Every WAL older than the next memtable's is now redundant.
    const MemTable* next = imm_.second_oldest() != nullptr ? imm_.second_oldest() : mem_;
    const uint64_t next_log = next->log_number();
    edit.SetPrevLogNumber(0);
    edit.SetLogNumber(next_log);
    SetMinLogToKeep(next_log, &edit);
    runtime_->YieldPoint("flush.before_install");
    if (HasBug(kBugDeleteWalBeforeManifest)) {
      // Planted bug: the WAL goes before the edit that makes it redundant.
      fs_->DeleteFile(LogFileName(dbname_, mem->log_number())).PermitUncheckedError();
    }
    s = runtime_->InjectedFault("flush.before_install");
    if (s.ok()) s = LogAndApply(&edit);
  }
  for (const auto& [level, meta] : edit.new_files()) pending_outputs_.erase(meta.number);
  if (!s.ok()) return s;
  imm_.RemoveOldest();
  SHALE_COUNT(&stats_, flushes, 1);
  DeleteObsoleteFiles();
  return Status::OK();
}

Status DBImpl::WriteLevel0Table(MemTable* mem, VersionEdit* edit) {
  mutex_->AssertHeld();
  const uint64_t number = versions_->NewFileNumber();
  pending_outputs_.insert(number);  // the caller erases it after installing
  const std::string path = TableFileName(dbname_, number);
  TableFileBuilder builder(table_options_, fs_,
                           FileOptionsFor(options_, "a table builder (flush)",
                                          options_.use_direct_io_for_flush_and_compaction),
                           &stats_, options_.planted_bugs);
  Status s;
  bool empty = true;
  {
    MutexUnlock unlock(mutex_.get());
    std::unique_ptr<Iterator> iter(mem->NewIterator());
    iter->SeekToFirst();
    empty = !iter->Valid();
    if (!empty) {
      s = builder.Open(path, number);
      for (; s.ok() && iter->Valid(); iter->Next()) builder.Add(iter->key(), iter->value());
      if (s.ok()) s = iter->status();
      if (s.ok()) s = runtime_->InjectedFault("flush.finish_table");
      if (s.ok()) s = builder.Finish();
      builder.Abandon();
      if (s.ok()) s = VerifyNewTable(builder.meta());
      // The table's name must be durable before the MANIFEST names it.
      if (s.ok()) s = runtime_->InjectedFault("flush.dir_sync");
      if (s.ok()) s = fs_->SyncDir(dbname_);
      if (s.ok()) SHALE_COUNT(&stats_, dir_syncs, 1);
      runtime_->YieldPoint("flush.after_build");
      if (!s.ok()) {
        // Garbage either way. VerifyNewTable may have left it in the table
        // cache: close it first (a file open without share-delete cannot
        // be deleted on Windows).
        table_cache_->Evict(number);
        fs_->DeleteFile(path).PermitUncheckedError();
      }
    }
  }
  if (s.ok() && !empty) edit->AddFile(0, builder.meta());
  return s;
}

}  // namespace shale
