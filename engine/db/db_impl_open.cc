// DBImpl::Open's work: lock the directory, load the MANIFEST, replay the
// WALs it does not cover (per wal_recovery_mode), write what they held to
// L0 tables, and start a fresh WAL and the background threads.
//
// Crash safety of recovery itself: replayed data is written to new tables
// that become live only with the single LogAndApply at the end (which also
// retires the old WALs), so a crash anywhere in recovery leaves the old
// WALs in charge and the next Open replays them again.
#include <algorithm>
#include <functional>
#include <string>

#include "db/db_impl.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"
#include "util/file_options.h"
#include "util/mutexlock.h"
#include "version/filename.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale {

namespace {
// "/a/b" -> "/a", "/db" -> "/", "db" -> ".".
std::string ParentDir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}
}  // namespace

Status DBImpl::OpenImpl() {
  MutexLock l(mutex_.get());
  VersionEdit edit;
  bool save_manifest = false;
  Status s = Recover(&edit, &save_manifest);
  if (s.ok()) s = NewWAL();
  if (s.ok()) {
    mem_ = NewMemTable();
    mem_->Ref();
    mem_->set_log_number(logfile_number_);
    mem_id_ = next_memtable_id_++;
    edit.SetPrevLogNumber(0);
    edit.SetLogNumber(logfile_number_);
    SetMinLogToKeep(logfile_number_, &edit);
    s = runtime_->InjectedFault("recovery.log_and_apply");
    if (s.ok() && HasBug(kBugOpenFailsSpuriously) && logfile_number_ % 3 == 0) {
      s = Status::IOError("recovery", "resource temporarily unavailable");
    }
    if (s.ok()) s = LogAndApply(&edit);
  }
  for (const auto& [level, meta] : edit.new_files()) pending_outputs_.erase(meta.number);
  if (!s.ok()) return s;
  DeleteObsoleteFiles();
  flush_thread_ = runtime_->StartThread("flush", [this]() { FlushThreadMain(); });
  compaction_thread_ = runtime_->StartThread("compaction", [this]() { CompactionThreadMain(); });
  bg_cv_->SignalAll();
  return Status::OK();
}

Status DBImpl::Recover(VersionEdit* edit, bool* save_manifest) {
  mutex_->AssertHeld();
  Status s = fs_->CreateDirIfMissing(dbname_);
  if (!s.ok()) return s;
  s = fs_->LockFile(LockFileName(dbname_), &db_lock_);
  if (!s.ok()) return s;
  s = fs_->FileExists(CurrentFileName(dbname_));
  if (s.IsNotFound() || s.IsPathNotFound()) {
    if (!options_.create_if_missing) {
      return Status::InvalidArgument(dbname_, "does not exist (create_if_missing is false)");
    }
    // The DB directory's own name must be durable too, or a power loss can
    // take the whole new DB with it: sync its parent.
    s = fs_->SyncDir(ParentDir(dbname_));
    if (s.ok())
      s = WriteNewDBManifest(fs_, dbname_, internal_comparator_.user_comparator(), &stats_);
    if (!s.ok()) return s;
  } else if (!s.ok()) {
    return s;
  } else if (options_.error_if_exists) {
    return Status::InvalidArgument(dbname_, "exists (error_if_exists is true)");
  }
  s = versions_->Recover(save_manifest);
  if (!s.ok()) return s;

  // Every live table must exist; WALs at or after the MANIFEST's log number
  // (or equal to its prev log number) hold unflushed writes.
  std::vector<std::string> names;
  s = fs_->GetChildren(dbname_, &names);
  if (!s.ok()) return s;
  std::set<uint64_t> expected;
  versions_->AddLiveFiles(&expected);
  std::vector<uint64_t> logs;
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    expected.erase(number);
    if (type == FileType::kDescriptorFile && number > versions_->ManifestFileNumber()) {
      SHALE_PROBE(runtime_, "recovery.orphan_manifest_found");
    }
    // With transactions, older WALs kept for their prepared sections are
    // read too (ReplayLogFile inserts none of their data).
    const bool kept_for_txns = txn_hooks_ != nullptr && number >= versions_->MinLogToKeep() &&
                               !HasBug(kBugRecoverySkipsKeptLogs);
    if (type == FileType::kLogFile && (kept_for_txns || number >= versions_->LogNumber() ||
                                       number == versions_->PrevLogNumber())) {
      logs.push_back(number);
    }
  }
  if (!expected.empty()) {
    return Status::Corruption("missing table file", TableFileName(dbname_, *expected.begin()));
  }
  if (options_.paranoid_checks) s = CheckTableSizes();
  if (!s.ok()) return s;
  std::sort(logs.begin(), logs.end());
  return RecoverLogFiles(logs, edit);
}

Status DBImpl::CheckTableSizes() {
  for (int level = 0; level < versions_->NumLevels(); level++) {
    for (const FileMetaData* f : versions_->current()->files(level)) {
      const std::string path = TableFileName(dbname_, f->number);
      uint64_t size_bytes = 0;
      Status s = fs_->GetFileSize(path, &size_bytes);
      if (!s.ok()) return s;
      if (size_bytes != f->file_size) {
        return Status::Corruption("table file size mismatch: the MANIFEST records " +
                                      std::to_string(f->file_size) + " bytes, the file has " +
                                      std::to_string(size_bytes),
                                  path);
      }
    }
  }
  return Status::OK();
}

Status DBImpl::RecoverLogFiles(const std::vector<uint64_t>& logs, VersionEdit* edit) {
  mutex_->AssertHeld();
  SequenceNumber max_sequence = versions_->LastSequence();
  MemTable* mem = nullptr;
  Status s;
  std::vector<LogCut> cuts;
  bool stop = false;
  size_t replayed = 0;
  for (; s.ok() && !stop && replayed < logs.size(); replayed++) {
    versions_->MarkFileNumberUsed(logs[replayed]);
    s = ReplayLogFile(logs[replayed], &mem, edit, &max_sequence, &cuts, &stop);
  }
  for (uint64_t number : logs) versions_->MarkFileNumberUsed(number);
  if (replayed >= 2) SHALE_PROBE(runtime_, "recovery.multiple_wals_replayed");
  const std::vector<uint64_t> kept(logs.begin(), logs.begin() + static_cast<ptrdiff_t>(replayed));
  const std::vector<uint64_t> dropped(logs.begin() + static_cast<ptrdiff_t>(replayed), logs.end());
  if (s.ok()) s = CutLogsToReplayedPrefix(cuts, dropped);
  if (s.ok() && txn_hooks_ != nullptr) s = SyncReplayedLogs(kept);
  if (s.ok() && mem != nullptr) s = runtime_->InjectedFault("recovery.write_level0");
  if (s.ok() && mem != nullptr) s = WriteLevel0Table(mem, edit);
  if (mem != nullptr) mem->Unref();
  if (s.ok() && !edit->new_files().empty()) {
    s = fs_->SyncDir(dbname_);  // WriteLevel0Table synced it; cheap, but keep explicit
  }
  if (s.ok() && max_sequence > versions_->LastSequence()) versions_->SetLastSequence(max_sequence);
  return s;
}

void DBImpl::ProbeReplay(WALRecoveryMode mode, bool insert_data, const log::ReplayResult& result) {
  if (!insert_data) SHALE_PROBE(runtime_, "recovery.wal_read_for_txn_markers_only");
  if (result.ended_at_torn_tail) SHALE_PROBE(runtime_, "recovery.wal_torn_tail_ended_replay");
  if (result.stopped_at_corrupt_record) {
    SHALE_PROBE(runtime_, "recovery.point_in_time_stopped_at_corruption");
  }
  if (result.skipped_damage > 0) SHALE_PROBE(runtime_, "recovery.skip_any_skipped_damage");
  if (result.refused && mode == WALRecoveryMode::kAbsoluteConsistency) {
    SHALE_PROBE(runtime_, "recovery.absolute_consistency_refused");
  }
  if (result.refused && mode == WALRecoveryMode::kTolerateCorruptedTailRecords) {
    SHALE_PROBE(runtime_, "recovery.tolerate_tail_refused");
  }
}

WALRecoveryMode DBImpl::ReplayModeWithPlantedBugs() const {
  WALRecoveryMode mode = options_.wal_recovery_mode;
  // This planted bug replays as point-in-time whatever the mode: it stops
  // silently at damage in the middle of a WAL.
  if (HasBug(kBugRecoveryStopsAtCorruption)) mode = WALRecoveryMode::kPointInTimeRecovery;
  if (HasBug(kBugTolerateTailRefusesIncompleteTail) &&
      mode == WALRecoveryMode::kTolerateCorruptedTailRecords) {
    mode = WALRecoveryMode::kAbsoluteConsistency;
  }
  return mode;
}

namespace {

// The planted kBugSkipAnyDropsDamagedLog: records are held until the log
// ends, and dropped, all of them, if any damage was skipped.
Status ReplayWholeLogOrNothing(log::Reader* reader, WALRecoveryMode mode,
                               const std::function<Status(const Slice&)>& apply,
                               log::ReplayResult* result) {
  std::vector<std::string> held;
  Status s = log::ReplayLog(
      reader, mode,
      [&held](const Slice& record) {
        held.push_back(record.ToString());
        return Status::OK();
      },
      result);
  for (size_t i = 0; s.ok() && result->skipped_damage == 0 && i < held.size(); i++) {
    s = apply(held[i]);
  }
  return s;
}

// The planted kBugPointInTimeDropsRecordBeforeDamage: each record is
// applied once the next one reads whole, so a stop at a corrupt record
// never applies the one before it.
Status ReplayHoldingBackOneRecord(log::Reader* reader, WALRecoveryMode mode,
                                  const std::function<Status(const Slice&)>& apply,
                                  log::ReplayResult* result) {
  std::string held;
  bool holding = false;
  Status s = log::ReplayLog(
      reader, mode,
      [&](const Slice& record) {
        Status r = holding ? apply(held) : Status::OK();
        held.assign(record.data(), record.size());
        holding = true;
        return r;
      },
      result);
  if (s.ok() && holding && !result->stopped_at_corrupt_record) s = apply(held);
  return s;
}

}  // namespace

Status DBImpl::ReplayLogFile(uint64_t log_number, MemTable** mem, VersionEdit* edit,
                             SequenceNumber* max_sequence, std::vector<LogCut>* cuts, bool* stop) {
  const std::string path = LogFileName(dbname_, log_number);
  std::unique_ptr<SequentialFile> file;
  Status s = runtime_->InjectedFault("recovery.read_log");
  if (s.ok()) s = fs_->NewSequentialFile(path, FileOptionsFor(options_, "WAL recovery"), &file);
  if (!s.ok()) return s;
  log::Reader reader(std::move(file), log_number);
  const bool insert_data =
      log_number >= versions_->LogNumber() || log_number == versions_->PrevLogNumber();
  WriteBatch batch;
  auto apply = [&](const Slice& record) -> Status {
    mutex_->AssertHeld();  // held by the caller, as this function requires
    Status r = WriteBatchInternal::SetContents(&batch, record);
    if (!r.ok()) return r;
    if (*mem == nullptr) {
      *mem = NewMemTable();
      (*mem)->Ref();
    }
    r = ReplayBatch(batch, log_number, insert_data, *mem);
    if (!r.ok()) return r;
    const SequenceNumber last =
        WriteBatchInternal::Sequence(&batch) + WriteBatchInternal::Count(&batch) - 1;
    if (WriteBatchInternal::Count(&batch) > 0 && last > *max_sequence) *max_sequence = last;
    if ((*mem)->ApproximateMemoryUsage() > options_.write_buffer_size) {
      SHALE_PROBE(runtime_, "recovery.memtable_flushed_during_replay");
      r = WriteLevel0Table(*mem, edit);
      (*mem)->Unref();
      *mem = nullptr;
    }
    return r;
  };
  log::ReplayResult result;
  const WALRecoveryMode mode = ReplayModeWithPlantedBugs();
  if (HasBug(kBugSkipAnyDropsDamagedLog)) {
    s = ReplayWholeLogOrNothing(&reader, mode, apply, &result);
  } else if (HasBug(kBugPointInTimeDropsRecordBeforeDamage)) {
    s = ReplayHoldingBackOneRecord(&reader, mode, apply, &result);
  } else {
    s = log::ReplayLog(&reader, mode, apply, &result);
  }
  ProbeReplay(mode, insert_data, result);
  if (!s.ok()) return Status(s.IsCorruption() ? Status::Corruption(path, s.ToString()) : s);
  if (result.consistent_bytes.has_value() && !insert_data) {
    // Read only for its transaction markers: its writes, and writes logged
    // after the damage, are in tables already, while commit and rollback
    // markers past it are lost, so no prefix of the WAL matches the tables
    // (RocksDB refuses this too: "SST file is ahead of WALs"). Neither a
    // point-in-time stop nor a tolerated tail may hide it. The damage is
    // new: a log retired while the DB ran was synced whole, and one an
    // earlier Open replayed was cut back to what it replayed.
    SHALE_PROBE(runtime_, "recovery.damage_in_log_already_in_tables");
    return Status::Corruption(path,
                              "damage in a log whose writes are already in tables, "
                              "with later writes");
  }
  // Point in time: nothing after the damage.
  if (result.stopped_at_damage) *stop = true;
  if (insert_data && result.consistent_bytes.has_value()) {
    cuts->push_back(LogCut{log_number, *result.consistent_bytes});
  }
  return s;
}

Status DBImpl::CutLogsToReplayedPrefix(const std::vector<LogCut>& cuts,
                                       const std::vector<uint64_t>& dropped) {
  // The logs after the stop go first, durably: while the damage that
  // stopped replay is still there, a failed or interrupted cut leaves an
  // Open that stops at it again rather than one that replays them.
  for (uint64_t number : dropped) {
    Status s = fs_->DeleteFile(LogFileName(dbname_, number));
    if (!s.ok()) return s;
  }
  if (!dropped.empty()) {
    SHALE_PROBE(runtime_, "recovery.logs_after_stop_deleted");
    Status s = fs_->SyncDir(dbname_);
    if (!s.ok()) return s;
  }
  for (const LogCut& cut : cuts) {
    SHALE_PROBE(runtime_, "recovery.wal_cut_to_replayed_prefix");
    std::unique_ptr<WritableFile> file;
    Status s = fs_->ReopenWritableFile(LogFileName(dbname_, cut.log_number),
                                       FileOptionsFor(options_, "WAL recovery (log cut)"), &file);
    if (s.ok()) s = file->Truncate(cut.consistent_bytes);
    if (s.ok()) s = file->Sync();
    if (file != nullptr) s = FirstError(s, file->Close());
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status DBImpl::SyncReplayedLogs(const std::vector<uint64_t>& logs) {
  if (logs.empty()) return Status::OK();
  // The others are retired by Open's MANIFEST edit.
  // Recovered transactions that finished count as durable (this Open's
  // table and MANIFEST edit keep their outcome), so any first_unflushed_log will do.
  const uint64_t first_kept = txn_hooks_->MinLogWithPreparedSection(UINT64_MAX);
  for (uint64_t number : logs) {
    if (number < first_kept) continue;
    std::unique_ptr<WritableFile> file;
    Status s = fs_->ReopenWritableFile(LogFileName(dbname_, number),
                                       FileOptionsFor(options_, "WAL recovery (sync)"), &file);
    if (s.ok()) s = file->Sync();
    if (s.ok()) SHALE_COUNT(&stats_, wal_syncs, 1);
    if (file != nullptr) s = FirstError(s, file->Close());
    if (!s.ok()) return s;
  }
  return Status::OK();
}

namespace {
// Finds a batch's transaction markers and their positions.
class MarkerScan final : public WriteBatch::Handler {
 public:
  struct Marker {
    bool commit;  // else rollback
    std::string xid;
    uint32_t position;
  };
  void Put(const Slice&, const Slice&) override { position_++; }
  void Delete(const Slice&) override { position_++; }
  void MarkBeginPrepare() override {
    begin_prepare_ = true;
    position_++;
  }
  void MarkEndPrepare(const Slice& xid) override {
    end_xid_ = xid.ToString();
    has_end_ = true;
    position_++;
  }
  void MarkCommit(const Slice& xid) override {
    markers_.push_back({true, xid.ToString(), position_++});
  }
  void MarkRollback(const Slice& xid) override {
    markers_.push_back({false, xid.ToString(), position_++});
  }
  bool begin_prepare_ = false;
  bool has_end_ = false;
  std::string end_xid_;
  std::vector<Marker> markers_;

 private:
  uint32_t position_ = 0;
};
}  // namespace

Status DBImpl::ReplayBatch(const WriteBatch& batch, uint64_t log_number, bool insert_data,
                           MemTable* mem) {
  MarkerScan scan;
  Status s = batch.Iterate(&scan);
  if (!s.ok()) return s;
  const bool has_markers = scan.begin_prepare_ || scan.has_end_ || !scan.markers_.empty();
  if (has_markers && txn_hooks_ == nullptr) {
    return Status::NotSupported("the WAL holds transactions: open this DB as a TransactionDB");
  }
  const SequenceNumber first = WriteBatchInternal::Sequence(&batch);
  if (scan.begin_prepare_) {
    if (!scan.has_end_) return Status::Corruption("WAL: prepared section without its end marker");
    if (HasBug(kBugRecoveryCommitsPrepared)) {
      // The planted bug: the section replays as committed data, and the
      // transaction layer never hears that it was prepared.
      if (insert_data) s = WriteBatchInternal::InsertInto(&batch, mem);
      return s;
    }
    const SequenceNumber last = first + WriteBatchInternal::Count(&batch) - 1;
    txn_hooks_->RecoveredPrepared(scan.end_xid_, batch, first, last, log_number);
    if (insert_data && txn_hooks_->PreparedDataInMemtable()) {
      s = WriteBatchInternal::InsertInto(&batch, mem);
    }
    return s;
  }
  if (insert_data) s = WriteBatchInternal::InsertInto(&batch, mem);
  if (!s.ok()) return s;
  for (const MarkerScan::Marker& m : scan.markers_) {
    if (m.commit) {
      txn_hooks_->RecoveredCommit(m.xid, first + m.position);
    } else {
      txn_hooks_->RecoveredRollback(m.xid, first + m.position);
    }
  }
  return s;
}

}  // namespace shale
