// RocksDbTransaction: one of RocksDB 7.8.3's pessimistic transactions
// (a TransactionDB under the WRITE_COMMITTED policy) behind Shale's
// Transaction, so that the crash-recovery workload and oracle drive it as
// they drive Shale's own.
//
// Sequences: a write-committed commit is one write (its data, and for a
// prepared transaction the commit marker; the WAL's commit record points
// back at the prepared section). After a successful Commit RocksDB's
// Transaction::GetId() is the first sequence of that write, and the
// transaction's keys take the sequences from it on: readers see the
// commit from there (snapshots are taken at a write group's end, never
// inside one write), and recovery replays it at that place in the WAL.
// So GetCommitSequence and GetLogSequence both give it, as RocksDbDb
// stamps a plain batch with its first sequence. A commit whose sequences
// run past GetLatestSequenceNumber returns Corruption instead of OK, as a
// plain write does.
//
// Errors keep RocksDB's code and text (lock waits: TimedOut; a deadlock
// found: Busy), with the evidence of RocksDbDb's errors.
//
// A Prepare that failed leaves RocksDB's transaction awaiting prepare,
// where RocksDB refuses Rollback; the way out RocksDB leaves its user is to
// delete the transaction (its buffer and locks go, its name is
// unregistered). Rollback does that, and the transaction is rolled back.
// A Rollback RocksDB makes of a started transaction leaves it STARTED;
// here it is kRolledBack, as Shale's.
//
// Ownership: the wrapper owns the RocksDB transaction and deletes it (which
// unregisters its name; a prepared one stays prepared in the WAL), then
// calls on_destroy. REQUIRES: destroyed before its DB is closed. Thread
// safety: as shale::Transaction, one thread at a time.
#pragma once

#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "shale/transaction_db.h"

namespace shale::hosted {

class RocksDbTransaction final : public Transaction {
 public:
  // How the DB turns a RocksDB status into Shale's, with its evidence.
  using Proven = std::function<Status(const rocksdb::Status&)>;
  // txn: owned. latest: the DB's GetLatestSequenceNumber. on_destroy (may
  // be empty) runs last in the destructor.
  RocksDbTransaction(rocksdb::Transaction* txn, Proven proven, std::function<uint64_t()> latest,
                     std::function<void()> on_destroy);
  ~RocksDbTransaction() override;
  RocksDbTransaction(const RocksDbTransaction&) = delete;
  RocksDbTransaction& operator=(const RocksDbTransaction&) = delete;

  [[nodiscard]] Status SetName(const std::string& name) override;
  const std::string& GetName() const override { return name_; }
  uint64_t GetId() const override { return id_; }
  State GetState() const override;
  uint64_t GetCommitSequence() const override { return commit_sequence_; }
  uint64_t GetLogSequence() const override { return commit_sequence_; }

  [[nodiscard]] Status Put(const Slice& key, const Slice& value) override;
  [[nodiscard]] Status Delete(const Slice& key) override;
  [[nodiscard]] Status Get(const ReadOptions& options, const Slice& key,
                           std::string* value) override;
  [[nodiscard]] Status GetForUpdate(const ReadOptions& options, const Slice& key,
                                    std::string* value) override;
  [[nodiscard]] Status Prepare() override;
  [[nodiscard]] Status Commit() override;
  [[nodiscard]] Status Rollback() override;

 private:
  // kStarted, or InvalidArgument naming what was asked.
  Status RequireStarted(const char* what) const;

  std::unique_ptr<rocksdb::Transaction> txn_;  // nullptr once dropped (see above)
  Proven proven_;
  std::function<uint64_t()> latest_;
  std::function<void()> on_destroy_;
  std::string name_;
  uint64_t id_ = 0;  // RocksDB's GetID
  uint64_t commit_sequence_ = 0;
  bool rolled_back_ = false;  // by Rollback (RocksDB may still say STARTED)
};

}  // namespace shale::hosted
