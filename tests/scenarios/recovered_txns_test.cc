// The recovered-transaction check: a transaction whose Prepare had to
// survive a crash, and that did not finish in the recovered state, must come
// back prepared ("durability"); one whose Prepare could be lost, or whose
// Commit the recovered state holds, need not.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "scenarios/crash_recovery/recovered_txns.h"
#include "shale/transaction_db.h"

using namespace shale;
using namespace shale::scenario;

namespace {

constexpr const char* kName = "t0.0.1";

// A crashed phase 0 whose History holds T's prepared section (and, with
// commit, T's acknowledged Commit), checked against a fresh TransactionDB
// that has no prepared transaction, unless prepare_in_db.
struct Fixture {
  shale_test::TempDir dir{shale_test::TempDir::InMemoryBase()};
  std::unique_ptr<TransactionDB> db;
  History history;
  WorkloadState state;

  explicit Fixture(bool prepare_in_db = false, WalWrites wal_writes = WalWrites::kAtAck)
      : history(State{}, ReadVisibility::kWholeBatch, wal_writes) {
    Options options;
    options.create_if_missing = true;
    REQUIRE(TransactionDB::Open(options, TransactionDBOptions(), dir.Child("db"), &db).ok());
    if (prepare_in_db) {
      std::unique_ptr<Transaction> t = db->BeginTransaction(WriteOptions(), TransactionOptions());
      REQUIRE(t->Put("k", "v").ok());
      REQUIRE(t->SetName(kName).ok());
      REQUIRE(t->Prepare().ok());
    }
    state.db = db.get();
    state.txn_db = db.get();
    state.history = &history;
    state.phase = 1;  // past the crashed phase 0
  }
  ~Fixture() { db->Close().PermitUncheckedError(); }

  void Prepare(bool sync) {
    NamedTxn& t = state.named_txns[kName];
    t.ops = {KeyOp{"k", "v"}};
    t.prepare_phase = 0;
    t.prepare_id = history.BeginWrite({}, /*wal=*/true, sync);
    history.EndWrite(t.prepare_id, Status::OK(), 0);
  }
  void Commit(uint64_t sequence) {
    NamedTxn& t = state.named_txns[kName];
    t.end_attempt_phase = 0;
    t.commit_id = history.BeginWrite(t.ops, /*wal=*/true, /*sync=*/false);
    history.EndWrite(t.commit_id, Status::OK(), sequence);
    t.end = NamedTxn::End::kCommitted;
    t.end_phase = 0;
  }
  // T's acknowledged Rollback, synced or not.
  void Rollback(bool sync) {
    NamedTxn& t = state.named_txns[kName];
    t.end_attempt_phase = 0;
    t.end = NamedTxn::End::kRolledBack;
    t.end_sync = sync;
    t.end_phase = 0;
  }
  // A plain WAL write that began after everything so far ended.
  uint64_t LaterWrite(uint64_t sequence) {
    const uint64_t id = history.BeginWrite({KeyOp{"other", "w"}}, /*wal=*/true, /*sync=*/false);
    history.EndWrite(id, Status::OK(), sequence);
    return id;
  }
  // cut and min_cut: the passing verdict's (min_cut: every fitting cut
  // holds that many; cut when not given).
  bool Check(bool page_cache_kept, uint64_t cut, int64_t min_cut = -1) {
    std::vector<std::string> prepared;
    RecoveryVerdict verdict;
    verdict.cut = cut;
    verdict.min_cut = min_cut < 0 ? cut : static_cast<uint64_t>(min_cut);
    return CheckRecoveredPrepared(&state, CheckScope{page_cache_kept, true, {}}, verdict,
                                  &prepared);
  }
};

}  // namespace

TEST_CASE("a durable prepare that did not finish must come back prepared", "[oracle][txn]") {
  SECTION("a sync prepare, never committed, lost: durability") {
    Fixture f;
    f.Prepare(/*sync=*/true);
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/false, /*cut=*/1));
    REQUIRE(f.state.failure.property == "durability");
    REQUIRE(f.state.failure.key == kName);
  }
  SECTION("an unsynced prepare after a process crash that kept the page cache") {
    Fixture f;
    f.Prepare(/*sync=*/false);
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/true, /*cut=*/1));
    REQUIRE(f.state.failure.property == "durability");
  }
  SECTION("an unsynced prepare after a power loss may be lost") {
    Fixture f;
    f.Prepare(/*sync=*/false);
    REQUIRE(f.Check(/*page_cache_kept=*/false, /*cut=*/0));
    REQUIRE(f.state.named_txns.at(kName).settled);
  }
  SECTION("an unsynced prepare the recovered state holds a later write of: durability") {
    Fixture f;
    f.Prepare(/*sync=*/false);
    f.LaterWrite(/*sequence=*/5);
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/false, /*cut=*/2));  // section, then the write
    REQUIRE(f.state.failure.property == "durability");
  }
  SECTION("a later write only some fitting cuts hold proves nothing") {
    Fixture f;
    f.Prepare(/*sync=*/false);
    f.LaterWrite(/*sequence=*/5);
    REQUIRE(f.Check(/*page_cache_kept=*/false, /*cut=*/2, /*min_cut=*/1));
  }
  SECTION("a committed one whose Commit the recovered state lost") {
    Fixture f;
    f.Prepare(/*sync=*/true);
    f.Commit(/*sequence=*/7);
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/false, /*cut=*/1));  // section only
    REQUIRE(f.state.failure.property == "durability");
  }
  SECTION("a committed one whose Commit the recovered state holds") {
    Fixture f;
    f.Prepare(/*sync=*/true);
    f.Commit(/*sequence=*/7);
    REQUIRE(f.Check(/*page_cache_kept=*/false, /*cut=*/2));
  }
  SECTION("a Commit tried but not acknowledged is indeterminate") {
    Fixture f;
    f.Prepare(/*sync=*/true);
    f.state.named_txns.at(kName).end_attempt_phase = 0;
    REQUIRE(f.Check(/*page_cache_kept=*/false, /*cut=*/1));
  }
  SECTION("recovered prepared, as it must be") {
    Fixture f(/*prepare_in_db=*/true);
    f.Prepare(/*sync=*/true);
    REQUIRE(f.Check(/*page_cache_kept=*/false, /*cut=*/1));
  }
}

TEST_CASE("an acknowledged rollback that had to survive must not come back prepared",
          "[oracle][txn]") {
  SECTION("unsynced, the log written at acknowledgement, a process crash: durability") {
    Fixture f(/*prepare_in_db=*/true);
    f.Prepare(/*sync=*/true);
    f.Rollback(/*sync=*/false);
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/true, /*cut=*/1));
    REQUIRE(f.state.failure.property == "durability");
  }
  SECTION("synced, the log buffered by the engine, a power loss: durability") {
    Fixture f(/*prepare_in_db=*/true, WalWrites::kByBarrier);
    f.Prepare(/*sync=*/true);
    f.Rollback(/*sync=*/true);
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/false, /*cut=*/1));
    REQUIRE(f.state.failure.property == "durability");
  }
  SECTION("unsynced, the log buffered by the engine: a process crash may lose it") {
    Fixture f(/*prepare_in_db=*/true, WalWrites::kByBarrier);
    f.Prepare(/*sync=*/true);
    f.Rollback(/*sync=*/false);
    REQUIRE(f.Check(/*page_cache_kept=*/true, /*cut=*/1));
  }
}
