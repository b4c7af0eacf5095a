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
  History history{State{}};
  WorkloadState state;
  TxnMarkers skipped;  // markers a skip-any recovery may have read past

  explicit Fixture(bool prepare_in_db = false) {
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
    return CheckRecoveredPrepared(&state, CheckScope{page_cache_kept, true, {}}, verdict, skipped,
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

// Under skip-any, damage may make recovery read past a transaction's
// markers: only the transactions whose markers lay in the skipped records
// are excused, each only for what that marker decides.
TEST_CASE("skip-any excuses exactly the transactions whose markers it may have read past",
          "[oracle][txn]") {
  SECTION("a durable prepare whose section was skipped may be missing") {
    Fixture f;
    f.Prepare(/*sync=*/true);
    f.skipped.prepared = {kName};
    REQUIRE(f.Check(/*page_cache_kept=*/false, /*cut=*/1));
  }
  SECTION("another transaction's skipped section excuses nothing") {
    Fixture f;
    f.Prepare(/*sync=*/true);
    f.skipped.prepared = {"t9.9.9"};
    f.skipped.ended = {kName};
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/false, /*cut=*/1));
    REQUIRE(f.state.failure.property == "durability");
  }
  SECTION("a Commit that had to survive may come back prepared if its marker was skipped") {
    Fixture f(/*prepare_in_db=*/true);
    f.Prepare(/*sync=*/true);
    f.Commit(/*sequence=*/7);
    f.skipped.ended = {kName};
    REQUIRE(f.Check(/*page_cache_kept=*/true, /*cut=*/2));
  }
  SECTION("...and not if only its section was skipped") {
    Fixture f(/*prepare_in_db=*/true);
    f.Prepare(/*sync=*/true);
    f.Commit(/*sequence=*/7);
    f.skipped.prepared = {kName};
    REQUIRE_FALSE(f.Check(/*page_cache_kept=*/true, /*cut=*/2));
    REQUIRE(f.state.failure.property == "durability");
  }
  SECTION("one an earlier recovery showed finished may come back prepared if its end was skipped") {
    Fixture f(/*prepare_in_db=*/true);
    f.state.named_txns[kName].settled = true;
    f.skipped.ended = {kName};
    REQUIRE(f.Check(/*page_cache_kept=*/false, /*cut=*/0));
    Fixture g(/*prepare_in_db=*/true);
    g.state.named_txns[kName].settled = true;
    REQUIRE_FALSE(g.Check(/*page_cache_kept=*/false, /*cut=*/0));
    REQUIRE(g.state.failure.property == "prefix recovery");
  }
}

TEST_CASE("skip-any: a Commit whose section or marker was skipped may lose its writes",
          "[oracle][txn]") {
  Fixture f;
  f.Prepare(/*sync=*/true);
  f.Commit(/*sequence=*/7);
  CHECK(CommitsSkippedWithMarkers(f.state, TxnMarkers{}).empty());
  CHECK(CommitsSkippedWithMarkers(f.state, TxnMarkers{{"t9.9.9"}, {"t9.9.9"}}).empty());
  for (const TxnMarkers& skipped : {TxnMarkers{{kName}, {}}, TxnMarkers{{}, {kName}}}) {
    const std::vector<SequenceRange> ranges = CommitsSkippedWithMarkers(f.state, skipped);
    REQUIRE(ranges.size() == 1);
    CHECK(ranges[0].Holds(7));
    CHECK_FALSE(ranges[0].Holds(6));
    CHECK_FALSE(ranges[0].Holds(8));
  }
}
