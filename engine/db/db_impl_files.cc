// DBImpl's file bookkeeping, shared by flush, compaction and open: new-table
// verification, MANIFEST installs, background errors, the WAL bound and
// obsolete-file deletion.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "version/filename.h"

namespace shale {

Status DBImpl::VerifyNewTable(const FileMetaData& meta) {
  std::unique_ptr<Iterator> it(table_cache_->NewIterator(ReadOptions(), meta));
  it->SeekToFirst();
  if (it->status().ok() && !it->Valid()) {
    return Status::Corruption("new table is empty", TableFileName(dbname_, meta.number));
  }
  return it->status();
}

Status DBImpl::LogAndApply(VersionEdit* edit) {
  mutex_->AssertHeld();
  while (manifest_busy_) bg_cv_->Wait();
  manifest_busy_ = true;
  Status s = versions_->LogAndApply(edit, mutex_.get());
  if (!s.ok()) SHALE_PROBE(runtime_, "manifest.write_failed");
  manifest_busy_ = false;
  bg_cv_->SignalAll();
  return s;
}

void DBImpl::RecordBackgroundError(const Status& s) {
  mutex_->AssertHeld();
  if (bg_error_.ok() && !s.ok() && !s.IsShutdownInProgress()) {
    SHALE_PROBE(runtime_, "db.background_error_set");
    bg_error_ = s;
    bg_cv_->SignalAll();
  }
}

uint64_t DBImpl::MinLogToKeep() const {
  // With transactions, only what the MANIFEST says: a WAL deleted on a
  // newer bound could come back after a crash undid its deletion.
  return txn_hooks_ == nullptr ? versions_->LogNumber() : versions_->MinLogToKeep();
}

void DBImpl::SetMinLogToKeep(uint64_t new_log_number, VersionEdit* edit) const {
  if (txn_hooks_ == nullptr) return;
  edit->SetMinLogToKeep(
      std::min(new_log_number, txn_hooks_->MinLogWithPreparedSection(new_log_number)));
}

void DBImpl::DeleteObsoleteFiles() {
  mutex_->AssertHeld();
  // After a background error the MANIFEST's durable state is unknown: a
  // file that looks obsolete may be named by an edit that reached disk.
  if (!bg_error_.ok()) return;
  std::set<uint64_t> live = pending_outputs_;
  versions_->AddLiveFiles(&live);
  std::vector<std::string> names;
  // A failed listing only delays cleanup to the next call.
  if (!fs_->GetChildren(dbname_, &names).ok()) return;
  const uint64_t log_number = MinLogToKeep();
  const uint64_t prev_log_number = versions_->PrevLogNumber();
  const uint64_t manifest_number = versions_->ManifestFileNumber();
  // With transactions, oldest first: a crash in the middle leaves the WALs
  // as a suffix, so a kept prepared section's commit marker is never in a
  // deleted WAL.
  if (txn_hooks_ != nullptr) {
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      uint64_t na = 0, nb = 0;
      FileType ta, tb;
      const bool pa = ParseFileName(a, &na, &ta), pb = ParseFileName(b, &nb, &tb);
      return pa != pb ? pa : (na != nb ? na < nb : a < b);
    });
  }
  bool deleted = false;
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    bool keep = true;
    switch (type) {
      case FileType::kLogFile:
        keep = number >= log_number || number == prev_log_number;
        break;
      case FileType::kDescriptorFile:
        keep = number >= manifest_number;
        break;
      case FileType::kTableFile:
        keep = live.count(number) > 0;
        break;
      case FileType::kTempFile:
        keep = number >= manifest_number || live.count(number) > 0;
        break;
      case FileType::kCurrentFile:
      case FileType::kDBLockFile:
      case FileType::kInfoLogFile:
        keep = true;
        break;
    }
    if (keep) continue;
    if (type == FileType::kTempFile) SHALE_PROBE(runtime_, "files.leftover_temp_file_deleted");
    // The table cache closes a table before it goes (Windows refuses to
    // delete a file open without share-delete).
    const bool evict = type == FileType::kTableFile;
    if (evict && !HasBug(kBugDeleteTableBeforeEvict)) table_cache_->Evict(number);
    // A failed delete leaves garbage that the next cleanup retries.
    if (runtime_->InjectedFault("obsolete.delete").ok()) {
      fs_->DeleteFile(dbname_ + "/" + name).PermitUncheckedError();
    }
    if (evict && HasBug(kBugDeleteTableBeforeEvict)) table_cache_->Evict(number);
    if (type == FileType::kLogFile) runtime_->YieldPoint("wal.after_delete");
    deleted = true;
  }
  if (deleted) runtime_->YieldPoint("obsolete.after_delete");
}

}  // namespace shale
