// TransactionDB: pessimistic transactions over the Shale engine, with
// RocksDB's two write policies.
//
//   write-committed  A transaction's writes stay in its own buffer until
//                    Commit, which writes them (with a commit marker) as one
//                    batch. Prepare writes the buffer to the WAL only.
//   WritePrepared    Prepare (or Commit without Prepare) writes the data into
//                    the memtable at once; a commit map (prepare sequence ->
//                    commit sequence) decides what each reader sees, so data
//                    becomes visible only at its commit. With unordered_write
//                    and two_write_queues, commits publish through the second
//                    queue and readers again get atomic reads and immutable
//                    snapshots.
//
// Concurrency control: every written key (Put, Delete) and every
// GetForUpdate key is locked exclusively until Commit or Rollback (strict
// two-phase locking: transactions that read through GetForUpdate are
// serializable). A lock wait ends in TimedOut after the lock timeout, or in
// Busy at once if deadlock detection finds that waiting would close a cycle.
// skip_concurrency_control (WritePrepared) takes no locks at all: the caller
// promises that concurrent writers never touch the same key.
//
// Recovery: a transaction that was prepared (its name set) but neither
// committed nor rolled back before a crash comes back after Open in the
// prepared state, holding its locks; GetTransactionByName finds it, and
// Commit or Rollback finishes it. Commit is durable per its WriteOptions
// (sync), exactly as a plain write.
//
// A DB written by a TransactionDB must be reopened as a TransactionDB with
// the same write policy (a plain DB refuses a WAL that holds transactions).
//
// Thread safety: TransactionDB is thread-safe. A Transaction is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shale/db.h"
#include "shale/options.h"
#include "shale/status.h"

namespace shale {

enum class TxnWritePolicy { kWriteCommitted, kWritePrepared };

struct TransactionDBOptions {
  TxnWritePolicy write_policy = TxnWritePolicy::kWriteCommitted;
  // Lock wait of a transaction's Put/Delete/GetForUpdate, in milliseconds
  // (TransactionOptions::lock_timeout_ms < 0 uses this); 0 fails at once.
  int64_t transaction_lock_timeout_ms = 1000;
  // Lock wait of TransactionDB::Put/Delete/Write outside a transaction.
  int64_t default_lock_timeout_ms = 1000;
  // No key locks (WritePrepared only, as in RocksDB): the caller guarantees
  // that no two concurrent writers touch the same key.
  bool skip_concurrency_control = false;
  // Limits: keys locked at once (Busy beyond it), the depth of the
  // deadlock search (a deeper wait chain counts as a deadlock), and the
  // keys one transaction may write (Busy beyond it).
  size_t max_num_locks = 1 << 20;
  int deadlock_detect_depth = 50;
  size_t max_write_keys_per_transaction = 1 << 20;
};

struct TransactionOptions {
  // Search for deadlocks on every lock wait (off by default, as in RocksDB).
  bool deadlock_detect = false;
  // < 0: TransactionDBOptions::transaction_lock_timeout_ms.
  int64_t lock_timeout_ms = -1;
};

class Transaction {
 public:
  enum class State { kStarted, kPrepared, kCommitted, kRolledBack };

  virtual ~Transaction() = default;

  // Names the transaction; required before Prepare. Names are unique among
  // live transactions (InvalidArgument otherwise) and at most 255 bytes.
  [[nodiscard]] virtual Status SetName(const std::string& name) = 0;
  virtual const std::string& GetName() const = 0;
  virtual uint64_t GetId() const = 0;
  virtual State GetState() const = 0;
  // After a successful Commit: the sequence number at which the commit
  // became visible (a snapshot at or past it sees the transaction; commits
  // are ordered by it). 0 before, or if the transaction wrote nothing.
  // After a successful WritePrepared Rollback of a prepared transaction:
  // the sequence of the write that put each key's committed value back
  // over the prepared data (ordered among writes as a commit is).
  virtual uint64_t GetCommitSequence() const = 0;
  // Set with GetCommitSequence: the sequence of the WAL record that recovery
  // replays as this outcome, so the order in which a crash keeps or loses
  // it among other writes (a prefix of the WAL). Equal to
  // GetCommitSequence() except with two write queues, where a commit
  // without Prepare (and a WritePrepared Rollback) logs its data first, to
  // be recovered as committed, and becomes visible later, at the second
  // queue's commit marker.
  virtual uint64_t GetLogSequence() const = 0;

  // REQUIRES for all of these: state kStarted (InvalidArgument otherwise).
  // Lock errors (TimedOut, Busy) leave the transaction usable.
  [[nodiscard]] virtual Status Put(const Slice& key, const Slice& value) = 0;
  [[nodiscard]] virtual Status Delete(const Slice& key) = 0;
  // Reads this transaction's own writes first, then the DB (at
  // options.snapshot if set, else the latest committed state).
  [[nodiscard]] virtual Status Get(const ReadOptions& options, const Slice& key,
                                   std::string* value) = 0;
  // As Get, after locking key (as a write would). With options.snapshot,
  // Busy if key was changed (committed) after the snapshot, as RocksDB's
  // ValidateSnapshot does; the lock is kept either way.
  [[nodiscard]] virtual Status GetForUpdate(const ReadOptions& options, const Slice& key,
                                            std::string* value) = 0;

  // Writes the transaction to the WAL as a prepared section (WritePrepared:
  // to the memtable too, invisible to readers). REQUIRES: a name.
  [[nodiscard]] virtual Status Prepare() = 0;
  // Makes the writes durable (per the WriteOptions given at Begin) and
  // visible, and releases the locks. From kStarted or kPrepared.
  [[nodiscard]] virtual Status Commit() = 0;
  // Discards the writes (a prepared one is rolled back in the WAL too) and
  // releases the locks. From kStarted or kPrepared.
  [[nodiscard]] virtual Status Rollback() = 0;
};

class TransactionDB : public DB {
 public:
  // Opens (or creates) a DB for transactions. Recovered prepared
  // transactions are available through GetTransactionByName.
  [[nodiscard]] static Status Open(const Options& options, const TransactionDBOptions& txn_options,
                                   const std::string& name, std::unique_ptr<TransactionDB>* db);

  // A new transaction; its writes are made with write_options at Commit.
  // REQUIRES: the result is destroyed before the DB is closed.
  virtual std::unique_ptr<Transaction> BeginTransaction(
      const WriteOptions& write_options, const TransactionOptions& txn_options = {}) = 0;

  // A live transaction with this name (one begun here or one recovered
  // prepared), or nullptr. Recovered transactions are owned by the DB.
  virtual Transaction* GetTransactionByName(const std::string& name) = 0;
  // Names of the prepared transactions, in name order.
  virtual std::vector<std::string> GetPreparedTransactionNames() = 0;

  // DB's Put/Delete/Write here lock their keys as a transaction would (with
  // default_lock_timeout_ms) and, under WritePrepared, prepare and commit.
};

}  // namespace shale
