// Key locks of transactions and of TransactionDB's own writes: conflicts
// that time out, waits that end when the holder commits, and deadlock
// detection. Configurations and conventions: txn_test_support.h.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "txn/txn_test_support.h"

using namespace shale;
using namespace shale_test;

TEST_CASE("a write lock held by another transaction times out", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  auto a = f.Begin();
  REQUIRE(a->Put("k", "a").ok());
  auto b0 = f.Begin(/*lock_timeout_ms=*/0);
  auto b10 = f.Begin(kShortMs);
  std::string v;
  for (Transaction* b : {b0.get(), b10.get()}) {
    REQUIRE(b->Put("k", "b").IsTimedOut());
    REQUIRE(b->Delete("k").IsTimedOut());
    REQUIRE(b->GetForUpdate(ReadOptions(), "k", &v).IsTimedOut());
  }
  // A lock error leaves the transaction usable; a plain Get takes no lock.
  REQUIRE(b0->GetState() == Transaction::State::kStarted);
  REQUIRE(TxnRead(b0.get(), "k") == "NOT_FOUND");
  REQUIRE(b0->Put("other", "b").ok());
  REQUIRE(a->Commit().ok());
  REQUIRE(b0->Put("k", "b").ok());
  REQUIRE(b0->Commit().ok());
  REQUIRE(b10->Rollback().ok());
  REQUIRE(f.Scan() == "k=b;other=b;");
}

TEST_CASE("a lock wait ends when the holder commits", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  auto a = f.Begin();
  REQUIRE(a->Put("k", "a").ok());
  auto b = f.Begin(kLongMs);
  Status b_status;
  std::string b_read;
  std::thread waiter([&] { b_status = b->GetForUpdate(ReadOptions(), "k", &b_read); });
  Status a_status = a->Commit();
  waiter.join();
  REQUIRE(a_status.ok());
  // Either b waited and then read a's value, or it ran after the commit.
  REQUIRE(b_status.ok());
  REQUIRE(b_read == "a");
  REQUIRE(b->Put("k", "b").ok());
  REQUIRE(b->Commit().ok());
  REQUIRE(f.Read("k") == "b");
}

TEST_CASE("deadlock detection: one of two crossed transactions gets Busy", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  for (int round = 0; round < 10; round++) {
    INFO("round " << round);
    auto a = f.Begin(kLongMs, /*deadlock_detect=*/true);
    auto b = f.Begin(kLongMs, /*deadlock_detect=*/true);
    REQUIRE(a->Put("k1", "a").ok());
    REQUIRE(b->Put("k2", "b").ok());
    // Each thread asks for the other's key; the one that gets Busy rolls
    // back, which lets the other one through.
    auto cross = [](Transaction* t, const char* key, Status* out, Status* finish) {
      *out = t->Put(key, "x");
      *finish = out->ok() ? t->Commit() : t->Rollback();
    };
    Status sa, sb, fa, fb;
    std::thread ta(cross, a.get(), "k2", &sa, &fa);
    std::thread tb(cross, b.get(), "k1", &sb, &fb);
    ta.join();
    tb.join();
    INFO("a: " << sa.ToString() << ", b: " << sb.ToString());
    REQUIRE((sa.IsBusy() || sb.IsBusy()));
    REQUIRE((sa.ok() || sa.IsBusy()));
    REQUIRE((sb.ok() || sb.IsBusy()));
    REQUIRE(fa.ok());
    REQUIRE(fb.ok());
    const std::string want = sa.ok() ? "k1=a;k2=x;" : "k1=x;k2=b;";
    if (sa.ok() != sb.ok()) REQUIRE(f.Scan() == want);
    auto clean = f.Begin(0);
    WriteAll(clean.get(), {{"k1", kDelete}, {"k2", kDelete}});
    REQUIRE(clean->Commit().ok());
  }
}

TEST_CASE("deadlock detection: a three-transaction cycle is broken", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  constexpr int kN = 3;
  std::vector<std::unique_ptr<Transaction>> txns;
  for (int i = 0; i < kN; i++) {
    txns.push_back(f.Begin(kLongMs, /*deadlock_detect=*/true));
    REQUIRE(txns[i]->Put("k" + std::to_string(i), "own").ok());
  }
  std::vector<Status> wanted(kN), finished(kN);
  std::vector<std::thread> threads;
  for (int i = 0; i < kN; i++) {
    threads.emplace_back([&, i] {
      wanted[i] = txns[i]->Put("k" + std::to_string((i + 1) % kN), "t" + std::to_string(i));
      finished[i] = wanted[i].ok() ? txns[i]->Commit() : txns[i]->Rollback();
    });
  }
  for (auto& t : threads) t.join();
  int busy = 0;
  for (int i = 0; i < kN; i++) {
    INFO("txn " << i << ": " << wanted[i].ToString() << " / " << finished[i].ToString());
    REQUIRE((wanted[i].ok() || wanted[i].IsBusy()));
    REQUIRE(finished[i].ok());
    if (wanted[i].IsBusy()) busy++;
  }
  REQUIRE(busy >= 1);
}

TEST_CASE("GetForUpdate locks the key it reads", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  f.txn_options.default_lock_timeout_ms = kShortMs;
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "k", "v0").ok());
  auto a = f.Begin();
  REQUIRE(TxnRead(a.get(), "k", /*for_update=*/true) == "v0");
  REQUIRE(TxnRead(a.get(), "absent", /*for_update=*/true) == "NOT_FOUND");
  auto b = f.Begin(kShortMs);
  REQUIRE(b->Put("k", "b").IsTimedOut());
  REQUIRE(b->Put("absent", "b").IsTimedOut());  // a missing key is locked too
  REQUIRE(TxnRead(b.get(), "k") == "v0");
  REQUIRE(f.db->Put(WriteOptions(), "k", "db").IsTimedOut());
  REQUIRE(f.Read("k") == "v0");
  REQUIRE(a->Rollback().ok());
  REQUIRE(b->Put("k", "b").ok());
  REQUIRE(b->Commit().ok());
  REQUIRE(f.Read("k") == "b");
}

TEST_CASE("TransactionDB's Put, Delete and Write outside a transaction", "[txn][lock]") {
  TxnDbFixture f(AnyConfig());
  f.txn_options.default_lock_timeout_ms = kShortMs;
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "1").ok());
  REQUIRE(f.db->Put(WriteOptions(), "b", "1").ok());
  REQUIRE(f.db->Delete(WriteOptions(), "b").ok());
  WriteBatch batch;
  batch.Put("c", "1");
  batch.Put("d", "1");
  batch.Delete("a");
  REQUIRE(f.db->Write(WriteOptions(), &batch).ok());
  REQUIRE(f.Scan() == "c=1;d=1;");

  auto t = f.Begin();
  REQUIRE(t->Put("c", "t").ok());
  REQUIRE(f.db->Put(WriteOptions(), "c", "2").IsTimedOut());
  REQUIRE(f.db->Delete(WriteOptions(), "c").IsTimedOut());
  WriteBatch conflicting;
  conflicting.Put("e", "2");  // free, but the batch is all or nothing
  conflicting.Put("c", "2");
  REQUIRE(f.db->Write(WriteOptions(), &conflicting).IsTimedOut());
  REQUIRE(f.Scan() == "c=1;d=1;");
  REQUIRE(f.db->Put(WriteOptions(), "d", "2").ok());  // unlocked keys are fine
  REQUIRE(t->Commit().ok());
  REQUIRE(f.db->Write(WriteOptions(), &conflicting).ok());
  REQUIRE(f.Scan() == "c=2;d=2;e=2;");
  t.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Scan() == "c=2;d=2;e=2;");
}
