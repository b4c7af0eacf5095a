// Transaction through the public API: reads of its own writes, visibility
// of a commit (atomic, at snapshots), Rollback, names, Prepare, and what
// each state allows. Configurations and conventions: txn_test_support.h.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "txn/txn_test_support.h"

using namespace shale;
using namespace shale_test;

TEST_CASE("a transaction reads its own writes, nobody else sees them before Commit", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "b", "old").ok());

  auto t1 = f.Begin();
  auto t2 = f.Begin();
  REQUIRE(t1->GetState() == Transaction::State::kStarted);
  REQUIRE(t1->GetId() != t2->GetId());
  REQUIRE(t1->Put("a", "1").ok());
  REQUIRE(t1->Put("b", "2").ok());
  REQUIRE(t1->Put("a", "3").ok());  // overwrite inside the txn
  REQUIRE(TxnRead(t1.get(), "a") == "3");
  REQUIRE(TxnRead(t1.get(), "b") == "2");
  REQUIRE(TxnRead(t1.get(), "a", /*for_update=*/true) == "3");

  REQUIRE(f.Read("a") == "NOT_FOUND");
  REQUIRE(f.Read("b") == "old");
  REQUIRE(f.Scan() == "b=old;");
  REQUIRE(TxnRead(t2.get(), "a") == "NOT_FOUND");
  REQUIRE(TxnRead(t2.get(), "b") == "old");

  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t1->Commit().ok());
  REQUIRE(t1->GetState() == Transaction::State::kCommitted);
  REQUIRE(f.Read("a") == "3");
  REQUIRE(f.Read("b") == "2");
  REQUIRE(f.Scan() == "a=3;b=2;");
  REQUIRE(TxnRead(t2.get(), "a") == "3");
  REQUIRE(f.Read("a", before) == "NOT_FOUND");
  REQUIRE(f.Read("b", before) == "old");
  REQUIRE(f.Scan(before) == "b=old;");
  f.db->ReleaseSnapshot(before);

  t1.reset();
  t2.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Scan() == "a=3;b=2;");
}

TEST_CASE("a transaction's Get at a snapshot reads its own writes, then the snapshot", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "x", "x1").ok());
  const Snapshot* snap = f.db->GetSnapshot();
  REQUIRE(f.db->Put(WriteOptions(), "x", "x2").ok());
  auto t = f.Begin();
  REQUIRE(t->Put("y", "mine").ok());
  ReadOptions ro;
  ro.snapshot = snap;
  std::string v;
  REQUIRE(t->Get(ro, "x", &v).ok());
  REQUIRE(v == "x1");
  REQUIRE(t->Get(ro, "y", &v).ok());
  REQUIRE(v == "mine");
  REQUIRE(TxnRead(t.get(), "x") == "x2");
  REQUIRE(t->Rollback().ok());
  f.db->ReleaseSnapshot(snap);
}

TEST_CASE("Commit makes a transaction's writes visible atomically to concurrent readers", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  constexpr int kKeys = 8;
  for (int i = 0; i < kKeys; i++) {
    REQUIRE(f.db->Put(WriteOptions(), "k" + std::to_string(i), "old").ok());
  }
  for (int round = 0; round < 20; round++) {
    const std::string old_value = round == 0 ? "old" : "r" + std::to_string(round - 1);
    const std::string new_value = "r" + std::to_string(round);
    auto t = f.Begin();
    for (int i = 0; i < kKeys; i++) REQUIRE(t->Put("k" + std::to_string(i), new_value).ok());
    // The reader takes snapshots until one shows the new values; every
    // snapshot must show all old or all new values.
    std::string torn;
    std::atomic<bool> commit_returned{false};
    std::thread reader([&] {
      for (;;) {
        const bool after_commit = commit_returned.load();
        const Snapshot* snap = f.db->GetSnapshot();
        std::string first = f.Read("k0", snap);
        bool all_same = true;
        std::string seen = first;
        for (int i = 1; i < kKeys; i++) {
          const std::string v = f.Read("k" + std::to_string(i), snap);
          seen += "," + v;
          all_same = all_same && v == first;
        }
        f.db->ReleaseSnapshot(snap);
        if (!all_same || (first != old_value && first != new_value)) {
          torn = seen;
          return;
        }
        if (first == new_value) return;
        if (after_commit) {  // a snapshot taken after Commit returned
          torn = "old values after Commit: " + seen;
          return;
        }
      }
    });
    Status commit = t->Commit();
    commit_returned.store(true);
    reader.join();
    REQUIRE(commit.ok());
    INFO("round " << round << " snapshot saw: " << torn);
    REQUIRE(torn.empty());
  }
}

TEST_CASE("Rollback discards a transaction's writes and releases its locks", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  auto t = f.Begin();
  WriteAll(t.get(), {{"a", "new"}, {"b", "new"}, {"a", kDelete}});
  REQUIRE(t->Rollback().ok());
  REQUIRE(t->GetState() == Transaction::State::kRolledBack);
  REQUIRE(f.Read("a") == "old");
  REQUIRE(f.Read("b") == "NOT_FOUND");
  auto other = f.Begin(/*lock_timeout_ms=*/0);
  WriteAll(other.get(), {{"a", "other"}, {"b", "other"}});
  REQUIRE(other->Commit().ok());
  REQUIRE(f.Read("a") == "other");
  t.reset();
  other.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Scan() == "a=other;b=other;");
}

TEST_CASE("destroying an unfinished transaction discards its writes and releases its locks",
          "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  {
    auto t = f.Begin();
    REQUIRE(t->Put("a", "lost").ok());
  }
  REQUIRE(f.Read("a") == "NOT_FOUND");
  auto other = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a", "kept").ok());
  REQUIRE(other->Commit().ok());
  REQUIRE(f.Read("a") == "kept");
}

TEST_CASE("Delete inside a transaction", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  REQUIRE(f.db->Put(WriteOptions(), "b", "old").ok());
  auto t = f.Begin();
  WriteAll(t.get(), {{"a", kDelete}, {"b", "new"}, {"b", kDelete}, {"c", "new"}, {"c", kDelete}});
  REQUIRE(TxnRead(t.get(), "a") == "NOT_FOUND");
  REQUIRE(TxnRead(t.get(), "b") == "NOT_FOUND");
  REQUIRE(TxnRead(t.get(), "c") == "NOT_FOUND");
  REQUIRE(f.Read("a") == "old");
  REQUIRE(f.Read("b") == "old");
  REQUIRE(t->Commit().ok());
  REQUIRE(f.Scan() == "");
  t.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Scan() == "");
}

TEST_CASE("Prepare requires a name", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  auto t = f.Begin();
  REQUIRE(t->Put("a", "1").ok());
  REQUIRE(t->Prepare().IsInvalidArgument());
  REQUIRE(t->GetState() == Transaction::State::kStarted);
  REQUIRE(f.Prepared().empty());
  // Still usable; an unnamed transaction commits without Prepare.
  REQUIRE(t->Put("b", "2").ok());
  REQUIRE(t->Commit().ok());
  REQUIRE(f.Scan() == "a=1;b=2;");
}

TEST_CASE("SetName: names are unique among live transactions and at most 255 bytes", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  auto t1 = f.Begin();
  auto t2 = f.Begin();
  REQUIRE(t1->SetName("x").ok());
  REQUIRE(t1->GetName() == "x");
  REQUIRE(f.db->GetTransactionByName("x") == t1.get());
  REQUIRE(f.db->GetTransactionByName("nope") == nullptr);
  REQUIRE(t2->SetName("x").IsInvalidArgument());
  REQUIRE(t2->SetName(std::string(256, 'n')).IsInvalidArgument());
  REQUIRE(t2->SetName("").IsInvalidArgument());
  REQUIRE(t2->GetName().empty());
  REQUIRE(t2->SetName(std::string(255, 'n')).ok());
  REQUIRE(f.db->GetTransactionByName(std::string(255, 'n')) == t2.get());
  REQUIRE(t2->SetName("y").IsInvalidArgument());  // already named
  REQUIRE(t2->GetName() == std::string(255, 'n'));
  REQUIRE(t1->Rollback().ok());
  t1.reset();
  REQUIRE(f.db->GetTransactionByName("x") == nullptr);
  auto t3 = f.Begin();
  REQUIRE(t3->SetName("x").ok());
  REQUIRE(f.db->GetTransactionByName("x") == t3.get());
}

TEST_CASE("Prepare then Commit", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  auto t = f.PrepareNamed("p1", {{"a", "new"}, {"b", "new"}});
  REQUIRE(t->GetState() == Transaction::State::kPrepared);
  REQUIRE(f.Prepared() == std::vector<std::string>{"p1"});
  REQUIRE(f.Read("a") == "old");
  REQUIRE(f.Read("b") == "NOT_FOUND");
  REQUIRE(f.Scan() == "a=old;");
  // A prepared transaction still holds its locks.
  auto other = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(other->Put("b", "other").IsTimedOut());
  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t->Commit().ok());
  REQUIRE(t->GetState() == Transaction::State::kCommitted);
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.Scan() == "a=new;b=new;");
  REQUIRE(f.Scan(before) == "a=old;");
  f.db->ReleaseSnapshot(before);
  REQUIRE(other->Put("b", "other").ok());
  REQUIRE(other->Commit().ok());
  REQUIRE(f.Scan() == "a=new;b=other;");
}

TEST_CASE("Prepare then Rollback", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  auto t = f.PrepareNamed("p1", {{"a", "new"}, {"a", kDelete}, {"b", "new"}});
  REQUIRE(t->Rollback().ok());
  REQUIRE(t->GetState() == Transaction::State::kRolledBack);
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.Scan() == "a=old;");
  auto other = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a", "other").ok());
  REQUIRE(other->Commit().ok());
  t.reset();
  other.reset();
  f.ReopenFinished("a=other;");
}

TEST_CASE("operations in the wrong state are InvalidArgument", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  std::string v;

  auto prepared = f.PrepareNamed("p", {{"a", "1"}});
  REQUIRE(prepared->Put("b", "1").IsInvalidArgument());
  REQUIRE(prepared->Delete("b").IsInvalidArgument());
  REQUIRE(prepared->Get(ReadOptions(), "a", &v).IsInvalidArgument());
  REQUIRE(prepared->GetForUpdate(ReadOptions(), "a", &v).IsInvalidArgument());
  REQUIRE(prepared->Prepare().IsInvalidArgument());
  REQUIRE(prepared->GetState() == Transaction::State::kPrepared);
  REQUIRE(prepared->Commit().ok());

  auto committed = f.Begin();
  REQUIRE(committed->Put("c", "1").ok());
  REQUIRE(committed->Commit().ok());
  auto rolled_back = f.Begin();
  REQUIRE(rolled_back->Put("d", "1").ok());
  REQUIRE(rolled_back->Rollback().ok());
  for (Transaction* t : {prepared.get(), committed.get(), rolled_back.get()}) {
    const Transaction::State state = t->GetState();
    REQUIRE(t->Put("e", "1").IsInvalidArgument());
    REQUIRE(t->Delete("e").IsInvalidArgument());
    REQUIRE(t->Get(ReadOptions(), "a", &v).IsInvalidArgument());
    REQUIRE(t->GetForUpdate(ReadOptions(), "a", &v).IsInvalidArgument());
    REQUIRE(t->Prepare().IsInvalidArgument());
    REQUIRE(t->Commit().IsInvalidArgument());
    REQUIRE(t->Rollback().IsInvalidArgument());
    REQUIRE(t->GetState() == state);
  }
  REQUIRE(f.Scan() == "a=1;c=1;");
}

TEST_CASE("an empty Write and an empty Commit change nothing", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "1").ok());
  WriteBatch empty;
  REQUIRE(f.db->Write(WriteOptions(), &empty).ok());
  auto t = f.Begin();
  REQUIRE(t->Commit().ok());
  REQUIRE(t->GetCommitSequence() == 0);
  auto t2 = f.Begin();
  REQUIRE(t2->Put("b", "2").ok());
  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t2->Commit().ok());
  REQUIRE(f.db->Write(WriteOptions(), &empty).ok());
  REQUIRE(f.Scan() == "a=1;b=2;");
  REQUIRE(f.Scan(before) == "a=1;");
  f.db->ReleaseSnapshot(before);
  t.reset();
  t2.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Scan() == "a=1;b=2;");
  REQUIRE(f.db->Write(WriteOptions(), &empty).ok());
  REQUIRE(f.db->Put(WriteOptions(), "c", "3").ok());
  REQUIRE(f.Scan() == "a=1;b=2;c=3;");
}

TEST_CASE("GetCommitSequence orders commits and matches snapshots", "[txn]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  auto t1 = f.Begin();
  auto t2 = f.Begin();
  auto reader = f.Begin();
  REQUIRE(t1->SetName("named").ok());
  REQUIRE(t1->Put("a", "1").ok());
  REQUIRE(t2->Put("b", "2").ok());
  REQUIRE(TxnRead(reader.get(), "c", /*for_update=*/true) == "NOT_FOUND");
  REQUIRE(t1->GetCommitSequence() == 0);
  REQUIRE(t1->Prepare().ok());
  REQUIRE(t1->GetCommitSequence() == 0);
  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t1->Commit().ok());
  const Snapshot* between = f.db->GetSnapshot();
  REQUIRE(t2->Commit().ok());
  REQUIRE(reader->Commit().ok());
  const Snapshot* after = f.db->GetSnapshot();
  const uint64_t c1 = t1->GetCommitSequence();
  const uint64_t c2 = t2->GetCommitSequence();
  INFO("commit sequences " << c1 << ", " << c2 << "; snapshots " << before->GetSequenceNumber()
                           << ", " << between->GetSequenceNumber() << ", "
                           << after->GetSequenceNumber());
  REQUIRE(c1 > 0);
  REQUIRE(c1 < c2);
  REQUIRE(reader->GetCommitSequence() == 0);  // wrote nothing
  REQUIRE(before->GetSequenceNumber() < c1);
  REQUIRE(between->GetSequenceNumber() >= c1);
  REQUIRE(between->GetSequenceNumber() < c2);
  REQUIRE(after->GetSequenceNumber() >= c2);
  REQUIRE(f.Scan(before) == "");
  REQUIRE(f.Scan(between) == "a=1;");
  REQUIRE(f.Scan(after) == "a=1;b=2;");
  REQUIRE(f.db->GetLatestSequenceNumber() >= c2);
  for (const Snapshot* snap : {before, between, after}) f.db->ReleaseSnapshot(snap);
}

TEST_CASE("GetLogSequence is where recovery replays a commit", "[txn]") {
  const TxnConfig config = AnyConfig();
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  // Only WritePrepared with two queues logs data before it is visible.
  const bool logged_first =
      config.policy == TxnWritePolicy::kWritePrepared && config.two_write_queues;
  auto plain = f.Begin();
  REQUIRE(plain->Put("a", "1").ok());
  REQUIRE(plain->GetLogSequence() == 0);
  REQUIRE(plain->Commit().ok());
  INFO("log " << plain->GetLogSequence() << ", commit " << plain->GetCommitSequence());
  REQUIRE(plain->GetLogSequence() > 0);
  if (logged_first) {
    REQUIRE(plain->GetLogSequence() < plain->GetCommitSequence());
  } else {
    REQUIRE(plain->GetLogSequence() == plain->GetCommitSequence());
  }
  // A prepared commit is replayed at its commit marker, where it is visible.
  auto prepared = f.Begin();
  REQUIRE(prepared->SetName("p").ok());
  REQUIRE(prepared->Put("b", "2").ok());
  REQUIRE(prepared->Prepare().ok());
  REQUIRE(prepared->Commit().ok());
  REQUIRE(prepared->GetLogSequence() == prepared->GetCommitSequence());
  REQUIRE(prepared->GetLogSequence() > plain->GetCommitSequence());
  // A WritePrepared rollback of a prepared transaction restores the old
  // values with a write: replayed where that write was logged.
  auto rolled = f.Begin();
  REQUIRE(rolled->SetName("r").ok());
  REQUIRE(rolled->Put("a", "3").ok());
  REQUIRE(rolled->Prepare().ok());
  REQUIRE(rolled->Rollback().ok());
  if (config.policy == TxnWritePolicy::kWritePrepared) {
    REQUIRE(rolled->GetLogSequence() > prepared->GetCommitSequence());
    REQUIRE((rolled->GetLogSequence() < rolled->GetCommitSequence()) == logged_first);
  } else {
    REQUIRE(rolled->GetLogSequence() == 0);
  }
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Scan() == "a=1;b=2;");
}
