// DBImpl's compaction thread, the compaction merge loop and CompactRange.
//
// Which entries a compaction drops. Live snapshots s1 < s2 < ... < sn split
// sequence numbers into stripes: stripe(seq) = the first snapshot >= seq
// (or "latest" past sn). A reader at any snapshot sees, per user key, the
// newest entry of the stripes at or below it, so within one stripe only the
// newest entry of a key can ever be read. The merge therefore keeps, per
// user key, the newest entry of each stripe and drops the rest. A deletion
// in the oldest stripe is dropped too when no deeper level can hold the key
// (nothing remains for it to hide); older entries of that key in the same
// stripe are dropped with it. With transactions (db/txn_hooks.h) the
// stripe comes from the sequence at which the entry became visible.
#include <algorithm>

#include "db/db_impl.h"
#include "db/table_file_builder.h"
#include "util/file_options.h"
#include "util/mutexlock.h"
#include "version/filename.h"

namespace shale {

namespace {
constexpr int kYieldEveryEntries = 256;
}  // namespace

struct DBImpl::CompactionState {
  explicit CompactionState(Compaction* c) : compaction(c) {}
  Compaction* const compaction;
  std::vector<SequenceNumber> snapshots;  // ascending
  // The last published sequence when the job started: with transactions, an
  // entry committed later is treated as uncommitted (RocksDB's job snapshot).
  SequenceNumber job_snapshot = 0;
  // The first WAL whose memtable was not yet flushed when the job started:
  // a commit whose marker is in it (or a newer one) is not final yet
  // (TxnStateHooks::CommitSequence).
  uint64_t first_unflushed_log = 0;
  std::unique_ptr<TableFileBuilder> builder;
  std::vector<FileMetaData> outputs;
  uint64_t bytes_written = 0;
};

bool DBImpl::CompactionWanted() const {
  return bg_error_.ok() && !options_.disable_auto_compactions && versions_->NeedsCompaction();
}

void DBImpl::CompactionThreadMain() {
  MutexLock l(mutex_.get());
  while (true) {
    while (!shutting_down_.load(std::memory_order_acquire) && !CompactionWanted()) {
      bg_cv_->Wait();
    }
    if (shutting_down_.load(std::memory_order_acquire)) break;
    Compaction* c = versions_->PickCompaction();
    if (c == nullptr) {
      bg_cv_->Wait();  // candidates are busy: wait for a job to finish
      continue;
    }
    Status s = RunCompaction(c);
    if (!s.ok()) RecordBackgroundError(s);
  }
}

Status DBImpl::RunCompaction(Compaction* c) {
  mutex_->AssertHeld();
  compactions_running_++;
  Status s;
  if (!c->is_manual() && c->IsTrivialMove()) {
    SHALE_PROBE(runtime_, "compaction.trivial_move");
    const FileMetaData* f = c->input(0, 0);
    c->edit()->RemoveFile(c->level(), f->number);
    c->edit()->AddFile(c->output_level(), *f);
    s = InstallCompactionEdit(c);
  } else {
    CompactionState state(c);
    // (The planted bug forgets the snapshots: only the newest version stays.)
    if (!HasBug(kBugCompactionIgnoresSnapshots)) state.snapshots = snapshots_.Sequences();
    state.job_snapshot = versions_->LastSequence();
    state.first_unflushed_log = versions_->LogNumber();
    s = DoCompactionWork(&state);
    if (s.ok()) s = InstallCompactionResults(&state);
    for (const FileMetaData& out : state.outputs) pending_outputs_.erase(out.number);
    if (state.builder != nullptr) pending_outputs_.erase(state.builder->meta().number);
    if (s.ok()) {
      SHALE_COUNT(&stats_, compaction_bytes_read, c->TotalInputBytes());
      SHALE_COUNT(&stats_, compaction_bytes_written, state.bytes_written);
    }
  }
  c->ReleaseInputs();
  delete c;
  compactions_running_--;
  if (s.ok()) {
    SHALE_COUNT(&stats_, compactions, 1);
    DeleteObsoleteFiles();
  }
  bg_cv_->SignalAll();
  return s;
}

Status DBImpl::OpenCompactionOutput(CompactionState* state) {
  uint64_t number;
  {
    MutexLock l(mutex_.get());
    number = versions_->NewFileNumber();
    pending_outputs_.insert(number);
  }
  TableOptions table_options = table_options_;
  const bool bottommost = options_.bottommost_compression != kDisableCompressionOption &&
                          state->compaction->IsBottommostLevel();
  if (bottommost) table_options.compression = options_.bottommost_compression;
  state->builder = std::make_unique<TableFileBuilder>(
      table_options, fs_,
      FileOptionsFor(options_, "a table builder (compaction)",
                     options_.use_direct_io_for_flush_and_compaction),
      &stats_, options_.planted_bugs);
  const Status s = runtime_->InjectedFault("compaction.open_output");
  return s.ok() ? state->builder->Open(TableFileName(dbname_, number), number) : s;
}

Status DBImpl::FinishCompactionOutput(CompactionState* state, Iterator* input) {
  Status s = input->status();
  if (s.ok()) s = runtime_->InjectedFault("compaction.finish_output");
  if (s.ok()) s = state->builder->Finish();
  if (s.ok()) s = VerifyNewTable(state->builder->meta());
  if (s.ok()) {
    state->outputs.push_back(state->builder->meta());
    state->bytes_written += state->builder->meta().file_size;
  }
  state->builder->Abandon();
  if (s.ok()) {
    state->builder.reset();
  }
  runtime_->YieldPoint("compaction.after_output");
  return s;
}

Status DBImpl::DoCompactionWork(CompactionState* state) {
  mutex_->AssertHeld();
  Compaction* const c = state->compaction;
  const Comparator* ucmp = internal_comparator_.user_comparator();
  const std::vector<SequenceNumber>& snaps = state->snapshots;
  MutexUnlock unlock(mutex_.get());
  std::unique_ptr<Iterator> input(versions_->MakeInputIterator(c));
  input->SeekToFirst();
  Status s;
  std::string current_user_key;
  bool has_current = false;
  bool cut_at_next_key = false;
  size_t last_stripe = SIZE_MAX;
  int since_yield = 0;
  for (; s.ok() && input->Valid(); input->Next()) {
    if (shutting_down_.load(std::memory_order_acquire)) {
      s = Status::ShutdownInProgress("compaction stopped by Close");
      break;
    }
    if (++since_yield == kYieldEveryEntries) {
      since_yield = 0;
      runtime_->YieldPoint("compaction.next");
    }
    const Slice key = input->key();
    ParsedInternalKey ikey;
    if (!ParseInternalKey(key, &ikey)) {
      s = Status::Corruption("compaction input has a malformed key", key.ToHex());
      break;
    }
    const bool new_user_key = !has_current || ucmp->Compare(ikey.user_key, current_user_key) != 0;
    // ShouldStopBefore must see every key in order, dropped or not.
    const bool grandparent_cut = c->ShouldStopBefore(key);
    if (new_user_key) {
      current_user_key.assign(ikey.user_key.data(), ikey.user_key.size());
      has_current = true;
      last_stripe = SIZE_MAX;
      // Cut between user keys only: a key's versions stay in one file.
      if (state->builder != nullptr && (cut_at_next_key || grandparent_cut)) {
        s = FinishCompactionOutput(state, input.get());
        cut_at_next_key = false;
        if (!s.ok()) break;
      }
    }
    // With transactions an entry becomes visible at its commit, not at its
    // own sequence; one not yet visible to every reader is kept, and so is
    // the version under it.
    const SequenceNumber visible_at =
        txn_hooks_ == nullptr ? ikey.sequence
                              : txn_hooks_->CommitSequence(ikey.sequence, state->job_snapshot,
                                                           state->first_unflushed_log);
    bool drop = false;
    if (visible_at == kMaxSequenceNumber) {
      SHALE_PROBE(runtime_, "compaction.version_kept_uncommitted");
      last_stripe = SIZE_MAX;
    } else {
      const size_t stripe = static_cast<size_t>(
          std::lower_bound(snaps.begin(), snaps.end(), visible_at) - snaps.begin());
      drop = stripe == last_stripe;
      // A newer version of the key sits in a newer stripe: a snapshot
      // between the two still sees this one.
      const bool under_newer = last_stripe != SIZE_MAX;
      if (!drop && ikey.type == kTypeDeletion && stripe == 0 &&
          c->IsBaseLevelForKey(ikey.user_key)) {
        SHALE_PROBE(runtime_, "compaction.tombstone_dropped");
        drop = true;
      }
      if (!drop && under_newer) SHALE_PROBE(runtime_, "compaction.version_kept_for_snapshot");
      last_stripe = stripe;
    }
    if (drop) continue;
    if (state->builder == nullptr) {
      s = OpenCompactionOutput(state);
      if (!s.ok()) break;
    }
    state->builder->Add(key, input->value());
    if (state->builder->file_size_bytes() >= c->MaxOutputFileSize()) cut_at_next_key = true;
  }
  if (s.ok()) s = input->status();
  if (s.ok() && state->builder != nullptr) s = FinishCompactionOutput(state, input.get());
  if (!s.ok() && state->builder != nullptr) state->builder->Abandon();
  // Output names must be durable before the MANIFEST names them.
  if (s.ok() && !state->outputs.empty()) {
    s = fs_->SyncDir(dbname_);
    if (s.ok()) SHALE_COUNT(&stats_, dir_syncs, 1);
  }
  return s;
}

Status DBImpl::InstallCompactionResults(CompactionState* state) {
  mutex_->AssertHeld();
  Compaction* const c = state->compaction;
  c->AddInputDeletions(c->edit());
  for (const FileMetaData& out : state->outputs) c->edit()->AddFile(c->output_level(), out);
  return InstallCompactionEdit(c);
}

Status DBImpl::InstallCompactionEdit(Compaction* c) {
  mutex_->AssertHeld();
  runtime_->YieldPoint("compaction.before_install");
  const Status s = runtime_->InjectedFault("compaction.before_install");
  return s.ok() ? LogAndApply(c->edit()) : s;
}

Status DBImpl::CompactRange(const CompactRangeOptions& options, const Slice* begin,
                            const Slice* end) {
  // Memtable data is in the range too: flush it first, as RocksDB does.
  Status s = Flush(FlushOptions());
  if (!s.ok()) return s;
  MutexLock l(mutex_.get());
  if (closed_) return Status::ShutdownInProgress("DB is closing");
  manual_compactions_running_++;
  int max_level_with_files = -1;
  Version* current = versions_->current();
  for (int level = 0; level < current->NumLevels(); level++) {
    if (current->OverlapInLevel(level, begin, end)) max_level_with_files = level;
  }
  // Levels [0, last] are each compacted into the next. The last level is
  // never rewritten in place: an automatic compaction into it could then
  // write an overlapping range at the same time (only input files are
  // reserved, not output ranges); its tombstones were already dropped when
  // data was compacted into it.
  int last = options.bottommost_level_compaction ? max_level_with_files : max_level_with_files - 1;
  if (last > current->NumLevels() - 2) last = current->NumLevels() - 2;
  for (int level = 0; s.ok() && level <= last; level++) {
    s = CompactLevelRange(level, begin, end);
  }
  manual_compactions_running_--;
  bg_cv_->SignalAll();  // Close() waits for manual compactions
  return s;
}

Status DBImpl::CompactLevelRange(int level, const Slice* begin, const Slice* end) {
  mutex_->AssertHeld();
  InternalKey begin_key, end_key;
  if (begin != nullptr) begin_key = InternalKey(*begin, kMaxSequenceNumber, kValueTypeForSeek);
  if (end != nullptr) end_key = InternalKey(*end, 0, kTypeDeletion);
  while (true) {
    if (!bg_error_.ok()) return bg_error_;
    if (shutting_down_.load(std::memory_order_acquire) || closed_) {
      return Status::ShutdownInProgress();
    }
    bool busy = false;
    Compaction* c = versions_->CompactRange(level, begin != nullptr ? &begin_key : nullptr,
                                            end != nullptr ? &end_key : nullptr, &busy);
    if (c == nullptr) {
      if (!busy) return Status::OK();
      SHALE_PROBE(runtime_, "compaction.manual_waited_for_running");
      bg_cv_->Wait();
      continue;
    }
    Status s = RunCompaction(c);
    if (!s.ok()) RecordBackgroundError(s);
    return s;
  }
}

}  // namespace shale
