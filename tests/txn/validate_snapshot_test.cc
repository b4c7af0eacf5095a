// GetForUpdate at a snapshot validates it, as RocksDB's ValidateSnapshot:
// a key committed after the snapshot gives Busy (the read would otherwise
// act on a stale value); an unchanged key, or one this transaction wrote,
// does not.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "shale/transaction_db.h"
#include "txn/txn_test_support.h"

using namespace shale;
using shale_test::TxnConfig;
using shale_test::TxnDb;

TEST_CASE("GetForUpdate at a snapshot is Busy after a later commit of the key", "[txn]") {
  const TxnWritePolicy policy =
      GENERATE(TxnWritePolicy::kWriteCommitted, TxnWritePolicy::kWritePrepared);
  TxnDb holder(TxnConfig{"policy", policy, false, false});
  REQUIRE(holder.Open().ok());
  TransactionDB* db = holder.db.get();
  REQUIRE(db->Put(WriteOptions(), "a", "a0").ok());
  REQUIRE(db->Put(WriteOptions(), "b", "b0").ok());
  const Snapshot* snap = db->GetSnapshot();
  {
    // Changed after the snapshot by a committed transaction (prepared first).
    std::unique_ptr<Transaction> writer = db->BeginTransaction(WriteOptions());
    REQUIRE(writer->SetName("w").ok());
    REQUIRE(writer->Put("a", "a1").ok());
    REQUIRE(writer->Prepare().ok());
    REQUIRE(writer->Commit().ok());
  }
  ReadOptions at_snap;
  at_snap.snapshot = snap;
  std::unique_ptr<Transaction> txn = db->BeginTransaction(WriteOptions());
  std::string value;
  const Status conflict = txn->GetForUpdate(at_snap, "a", &value);
  REQUIRE(conflict.IsBusy());
  REQUIRE(txn->GetForUpdate(at_snap, "b", &value).ok());  // unchanged
  REQUIRE(value == "b0");
  REQUIRE(txn->GetForUpdate(at_snap, "c", &value).IsNotFound());  // never written
  REQUIRE(txn->Put("c", "c1").ok());
  REQUIRE(txn->GetForUpdate(at_snap, "c", &value).ok());  // its own write
  REQUIRE(value == "c1");
  REQUIRE(txn->GetForUpdate(ReadOptions(), "a", &value).ok());  // latest: no snapshot to check
  REQUIRE(value == "a1");
  REQUIRE(txn->Commit().ok());
  txn.reset();
  db->ReleaseSnapshot(snap);
  REQUIRE(holder.Close().ok());
}

TEST_CASE("GetForUpdate at a snapshot ignores a prepared, uncommitted write", "[txn]") {
  TxnDb holder(TxnConfig{"write-prepared", TxnWritePolicy::kWritePrepared, false, false});
  holder.txn_options.skip_concurrency_control = true;  // the reader is not blocked by the writer
  REQUIRE(holder.Open().ok());
  TransactionDB* db = holder.db.get();
  REQUIRE(db->Put(WriteOptions(), "a", "a0").ok());
  const Snapshot* snap = db->GetSnapshot();
  std::unique_ptr<Transaction> writer = db->BeginTransaction(WriteOptions());
  REQUIRE(writer->SetName("w").ok());
  REQUIRE(writer->Put("a", "a1").ok());
  REQUIRE(writer->Prepare().ok());  // in the memtable at a newer sequence, invisible
  ReadOptions at_snap;
  at_snap.snapshot = snap;
  std::unique_ptr<Transaction> txn = db->BeginTransaction(WriteOptions());
  std::string value;
  const Status read = txn->GetForUpdate(at_snap, "a", &value);
  INFO(read.ToString());
  REQUIRE(read.ok());
  REQUIRE(value == "a0");
  REQUIRE(writer->Commit().ok());  // now committed after the snapshot
  std::unique_ptr<Transaction> late = db->BeginTransaction(WriteOptions());
  REQUIRE(late->GetForUpdate(at_snap, "a", &value).IsBusy());
  REQUIRE(late->Rollback().ok());
  REQUIRE(txn->Rollback().ok());
  late.reset();
  txn.reset();
  writer.reset();
  db->ReleaseSnapshot(snap);
  REQUIRE(holder.Close().ok());
}
