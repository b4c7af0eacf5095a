// TransactionDBImpl: shale::TransactionDB over a DBImpl (see
// shale/transaction_db.h for the contract, db/txn_hooks.h for the seams).
//
// What goes to the WAL and memtable per policy (each record, markers
// included, takes one sequence number; markers in write_batch_internal.h):
//
//   write-committed
//     Prepare   [BeginPrepare, data..., EndPrepare(name)]   WAL only
//     Commit    [data..., Commit(name)]                      memtable, publishes
//               (without Prepare: [data...], a plain write)
//     Rollback  [Rollback(name)] WAL only (only if prepared)
//   WritePrepared (CommitMap decides visibility)
//     Prepare   [BeginPrepare, data..., EndPrepare(name)]    memtable, prepared range
//     Commit    [Commit(name)]: marks the prepared range committed at the
//               marker's sequence before publishing it
//     Rollback  [old values of the written keys..., Rollback(name)], then the
//               prepared range counts as committed (shadowed by the old values)
//     Commit without Prepare, and DB::Write: the data batch as one write;
//     with two_write_queues it is written unpublished and prepared, then an
//     empty commit [Commit("")] goes through the second queue, which alone
//     publishes (RocksDB's WritePrepared with two write queues).
//
// A prepared transaction's WAL is kept until the memtable holding its
// commit or rollback marker is flushed (MinLogWithPreparedSection): until
// then a crash, or damage to the marker's WAL, may take the marker, and
// recovery must find the section to know that its data (WritePrepared:
// already in tables) is uncommitted.
//
// Locking: mu_ guards the registry below; it nests inside the DB mutex (the
// hooks run under it) and nothing is called with mu_ held that takes
// another lock, except CommitMap's and LockManager's own (leaves).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/txn_hooks.h"
#include "shale/transaction_db.h"
#include "txn/commit_map.h"
#include "txn/lock_manager.h"

namespace shale {

class TransactionImpl;

// A transaction's state, shared between its handle and the DB (which adopts
// it when a prepared transaction's handle is destroyed, and holds the
// recovered ones).
struct TxnState {
  uint64_t id = 0;
  std::string name;
  WriteOptions write_options;
  TransactionOptions options;
  Transaction::State state = Transaction::State::kStarted;
  WriteBatch data;                                           // the writes, in order
  std::map<std::string, std::optional<std::string>> writes;  // latest per key; nullopt = deleted
  std::set<std::string> locked;                              // keys this txn holds
  SequenceNumber prepare_first = 0;                          // WritePrepared, once prepared
  SequenceNumber commit_sequence = 0;  // once committed or restored (GetCommitSequence)
  SequenceNumber log_sequence = 0;     // with commit_sequence (GetLogSequence)
};

class TransactionDBImpl final : public TransactionDB, public TxnStateHooks {
 public:
  TransactionDBImpl(const Options& sanitized, const TransactionDBOptions& txn_options,
                    const std::string& name);
  ~TransactionDBImpl() override;

  [[nodiscard]] Status OpenImpl();

  // ---- DB
  Status Close() override;
  Status Write(const WriteOptions& options, WriteBatch* batch) override;
  Status Get(const ReadOptions& options, const Slice& key, std::string* value) override;
  Iterator* NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override { return db_->GetSnapshot(); }
  void ReleaseSnapshot(const Snapshot* snapshot) override { db_->ReleaseSnapshot(snapshot); }
  Status Flush(const FlushOptions& options) override { return db_->Flush(options); }
  Status CompactRange(const CompactRangeOptions& options, const Slice* begin,
                      const Slice* end) override {
    return db_->CompactRange(options, begin, end);
  }
  Status SyncWAL() override { return db_->SyncWAL(); }
  Status FlushWAL(bool sync) override { return db_->FlushWAL(sync); }
  bool GetProperty(const Slice& property, std::string* value) override {
    return db_->GetProperty(property, value);
  }
  DBStats GetStats() override { return db_->GetStats(); }
  uint64_t GetLatestSequenceNumber() const override { return db_->GetLatestSequenceNumber(); }

  // ---- TransactionDB
  std::unique_ptr<Transaction> BeginTransaction(const WriteOptions& write_options,
                                                const TransactionOptions& txn_options) override;
  Transaction* GetTransactionByName(const std::string& name) override;
  std::vector<std::string> GetPreparedTransactionNames() override;

  // ---- TxnStateHooks
  SequenceNumber CommitSequence(SequenceNumber seq, SequenceNumber bound,
                                uint64_t first_unflushed_log) const override;
  uint64_t MinLogWithPreparedSection(uint64_t first_unflushed_log) const override;
  bool PreparedDataInMemtable() const override { return write_prepared_; }
  void RecoveredPrepared(const std::string& xid, const WriteBatch& section, SequenceNumber first,
                         SequenceNumber last, uint64_t log_number) override;
  void RecoveredCommit(const std::string& xid, SequenceNumber commit_seq) override;
  void RecoveredRollback(const std::string& xid, SequenceNumber rollback_seq) override;

  // ---- for TransactionImpl
  [[nodiscard]] Status LockKey(TxnState* txn, const std::string& key);
  // Whether Options::planted_bugs holds bug (one kBug* bit).
  bool planted_bug(uint64_t bug) const { return (planted_bugs_ & bug) != 0; }
  void UnlockAll(TxnState* txn);
  [[nodiscard]] Status RegisterName(const std::string& name, TransactionImpl* txn);
  void ForgetName(const std::string& name);
  // Reads at options.snapshot or the latest committed state.
  [[nodiscard]] Status ReadCommitted(const ReadOptions& options, const Slice& key,
                                     std::string* value);
  // Busy if key's newest committed version became visible after snapshot
  // (RocksDB's ValidateSnapshot). REQUIRES: the caller holds key's lock.
  [[nodiscard]] Status ValidateSnapshot(const std::string& key, SequenceNumber snapshot);
  [[nodiscard]] Status PrepareTxn(TxnState* txn);
  [[nodiscard]] Status CommitTxn(TxnState* txn);
  [[nodiscard]] Status RollbackTxn(TxnState* txn);
  // A destroyed handle's prepared transaction stays here until it finishes.
  void Adopt(std::shared_ptr<TxnState> state);
  size_t max_write_keys() const { return txn_options_.max_write_keys_per_transaction; }

 private:
  class WPReadCallback;

  // What a write that may finish a transaction reports back.
  struct WriteOutcome {
    SequenceNumber visible_at = 0;  // the sequence at which it became visible
    SequenceNumber logged_at = 0;   // the sequence of the WAL record recovery replays as it
    uint64_t log_number = 0;        // the WAL it went to
  };
  // NoteFinished's marker_log for a transaction whose end needs no WAL
  // (recovered, or its prepared section never became durable).
  static constexpr uint64_t kFinishedDurably = UINT64_MAX;

  // One write of data that is committed as it lands (a plain write, a
  // commit without prepare, a rollback's old values). also_commit_first:
  // a prepared range that commits together with it (rollback), or 0.
  // *outcome (may be null): where and when it became visible.
  [[nodiscard]] Status WriteCommittedData(const WriteOptions& options, WriteBatch* batch,
                                          SequenceNumber also_commit_first, WriteOutcome* outcome);
  // WritePrepared: the commit marker (the second queue's, with two queues);
  // *outcome (may be null) gets its sequence and WAL.
  [[nodiscard]] Status WriteCommitMarker(const WriteOptions& options, const std::string& xid,
                                         std::vector<SequenceNumber> commit_firsts,
                                         WriteOutcome* outcome);
  // write-committed: a batch ending in a commit or rollback marker
  // (disable_memtable: the marker alone, WAL only, unpublished).
  [[nodiscard]] Status WriteMarkerBatch(const WriteOptions& options, WriteBatch* batch,
                                        bool disable_memtable, WriteOutcome* outcome);
  // The old values of txn's keys, as a batch that restores them.
  [[nodiscard]] Status BuildRestoreBatch(const TxnState& txn, WriteBatch* restore);
  [[nodiscard]] Status LockBatchKeys(uint64_t txn_id, const WriteBatch& batch,
                                     std::vector<std::string>* locked);
  void NotePrepared(const TxnState& txn, uint64_t log_number);
  // The transaction's commit or rollback marker went to WAL marker_log
  // (kFinishedDurably: forget it now). Its prepared section's WAL stays
  // needed until marker_log's memtable is flushed.
  void NoteFinished(uint64_t txn_id, uint64_t marker_log);
  void PruneCommitMap();
  uint64_t LockTimeoutNs(const TxnState& txn) const;

  const TransactionDBOptions txn_options_;
  const bool write_prepared_;
  const bool two_queues_;
  const uint64_t planted_bugs_;  // Options::planted_bugs (planted_bug())
  std::unique_ptr<DBImpl> db_;
  Runtime* const runtime_;
  Clock* const clock_;
  LockManager locks_;
  std::unique_ptr<CommitMap> commit_map_;  // WritePrepared only
  std::atomic<uint64_t> next_txn_id_{1};

  std::unique_ptr<Mutex> mu_;
  std::map<std::string, TransactionImpl*> names_ ABSL_GUARDED_BY(mu_);  // live named transactions
  struct PreparedSection {
    uint64_t log_number;  // the WAL holding the section
    std::string name;
    uint64_t finished_in_log;  // the WAL of its commit/rollback marker; 0 while prepared
  };
  // By txn id, until finished durably. MinLogWithPreparedSection
  // drops the durably finished ones (hence mutable); at most the prepared
  // transactions plus those finished in WALs not yet flushed.
  mutable std::map<uint64_t, PreparedSection> prepared_ ABSL_GUARDED_BY(mu_);
  // Prepared transactions without a user handle (recovered or
  // adopted), by name.
  std::map<std::string, std::unique_ptr<TransactionImpl>> orphans_ ABSL_GUARDED_BY(mu_);
  // Recovery only (Open is single-threaded): sections seen in the WAL, by name.
  std::map<std::string, std::shared_ptr<TxnState>> recovering_;
};

}  // namespace shale
