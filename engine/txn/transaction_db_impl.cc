#include "txn/transaction_db_impl.h"

#include <algorithm>
#include <cstdint>

#include "db/write_batch_internal.h"
#include "txn/transaction_impl.h"
#include "util/mutexlock.h"
#include "util/probes.h"

namespace shale {

namespace {

// Collects the keys of a batch, sorted (so plain writes lock in one order).
class KeyCollector final : public WriteBatch::Handler {
 public:
  void Put(const Slice& key, const Slice&) override { keys.insert(key.ToString()); }
  void Delete(const Slice& key) override { keys.insert(key.ToString()); }
  std::set<std::string> keys;
};

// Rebuilds a transaction's writes from its prepared section.
class SectionReader final : public WriteBatch::Handler {
 public:
  explicit SectionReader(TxnState* txn) : txn_(txn) {}
  void Put(const Slice& key, const Slice& value) override {
    txn_->data.Put(key, value);
    txn_->writes[key.ToString()] = value.ToString();
  }
  void Delete(const Slice& key) override {
    txn_->data.Delete(key);
    txn_->writes[key.ToString()] = std::nullopt;
  }

 private:
  TxnState* const txn_;
};

uint64_t MillisToNanos(int64_t ms) {
  if (ms <= 0) return 0;
  const uint64_t max_ms = kMaxLockTimeoutNs / 1000000;
  return std::min<uint64_t>(static_cast<uint64_t>(ms), max_ms) * 1000000;
}

LockManagerOptions LockOptionsOf(const TransactionDBOptions& o, uint64_t planted_bugs) {
  LockManagerOptions lo;
  lo.max_num_locks = o.max_num_locks;
  lo.deadlock_detect_depth = std::max(0, o.deadlock_detect_depth);
  lo.planted_bugs = planted_bugs;
  return lo;
}

}  // namespace

// A WritePrepared reader at one snapshot.
class TransactionDBImpl::WPReadCallback final : public ReadCallback {
 public:
  WPReadCallback(const CommitMap* map, SequenceNumber snapshot) : map_(map), snapshot_(snapshot) {}
  bool IsVisible(SequenceNumber seq) const override { return map_->IsVisible(seq, snapshot_); }

 private:
  const CommitMap* const map_;
  const SequenceNumber snapshot_;
};

Status TransactionDB::Open(const Options& options, const TransactionDBOptions& txn_options,
                           const std::string& name, std::unique_ptr<TransactionDB>* db) {
  db->reset();
  Status s = ValidateOptions(options);
  if (!s.ok()) return s;
  const bool wp = txn_options.write_policy == TxnWritePolicy::kWritePrepared;
  if (options.unordered_write && !wp) {
    return Status::NotSupported("unordered_write needs the WritePrepared policy");
  }
  if (options.unordered_write && !options.two_write_queues) {
    return Status::InvalidArgument("unordered_write with WritePrepared needs two_write_queues");
  }
  auto impl = std::make_unique<TransactionDBImpl>(SanitizeOptions(options), txn_options, name);
  s = impl->OpenImpl();
  if (s.ok()) *db = std::move(impl);
  return s;
}

TransactionDBImpl::TransactionDBImpl(const Options& sanitized,
                                     const TransactionDBOptions& txn_options,
                                     const std::string& name)
    : txn_options_(txn_options),
      write_prepared_(txn_options.write_policy == TxnWritePolicy::kWritePrepared),
      two_queues_(sanitized.two_write_queues),
      planted_bugs_(sanitized.planted_bugs),
      db_(std::make_unique<DBImpl>(sanitized, name)),
      runtime_(sanitized.env->runtime()),
      clock_(sanitized.env->clock()),
      locks_(runtime_, clock_, LockOptionsOf(txn_options, sanitized.planted_bugs)),
      mu_(runtime_->NewMutex()) {
  if (write_prepared_) commit_map_ = std::make_unique<CommitMap>(runtime_);
}

TransactionDBImpl::~TransactionDBImpl() {
  Close().PermitUncheckedError();
  orphans_.clear();
  db_.reset();
}

Status TransactionDBImpl::OpenImpl() {
  db_->SetTxnStateHooks(this);
  Status s = db_->OpenImpl();
  if (!s.ok()) return s;
  // Recovered prepared transactions come back holding their locks.
  for (auto& [name, state] : recovering_) {
    SHALE_PROBE(runtime_, "recovery.prepared_txn_recovered");
    for (const auto& [key, value] : state->writes) {
      s = locks_.Lock(state->id, key, 0, false);
      if (!s.ok()) return s;
      state->locked.insert(key);
    }
    auto handle = std::make_unique<TransactionImpl>(this, state, /*owned_by_db=*/true);
    MutexLock l(mu_.get());
    names_[name] = handle.get();
    orphans_[name] = std::move(handle);
  }
  recovering_.clear();
  return Status::OK();
}

Status TransactionDBImpl::Close() { return db_->Close(); }

// ---------------------------------------------------------------- plain DB calls

Status TransactionDBImpl::LockBatchKeys(uint64_t txn_id, const WriteBatch& batch,
                                        std::vector<std::string>* locked) {
  if (txn_options_.skip_concurrency_control) return Status::OK();
  KeyCollector keys;
  Status s = batch.Iterate(&keys);
  const uint64_t timeout_ns = MillisToNanos(txn_options_.default_lock_timeout_ms);
  for (auto it = keys.keys.begin(); s.ok() && it != keys.keys.end(); ++it) {
    s = locks_.Lock(txn_id, *it, timeout_ns, /*deadlock_detect=*/false);
    if (s.ok()) locked->push_back(*it);
  }
  return s;
}

Status TransactionDBImpl::Write(const WriteOptions& options, WriteBatch* batch) {
  if (batch == nullptr) return Status::InvalidArgument("Write: batch is null");
  const uint64_t id = next_txn_id_.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::string> locked;
  Status s = LockBatchKeys(id, *batch, &locked);
  if (s.ok()) {
    s = write_prepared_ ? WriteCommittedData(options, batch, 0, nullptr)
                        : db_->Write(options, batch);
  }
  locks_.UnlockAll(id, locked);
  if (s.ok() && write_prepared_) PruneCommitMap();
  return s;
}

Status TransactionDBImpl::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  return ReadCommitted(options, key, value);
}

Status TransactionDBImpl::ReadCommitted(const ReadOptions& options, const Slice& key,
                                        std::string* value) {
  if (!write_prepared_) return db_->Get(options, key, value);
  // A WritePrepared reader always holds a snapshot: the commit map may
  // forget a commit only once every snapshot is past it.
  ReadOptions ro = options;
  const Snapshot* own = nullptr;
  if (ro.snapshot == nullptr) ro.snapshot = own = db_->GetSnapshot();
  const WPReadCallback callback(commit_map_.get(), ro.snapshot->GetSequenceNumber());
  Status s = db_->GetWithCallback(ro, key, value, &callback);
  if (own != nullptr) db_->ReleaseSnapshot(own);
  return s;
}

Status TransactionDBImpl::ValidateSnapshot(const std::string& key, SequenceNumber snapshot) {
  SequenceNumber latest = 0;
  bool found = false;
  std::unique_ptr<WPReadCallback> committed;  // WritePrepared: skip prepared entries
  if (write_prepared_)
    committed = std::make_unique<WPReadCallback>(commit_map_.get(), kMaxSequenceNumber);
  Status s = db_->GetLatestSequenceForKey(key, committed.get(), &latest, &found);
  if (!s.ok() || !found) return s;
  const SequenceNumber visible_at =
      write_prepared_ ? commit_map_->CommitSequence(latest, kMaxSequenceNumber, CommitMap::kAnyLog)
                      : latest;
  if (visible_at > snapshot) {
    return Status::Busy("write conflict: the key changed after the snapshot");
  }
  return Status::OK();
}

Iterator* TransactionDBImpl::NewIterator(const ReadOptions& options) {
  if (!write_prepared_) return db_->NewIterator(options);
  ReadOptions ro = options;
  const Snapshot* own = nullptr;
  if (ro.snapshot == nullptr) ro.snapshot = own = db_->GetSnapshot();
  auto* callback = new WPReadCallback(commit_map_.get(), ro.snapshot->GetSequenceNumber());
  Iterator* it = db_->NewIteratorWithCallback(ro, callback);
  DBImpl* db = db_.get();
  it->RegisterCleanup([db, own, callback]() {
    delete callback;
    if (own != nullptr) db->ReleaseSnapshot(own);
  });
  return it;
}

// ---------------------------------------------------------------- writes

Status TransactionDBImpl::WriteCommittedData(const WriteOptions& options, WriteBatch* batch,
                                             SequenceNumber also_commit_first,
                                             WriteOutcome* outcome) {
  if (!two_queues_ || planted_bug(kBugWritePreparedPublishesUnprepared)) {
    // One queue publishes after the insert: the batch is visible whole.
    WriteHooks hooks;
    uint64_t log_number = 0;
    hooks.on_allocated = [&log_number](SequenceNumber, SequenceNumber, uint64_t log) {
      log_number = log;
    };
    if (also_commit_first != 0) {
      hooks.before_publish = [this, also_commit_first, &log_number](SequenceNumber,
                                                                    SequenceNumber last) {
        commit_map_->AddCommitted(also_commit_first, last, log_number);
      };
    }
    Status s = db_->WriteWithHooks(options, batch, &hooks);
    if (s.ok() && outcome != nullptr) {
      outcome->visible_at = outcome->logged_at = WriteBatchInternal::Sequence(batch);
      outcome->log_number = log_number;
    }
    return s;
  }
  // Two queues: written unpublished and prepared, then committed (and
  // published) by the second queue.
  SequenceNumber first = 0;
  WriteHooks hooks;
  hooks.publish = false;
  hooks.on_allocated = [this, &first](SequenceNumber f, SequenceNumber l, uint64_t) {
    first = f;
    commit_map_->AddPrepared(f, l);
  };
  Status s = db_->WriteWithHooks(options, batch, &hooks);
  if (!s.ok()) {
    if (first != 0) commit_map_->RemovePrepared(first);
    return s;
  }
  std::vector<SequenceNumber> firsts;
  if (first != 0) firsts.push_back(first);
  if (also_commit_first != 0) firsts.push_back(also_commit_first);
  if (firsts.empty()) return s;
  s = WriteCommitMarker(options, "", std::move(firsts), outcome);
  // Recovery takes the data as committed where it was logged, marker or not.
  if (s.ok() && outcome != nullptr) outcome->logged_at = WriteBatchInternal::Sequence(batch);
  return s;
}

Status TransactionDBImpl::WriteCommitMarker(const WriteOptions& options, const std::string& xid,
                                            std::vector<SequenceNumber> commit_firsts,
                                            WriteOutcome* outcome) {
  WriteBatch marker;
  WriteBatchInternal::AppendMarker(&marker, WriteBatchInternal::kTagCommit, xid);
  WriteHooks hooks;
  hooks.disable_memtable = two_queues_;
  uint64_t log_number = 0;
  hooks.on_allocated = [&log_number](SequenceNumber, SequenceNumber, uint64_t log) {
    log_number = log;
  };
  hooks.before_publish = [this, &commit_firsts, &log_number](SequenceNumber commit_seq,
                                                             SequenceNumber) {
    for (SequenceNumber first : commit_firsts) {
      commit_map_->AddCommitted(first, commit_seq, log_number);
    }
  };
  WriteOptions wo = options;
  wo.disable_wal = false;  // a commit marker is a WAL record
  Status s = db_->WriteWithHooks(wo, &marker, &hooks);
  if (s.ok() && outcome != nullptr) {
    outcome->visible_at = outcome->logged_at = WriteBatchInternal::Sequence(&marker);
    outcome->log_number = log_number;
  }
  return s;
}

Status TransactionDBImpl::PrepareTxn(TxnState* txn) {
  WriteBatch section;
  WriteBatchInternal::MarkBeginPrepare(&section);
  section.Append(txn->data);
  WriteBatchInternal::AppendMarker(&section, WriteBatchInternal::kTagEndPrepare, txn->name);
  bool registered = false;
  WriteHooks hooks;
  hooks.disable_memtable = !write_prepared_;
  hooks.publish = write_prepared_ && !two_queues_;
  hooks.on_allocated = [this, txn, &registered](SequenceNumber f, SequenceNumber l, uint64_t log) {
    txn->prepare_first = f;
    if (write_prepared_) commit_map_->AddPrepared(f, l);
    NotePrepared(*txn, log);
    registered = true;
  };
  WriteOptions wo = txn->write_options;
  wo.disable_wal = false;  // a prepared section must reach the WAL
  // Planted bug: an unsynced section stays out of the WAL (WritePrepared
  // still inserts its data; WriteCommitted writes nothing until Commit).
  if (planted_bug(kBugUnsyncedPrepareSkipsWal) && !wo.sync) {
    if (!write_prepared_) {
      NotePrepared(*txn, db_->LiveLogNumber());
      return Status::OK();
    }
    wo.disable_wal = true;
  }
  Status s = db_->WriteWithHooks(wo, &section, &hooks);
  if (!s.ok() && registered) {
    if (write_prepared_) commit_map_->RemovePrepared(txn->prepare_first);
    NoteFinished(txn->id, kFinishedDurably);
  }
  return s;
}

Status TransactionDBImpl::CommitTxn(TxnState* txn) {
  Status s;
  WriteOutcome outcome;
  const bool prepared = txn->state == Transaction::State::kPrepared;
  if (!prepared) {
    if (txn->data.Count() > 0 && write_prepared_) {
      s = WriteCommittedData(txn->write_options, &txn->data, 0, &outcome);
    } else if (txn->data.Count() > 0) {
      s = db_->Write(txn->write_options, &txn->data);
      outcome.visible_at = outcome.logged_at = WriteBatchInternal::Sequence(&txn->data);
    }
  } else if (write_prepared_) {
    s = WriteCommitMarker(txn->write_options, txn->name, {txn->prepare_first}, &outcome);
  } else {
    WriteBatch commit = txn->data;
    WriteBatchInternal::AppendMarker(&commit, WriteBatchInternal::kTagCommit, txn->name);
    WriteOptions wo = txn->write_options;
    wo.disable_wal = false;  // else a crash would bring the prepared section back
    s = WriteMarkerBatch(wo, &commit, /*disable_memtable=*/false, &outcome);
  }
  if (!s.ok()) return s;
  txn->commit_sequence = outcome.visible_at;
  txn->log_sequence = outcome.logged_at;
  txn->state = Transaction::State::kCommitted;
  if (prepared) NoteFinished(txn->id, outcome.log_number);
  UnlockAll(txn);
  if (!txn->name.empty()) ForgetName(txn->name);
  if (write_prepared_) PruneCommitMap();
  return s;
}

Status TransactionDBImpl::WriteMarkerBatch(const WriteOptions& options, WriteBatch* batch,
                                           bool disable_memtable, WriteOutcome* outcome) {
  WriteHooks hooks;
  hooks.disable_memtable = disable_memtable;
  hooks.publish = !disable_memtable;
  hooks.on_allocated = [outcome](SequenceNumber, SequenceNumber, uint64_t log) {
    outcome->log_number = log;
  };
  Status s = db_->WriteWithHooks(options, batch, &hooks);
  if (s.ok()) outcome->visible_at = outcome->logged_at = WriteBatchInternal::Sequence(batch);
  return s;
}

Status TransactionDBImpl::BuildRestoreBatch(const TxnState& txn, WriteBatch* restore) {
  for (const auto& [key, value] : txn.writes) {
    std::string old;
    Status s = ReadCommitted(ReadOptions(), key, &old);
    if (s.ok()) {
      restore->Put(key, old);
    } else if (s.IsNotFound()) {
      restore->Delete(key);
    } else {
      return s;
    }
  }
  return Status::OK();
}

Status TransactionDBImpl::RollbackTxn(TxnState* txn) {
  Status s;
  WriteOutcome outcome;
  const bool prepared = txn->state == Transaction::State::kPrepared;
  if (prepared) SHALE_PROBE(runtime_, "txn.prepared_rolled_back");
  WriteOptions wo = txn->write_options;
  wo.disable_wal = false;
  if (prepared && write_prepared_) {
    // The prepared data is in the memtable: shadow it with the old values,
    // and let the prepared range count as committed with them.
    // The planted bug writes no old values: the range still commits, so
    // the rolled-back data becomes visible.
    WriteBatch restore;
    if (!planted_bug(kBugRollbackKeepsData)) s = BuildRestoreBatch(*txn, &restore);
    WriteBatchInternal::AppendMarker(&restore, WriteBatchInternal::kTagRollback, txn->name);
    if (s.ok()) s = WriteCommittedData(wo, &restore, txn->prepare_first, &outcome);
  } else if (prepared && !planted_bug(kBugRollbackSkipsMarker)) {
    WriteBatch marker;
    WriteBatchInternal::AppendMarker(&marker, WriteBatchInternal::kTagRollback, txn->name);
    s = WriteMarkerBatch(wo, &marker, /*disable_memtable=*/true, &outcome);
  }
  if (!s.ok()) return s;
  if (prepared && write_prepared_) {
    txn->commit_sequence = outcome.visible_at;
    txn->log_sequence = outcome.logged_at;
  }
  txn->state = Transaction::State::kRolledBack;
  if (prepared) NoteFinished(txn->id, outcome.log_number);
  UnlockAll(txn);
  if (!txn->name.empty()) ForgetName(txn->name);
  if (prepared && write_prepared_) PruneCommitMap();
  return s;
}

// ---------------------------------------------------------------- transactions

std::unique_ptr<Transaction> TransactionDBImpl::BeginTransaction(
    const WriteOptions& write_options, const TransactionOptions& txn_options) {
  auto state = std::make_shared<TxnState>();
  state->id = next_txn_id_.fetch_add(1, std::memory_order_relaxed);
  state->write_options = write_options;
  state->options = txn_options;
  return std::make_unique<TransactionImpl>(this, std::move(state), /*owned_by_db=*/false);
}

uint64_t TransactionDBImpl::LockTimeoutNs(const TxnState& txn) const {
  const int64_t ms = txn.options.lock_timeout_ms < 0 ? txn_options_.transaction_lock_timeout_ms
                                                     : txn.options.lock_timeout_ms;
  return MillisToNanos(ms);
}

Status TransactionDBImpl::LockKey(TxnState* txn, const std::string& key) {
  if (txn_options_.skip_concurrency_control || txn->locked.count(key) > 0) return Status::OK();
  Status s = locks_.Lock(txn->id, key, LockTimeoutNs(*txn), txn->options.deadlock_detect);
  if (s.ok()) txn->locked.insert(key);
  return s;
}

void TransactionDBImpl::UnlockAll(TxnState* txn) {
  if (txn->locked.empty()) return;
  locks_.UnlockAll(txn->id, std::vector<std::string>(txn->locked.begin(), txn->locked.end()));
  txn->locked.clear();
}

Status TransactionDBImpl::RegisterName(const std::string& name, TransactionImpl* txn) {
  MutexLock l(mu_.get());
  if (!names_.emplace(name, txn).second) {
    return Status::InvalidArgument("SetName: a live transaction has this name", name);
  }
  return Status::OK();
}

void TransactionDBImpl::ForgetName(const std::string& name) {
  MutexLock l(mu_.get());
  names_.erase(name);
}

void TransactionDBImpl::Adopt(std::shared_ptr<TxnState> state) {
  auto handle = std::make_unique<TransactionImpl>(this, state, /*owned_by_db=*/true);
  MutexLock l(mu_.get());
  names_[state->name] = handle.get();
  orphans_[state->name] = std::move(handle);
}

Transaction* TransactionDBImpl::GetTransactionByName(const std::string& name) {
  MutexLock l(mu_.get());
  auto it = names_.find(name);
  return it == names_.end() ? nullptr : it->second;
}

std::vector<std::string> TransactionDBImpl::GetPreparedTransactionNames() {
  MutexLock l(mu_.get());
  std::vector<std::string> names;
  for (const auto& [id, section] : prepared_) {
    // Planted bug: a finished section whose marker's log is live is listed.
    if (section.finished_in_log == 0 || planted_bug(kBugPreparedNamesListFinished)) {
      names.push_back(section.name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

void TransactionDBImpl::NotePrepared(const TxnState& txn, uint64_t log_number) {
  MutexLock l(mu_.get());
  prepared_[txn.id] = PreparedSection{log_number, txn.name, 0};
}

void TransactionDBImpl::NoteFinished(uint64_t txn_id, uint64_t marker_log) {
  MutexLock l(mu_.get());
  auto it = prepared_.find(txn_id);
  if (it == prepared_.end()) return;
  // Planted bug: the DB mutex under mu_, the reverse of the flush
  // thread's order (MinLogWithPreparedSection under the DB mutex).
  const bool retire_if_closed = planted_bug(kBugFinishLocksDbUnderTxnMutex) &&
                                marker_log != kFinishedDurably && marker_log < db_->LiveLogNumber();
  if (marker_log == kFinishedDurably || planted_bug(kBugRetireSectionWalAtFinish) ||
      retire_if_closed) {
    prepared_.erase(it);
  } else {
    it->second.finished_in_log = marker_log;
  }
}

void TransactionDBImpl::PruneCommitMap() {
  commit_map_->Prune(db_->OldestSnapshotOrLast(), db_->FirstUnflushedLogNumber());
}

// ---------------------------------------------------------------- hooks

SequenceNumber TransactionDBImpl::CommitSequence(SequenceNumber seq, SequenceNumber bound,
                                                 uint64_t first_unflushed_log) const {
  if (!write_prepared_) return seq <= bound ? seq : kMaxSequenceNumber;
  return commit_map_->CommitSequence(seq, bound, first_unflushed_log);
}

uint64_t TransactionDBImpl::MinLogWithPreparedSection(uint64_t first_unflushed_log) const {
  MutexLock l(mu_.get());
  uint64_t min_log = UINT64_MAX;
  for (auto it = prepared_.begin(); it != prepared_.end();) {
    const PreparedSection& section = it->second;
    if (section.finished_in_log != 0 && section.finished_in_log < first_unflushed_log) {
      it = prepared_.erase(it);  // its marker's memtable is in a table
      continue;
    }
    min_log = std::min(min_log, section.log_number);
    ++it;
  }
  return min_log;
}

void TransactionDBImpl::RecoveredPrepared(const std::string& xid, const WriteBatch& section,
                                          SequenceNumber first, SequenceNumber last,
                                          uint64_t log_number) {
  auto state = std::make_shared<TxnState>();
  state->id = next_txn_id_.fetch_add(1, std::memory_order_relaxed);
  state->name = xid;
  state->state = Transaction::State::kPrepared;
  state->prepare_first = first;
  SectionReader reader(state.get());
  section.Iterate(&reader).PermitUncheckedError();  // ReplayBatch parsed it already
  auto old = recovering_.find(xid);
  if (old != recovering_.end()) NoteFinished(old->second->id, kFinishedDurably);
  recovering_[xid] = state;
  NotePrepared(*state, log_number);
  if (write_prepared_) commit_map_->AddPrepared(first, last);
}

void TransactionDBImpl::RecoveredCommit(const std::string& xid, SequenceNumber commit_seq) {
  auto it = recovering_.find(xid);
  if (xid.empty() || it == recovering_.end()) return;  // its section was in a retired WAL
  SHALE_PROBE(runtime_, "recovery.prepared_txn_finished_by_marker");
  if (write_prepared_) {
    commit_map_->AddCommitted(it->second->prepare_first, commit_seq, CommitMap::kDurable);
  }
  // Recovery's own table and MANIFEST edit make the outcome durable.
  NoteFinished(it->second->id, kFinishedDurably);
  recovering_.erase(it);
}

void TransactionDBImpl::RecoveredRollback(const std::string& xid, SequenceNumber rollback_seq) {
  // WritePrepared: the rollback's batch restored the old values, so the
  // prepared range counts as committed with it.
  RecoveredCommit(xid, rollback_seq);
}

}  // namespace shale
