// What TransactionDBOptions change: the default lock timeout,
// skip_concurrency_control, the write-set and lock limits, and which
// write-path options Open accepts. Conventions: txn_test_support.h.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "txn/txn_test_support.h"

using namespace shale;
using namespace shale_test;

TEST_CASE("the DB's default transaction lock timeout applies", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  f.txn_options.transaction_lock_timeout_ms = kShortMs;
  REQUIRE(f.Open().ok());
  auto a = f.Begin();
  REQUIRE(a->Put("k", "a").ok());
  auto b = f.Begin();  // lock_timeout_ms = -1: the DB's default
  REQUIRE(b->Put("k", "b").IsTimedOut());
  REQUIRE(a->Rollback().ok());
  REQUIRE(b->Put("k", "b").ok());
  REQUIRE(b->Commit().ok());
}

TEST_CASE("skip_concurrency_control takes no locks (WritePrepared)", "[txn][lock]") {
  TxnDbFixture f(PolicyOnly(TxnWritePolicy::kWritePrepared));
  f.txn_options.skip_concurrency_control = true;
  REQUIRE(f.Open().ok());
  auto a = f.Begin(/*lock_timeout_ms=*/0);
  auto b = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(a->Put("a", "1").ok());
  REQUIRE(TxnRead(b.get(), "a", /*for_update=*/true) == "NOT_FOUND");  // no lock to wait for
  REQUIRE(b->Put("b", "2").ok());
  REQUIRE(a->SetName("a").ok());
  REQUIRE(a->Prepare().ok());
  REQUIRE(f.Scan() == "");
  REQUIRE(b->Commit().ok());
  REQUIRE(a->Commit().ok());
  REQUIRE(f.Scan() == "a=1;b=2;");
}

TEST_CASE("the write-set limit is Busy", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  f.txn_options.max_write_keys_per_transaction = 2;
  REQUIRE(f.Open().ok());
  auto a = f.Begin();
  REQUIRE(a->Put("a1", "v").ok());
  REQUIRE(a->Put("a2", "v").ok());
  REQUIRE(a->Put("a1", "w").ok());  // a key already in the write set
  REQUIRE(a->Put("a3", "v").IsBusy());
  REQUIRE(a->GetState() == Transaction::State::kStarted);
  REQUIRE(TxnRead(a.get(), "a3") == "NOT_FOUND");
  REQUIRE(a->Commit().ok());
  REQUIRE(f.Scan() == "a1=w;a2=v;");
}

TEST_CASE("the lock limit is Busy", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  f.txn_options.max_num_locks = 3;
  REQUIRE(f.Open().ok());
  auto a = f.Begin();
  REQUIRE(a->Put("a1", "v").ok());
  REQUIRE(TxnRead(a.get(), "a2", /*for_update=*/true) == "NOT_FOUND");
  auto b = f.Begin();
  REQUIRE(b->Put("b1", "v").ok());  // the third lock
  REQUIRE(b->Put("b2", "v").IsBusy());
  REQUIRE(b->GetState() == Transaction::State::kStarted);
  REQUIRE(a->Commit().ok());
  REQUIRE(b->Put("b2", "v").ok());
  REQUIRE(b->Commit().ok());
  REQUIRE(f.Scan() == "a1=v;b1=v;b2=v;");
}

TEST_CASE("TransactionDB::Open validates write-path options", "[txn][options]") {
  auto open = [](TxnWritePolicy policy, bool unordered, bool two_queues) {
    TxnDb d(TxnConfig{PolicyName(policy), policy, two_queues, unordered});
    Status s = d.Open();
    if (s.ok()) {
      // Works as a transaction DB.
      auto t = d.db->BeginTransaction(WriteOptions());
      Status w = t->Put("k", "v");
      if (w.ok()) w = t->Commit();
      t.reset();
      if (w.ok() && Read(d.db.get(), "k") != "v") w = Status::Corruption("k not visible");
      Status c = d.Close();
      s = FirstError(w, c);
    } else if (d.db != nullptr) {
      s = Status::Corruption("Open failed but left a DB: " + s.ToString());
    }
    return s;
  };
  const auto wc = TxnWritePolicy::kWriteCommitted;
  const auto wp = TxnWritePolicy::kWritePrepared;
  struct Case {
    TxnWritePolicy policy;
    bool unordered_write;
    bool two_write_queues;
    bool accepted;
  };
  const Case cases[] = {
      {wc, true, false, false}, {wc, true, true, false},  {wp, true, false, false},
      {wp, true, true, true},   {wc, false, false, true}, {wc, false, true, true},
      {wp, false, false, true}, {wp, false, true, true},
  };
  for (const Case& c : cases) {
    const Status s = open(c.policy, c.unordered_write, c.two_write_queues);
    INFO(PolicyName(c.policy) << ", unordered_write " << c.unordered_write << ", two_write_queues "
                              << c.two_write_queues << ": " << s.ToString());
    if (c.accepted) {
      CHECK(s.ok());
    } else {
      CHECK((s.IsNotSupported() || s.IsInvalidArgument()));
    }
  }
}
