// Client turns on real threads: the crash-recovery workload's client code
// (its History, its tape, its shared counters) assumes what the simulator
// gives it, one client running at a time between engine calls. On real
// threads a ClientTurn gives the same: a client holds the turn while it
// runs workload code, and TurnTakingDB gives the turn up for the length of
// every engine call (DB, TransactionDB, Transaction and Iterator methods),
// so engine calls from all clients, and the engine's own threads, run
// truly concurrently while the bookkeeping between them stays serial.
// A History event recorded before a call and one after it then bracket
// the call in real time, as the oracle requires.
//
// Thread safety: TurnTakingDB's methods are called by the thread holding
// the turn; they return with it held again. Ownership: borrows the DB and
// the turn, which outlive it and everything it returns.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shale/db.h"
#include "shale/iterator.h"
#include "shale/transaction_db.h"

namespace shale::scenario {

class ClientTurn {
 public:
  void Take() { mu_.lock(); }
  void Give() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class TurnTakingDB final : public TransactionDB {
 public:
  // txn_db: db as a TransactionDB, or nullptr (the transaction methods
  // must then not be called).
  TurnTakingDB(DB* db, TransactionDB* txn_db, ClientTurn* turn)
      : db_(db), txn_db_(txn_db), turn_(turn) {}

  Status Close() override;
  Status Write(const WriteOptions& options, WriteBatch* batch) override;
  Status Get(const ReadOptions& options, const Slice& key, std::string* value) override;
  Iterator* NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  Status Flush(const FlushOptions& options) override;
  Status CompactRange(const CompactRangeOptions& options, const Slice* begin,
                      const Slice* end) override;
  Status SyncWAL() override;
  Status FlushWAL(bool sync) override;
  bool GetProperty(const Slice& property, std::string* value) override;
  DBStats GetStats() override;
  uint64_t GetLatestSequenceNumber() const override;

  std::unique_ptr<Transaction> BeginTransaction(const WriteOptions& write_options,
                                                const TransactionOptions& txn_options) override;
  Transaction* GetTransactionByName(const std::string& name) override;
  std::vector<std::string> GetPreparedTransactionNames() override;

 private:
  DB* const db_;
  TransactionDB* const txn_db_;
  ClientTurn* const turn_;
};

}  // namespace shale::scenario
