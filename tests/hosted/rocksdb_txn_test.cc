// What the crash-recovery oracle assumes of RocksDbTransaction, on
// Debian's library as shipped (a WRITE_COMMITTED TransactionDB): a commit's
// sequence is the first of its write, so a snapshot taken just before it
// misses the transaction's keys and the DB's latest sequence ends at it;
// a transaction prepared before a process crash comes back prepared under
// its name, with its writes invisible, and commits or rolls back after
// recovery.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>

#include "hosted/hosted_rig.h"
#include "hosted/rocksdb/rocksdb_db.h"
#include "hosted/rocksdb/rocksdb_engine.h"
#include "sim/choice_tape.h"

namespace shale::hosted {
namespace {

std::string Found(DB* db, const std::string& key) {
  std::string value;
  const Status s = db->Get(ReadOptions(), key, &value);
  return s.ok() ? value : s.IsNotFound() ? "absent" : s.ToString();
}

std::unique_ptr<TransactionDB> OpenTxnDb(const scenario::HostedEngine& engine,
                                         const scenario::HostedOptions& options, HostedRig* rig,
                                         Status* s) {
  std::unique_ptr<DB> db;
  *s = engine.Open(options, &rig->env, "/db", &db);
  if (!s->ok()) return nullptr;
  auto* txn_db = dynamic_cast<TransactionDB*>(db.get());
  if (txn_db == nullptr) *s = Status::InvalidArgument("not a TransactionDB");
  if (!s->ok()) return nullptr;
  (void)db.release();
  return std::unique_ptr<TransactionDB>(txn_db);
}

// "<sequence check> <prepared names> <p after resolve> <k>", or what went
// wrong. Commits "k" in a transaction, prepares "p" as "t", crashes the
// process, reopens, resolves "t" (commit or rollback) and reads.
std::string PrepareCrashResolveSteps(const scenario::HostedEngine& engine,
                                     const scenario::HostedOptions& options, bool commit,
                                     HostedRig* rig) {
  Status s;
  std::unique_ptr<TransactionDB> db = OpenTxnDb(engine, options, rig, &s);
  if (!s.ok()) return "opening: " + s.ToString();
  if (s = db->Put(WriteOptions(), "a", "1"); !s.ok()) return "put: " + s.ToString();
  const Snapshot* before = db->GetSnapshot();
  std::unique_ptr<Transaction> txn = db->BeginTransaction(WriteOptions());
  if (s = txn->Put("k", "v"); s.ok()) s = txn->Commit();
  if (!s.ok()) return "commit: " + s.ToString();
  const uint64_t seq = txn->GetCommitSequence();
  std::string value;
  ReadOptions at_before;
  at_before.snapshot = before;
  const bool sequence_ok = seq == before->GetSequenceNumber() + 1 &&
                           db->GetLatestSequenceNumber() == seq &&
                           db->Get(at_before, "k", &value).IsNotFound();
  db->ReleaseSnapshot(before);
  txn.reset();
  std::unique_ptr<Transaction> prepared = db->BeginTransaction(WriteOptions());
  if (s = prepared->SetName("t"); s.ok()) s = prepared->Put("p", "1");
  if (s.ok()) s = prepared->Prepare();
  if (!s.ok()) return "prepare: " + s.ToString();
  (void)prepared.release();  // abandoned with the DB, as a killed process leaves them
  (void)db.release();
  rig->sim.Crash();
  rig->disk.ProcessCrash();
  db = OpenTxnDb(engine, options, rig, &s);
  if (!s.ok()) return "reopening: " + s.ToString();
  std::string names;
  for (const std::string& name : db->GetPreparedTransactionNames()) names += name + ",";
  const std::string hidden = Found(db.get(), "p");
  Transaction* recovered = db->GetTransactionByName("t");
  if (recovered == nullptr) return "not recovered: [" + names + "] p=" + hidden;
  if (s = commit ? recovered->Commit() : recovered->Rollback(); !s.ok()) {
    return "resolving: " + s.ToString();
  }
  const std::string out = std::string(sequence_ok ? "seq-ok" : "seq-wrong") + " " + names + " " +
                          hidden + " " + Found(db.get(), "p") + " " + Found(db.get(), "k");
  s = db->Close();
  return s.ok() ? out : "closing: " + s.ToString();
}

// The steps above on a write-committed TransactionDB with the seed's other
// options, in a child process (OutputOfChild).
std::string PrepareCrashResolve(bool commit) {
  REQUIRE(PrepareRocksDbHosting().ok());
  const scenario::HostedEngine& engine = RocksDbEngine();
  sim::ChoiceTape tape(23);
  std::map<std::string, std::string> described;
  const std::unique_ptr<scenario::HostedOptions> options =
      engine.Draw(&tape,
                  {{"rocksdb.transactions", "true"},
                   {"rocksdb.enable_pipelined_write", "false"},
                   {"rocksdb.manual_wal_flush", "false"}},
                  &described);
  REQUIRE(engine.UseTransactions(TransactionDBOptions(), options.get()));
  return OutputOfChild([&] {
    HostedRig rig(23);
    std::string out;
    const Status run =
        rig.sim.Run([&] { out = PrepareCrashResolveSteps(engine, *options, commit, &rig); });
    return run.ok() ? out : "the run: " + run.ToString();
  });
}

}  // namespace

TEST_CASE(
    "RocksDB write-committed: a commit's sequence is its write's first; a prepared "
    "transaction survives a process crash and commits after it",
    "[hosted][rocksdb]") {
  CHECK(PrepareCrashResolve(/*commit=*/true) == "seq-ok t, absent 1 v");
}

TEST_CASE("RocksDB write-committed: a prepared transaction recovered after a crash rolls back",
          "[hosted][rocksdb]") {
  CHECK(PrepareCrashResolve(/*commit=*/false) == "seq-ok t, absent absent v");
}

}  // namespace shale::hosted
