// TransactionDB and Transaction through their public API, on the real
// backend in a temp dir. Each test runs for both write policies
// (write-committed and WritePrepared), each with one and two write queues,
// and WritePrepared also with unordered_write (AnyConfig), unless it is
// about one of them.
//
// Outcomes are fixed without sleeps: a lock wait that must end by an unlock
// has a timeout (kLongMs) far beyond any test's run time, and only waits
// meant to time out use a short one. Elapsed time is never asserted.
// Threads report their statuses back; assertions run on the test's thread.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_dir.h"
#include "shale/db.h"
#include "shale/transaction_db.h"

using namespace shale;

namespace {

constexpr int64_t kShortMs = 10;   // meant to time out
constexpr int64_t kLongMs = 5000;  // must never time out

const char* PolicyName(TxnWritePolicy p) {
  return p == TxnWritePolicy::kWriteCommitted ? "write-committed" : "write-prepared";
}

// A write policy and the write-path options that change how it writes.
struct TxnConfig {
  const char* name;
  TxnWritePolicy policy;
  bool two_write_queues;
  bool unordered_write;
};

// Every test runs once per configuration.
TxnConfig AnyConfig() {
  return GENERATE(values<TxnConfig>({
      {"write-committed", TxnWritePolicy::kWriteCommitted, false, false},
      {"write-committed, two queues", TxnWritePolicy::kWriteCommitted, true, false},
      {"write-prepared", TxnWritePolicy::kWritePrepared, false, false},
      {"write-prepared, two queues", TxnWritePolicy::kWritePrepared, true, false},
      {"write-prepared, two queues, unordered", TxnWritePolicy::kWritePrepared, true, true},
  }));
}

// One TransactionDB in a fresh temp dir; options may be changed before Open.
class TxnDbFixture {
 public:
  explicit TxnDbFixture(const TxnConfig& config) : dir_(shale_test::TempDir::InMemoryBase()) {
    options.create_if_missing = true;
    options.two_write_queues = config.two_write_queues;
    options.unordered_write = config.unordered_write;
    txn_options.write_policy = config.policy;
  }
  explicit TxnDbFixture(TxnWritePolicy policy)
      : TxnDbFixture(TxnConfig{PolicyName(policy), policy, false, false}) {}
  ~TxnDbFixture() {
    if (db != nullptr) db->Close().PermitUncheckedError();  // test already failed
  }

  Status Open() { return TransactionDB::Open(options, txn_options, path(), &db); }
  Status Close() {
    Status s = db->Close();
    db.reset();
    return s;
  }
  Status Reopen() {
    Status s = Close();
    return s.ok() ? Open() : s;
  }
  std::string path() const { return dir_.Child("db"); }

  Options options;
  TransactionDBOptions txn_options;
  std::unique_ptr<TransactionDB> db;

 private:
  shale_test::TempDir dir_;
};

std::string Read(DB* db, const std::string& key, const Snapshot* snap = nullptr) {
  ReadOptions ro;
  ro.snapshot = snap;
  std::string value;
  Status s = db->Get(ro, key, &value);
  if (s.IsNotFound()) return "NOT_FOUND";
  if (!s.ok()) return "ERROR: " + s.ToString();
  return value;
}

std::string TxnRead(Transaction* txn, const std::string& key, bool for_update = false) {
  std::string value;
  Status s = for_update ? txn->GetForUpdate(ReadOptions(), key, &value)
                        : txn->Get(ReadOptions(), key, &value);
  if (s.IsNotFound()) return "NOT_FOUND";
  if (!s.ok()) return "ERROR: " + s.ToString();
  return value;
}

std::string Scan(DB* db, const Snapshot* snap = nullptr) {
  ReadOptions ro;
  ro.snapshot = snap;
  std::unique_ptr<Iterator> it(db->NewIterator(ro));
  std::string out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out += it->key().ToString() + "=" + it->value().ToString() + ";";
  }
  if (!it->status().ok()) return "ERROR: " + it->status().ToString();
  return out;
}

std::unique_ptr<Transaction> Begin(TransactionDB* db, int64_t lock_timeout_ms = -1,
                                   bool deadlock_detect = false) {
  TransactionOptions to;
  to.lock_timeout_ms = lock_timeout_ms;
  to.deadlock_detect = deadlock_detect;
  return db->BeginTransaction(WriteOptions(), to);
}

}  // namespace

TEST_CASE("a transaction reads its own writes, nobody else sees them before Commit", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "b", "old").ok());

  auto t1 = Begin(f.db.get());
  auto t2 = Begin(f.db.get());
  REQUIRE(t1->GetState() == Transaction::State::kStarted);
  REQUIRE(t1->GetId() != t2->GetId());
  REQUIRE(t1->Put("a", "1").ok());
  REQUIRE(t1->Put("b", "2").ok());
  REQUIRE(t1->Put("a", "3").ok());  // overwrite inside the txn
  REQUIRE(TxnRead(t1.get(), "a") == "3");
  REQUIRE(TxnRead(t1.get(), "b") == "2");
  REQUIRE(TxnRead(t1.get(), "a", /*for_update=*/true) == "3");

  REQUIRE(Read(f.db.get(), "a") == "NOT_FOUND");
  REQUIRE(Read(f.db.get(), "b") == "old");
  REQUIRE(Scan(f.db.get()) == "b=old;");
  REQUIRE(TxnRead(t2.get(), "a") == "NOT_FOUND");
  REQUIRE(TxnRead(t2.get(), "b") == "old");

  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t1->Commit().ok());
  REQUIRE(t1->GetState() == Transaction::State::kCommitted);
  REQUIRE(Read(f.db.get(), "a") == "3");
  REQUIRE(Read(f.db.get(), "b") == "2");
  REQUIRE(Scan(f.db.get()) == "a=3;b=2;");
  REQUIRE(TxnRead(t2.get(), "a") == "3");
  REQUIRE(Read(f.db.get(), "a", before) == "NOT_FOUND");
  REQUIRE(Read(f.db.get(), "b", before) == "old");
  REQUIRE(Scan(f.db.get(), before) == "b=old;");
  f.db->ReleaseSnapshot(before);

  t1.reset();
  t2.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(Scan(f.db.get()) == "a=3;b=2;");
}

TEST_CASE("a transaction's Get at a snapshot reads its own writes, then the snapshot", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "x", "x1").ok());
  const Snapshot* snap = f.db->GetSnapshot();
  REQUIRE(f.db->Put(WriteOptions(), "x", "x2").ok());
  auto t = Begin(f.db.get());
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
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  constexpr int kKeys = 8;
  for (int i = 0; i < kKeys; i++) {
    REQUIRE(f.db->Put(WriteOptions(), "k" + std::to_string(i), "old").ok());
  }
  for (int round = 0; round < 20; round++) {
    const std::string old_value = round == 0 ? "old" : "r" + std::to_string(round - 1);
    const std::string new_value = "r" + std::to_string(round);
    auto t = Begin(f.db.get());
    for (int i = 0; i < kKeys; i++) REQUIRE(t->Put("k" + std::to_string(i), new_value).ok());
    // The reader takes snapshots until one shows the new values; every
    // snapshot must show all old or all new values.
    std::string torn;
    std::atomic<bool> commit_returned{false};
    std::thread reader([&] {
      for (;;) {
        const bool after_commit = commit_returned.load();
        const Snapshot* snap = f.db->GetSnapshot();
        std::string first = Read(f.db.get(), "k0", snap);
        bool all_same = true;
        std::string seen = first;
        for (int i = 1; i < kKeys; i++) {
          const std::string v = Read(f.db.get(), "k" + std::to_string(i), snap);
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
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  auto t = Begin(f.db.get());
  REQUIRE(t->Put("a", "new").ok());
  REQUIRE(t->Put("b", "new").ok());
  REQUIRE(t->Delete("a").ok());
  REQUIRE(t->Rollback().ok());
  REQUIRE(t->GetState() == Transaction::State::kRolledBack);
  REQUIRE(Read(f.db.get(), "a") == "old");
  REQUIRE(Read(f.db.get(), "b") == "NOT_FOUND");
  auto other = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a", "other").ok());
  REQUIRE(other->Put("b", "other").ok());
  REQUIRE(other->Commit().ok());
  REQUIRE(Read(f.db.get(), "a") == "other");
  t.reset();
  other.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(Scan(f.db.get()) == "a=other;b=other;");
}

TEST_CASE("destroying an unfinished transaction discards its writes and releases its locks",
          "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  {
    auto t = Begin(f.db.get());
    REQUIRE(t->Put("a", "lost").ok());
  }
  REQUIRE(Read(f.db.get(), "a") == "NOT_FOUND");
  auto other = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a", "kept").ok());
  REQUIRE(other->Commit().ok());
  REQUIRE(Read(f.db.get(), "a") == "kept");
}

TEST_CASE("Delete inside a transaction", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  REQUIRE(f.db->Put(WriteOptions(), "b", "old").ok());
  auto t = Begin(f.db.get());
  REQUIRE(t->Delete("a").ok());
  REQUIRE(t->Put("b", "new").ok());
  REQUIRE(t->Delete("b").ok());
  REQUIRE(t->Put("c", "new").ok());
  REQUIRE(t->Delete("c").ok());
  REQUIRE(TxnRead(t.get(), "a") == "NOT_FOUND");
  REQUIRE(TxnRead(t.get(), "b") == "NOT_FOUND");
  REQUIRE(TxnRead(t.get(), "c") == "NOT_FOUND");
  REQUIRE(Read(f.db.get(), "a") == "old");
  REQUIRE(Read(f.db.get(), "b") == "old");
  REQUIRE(t->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "");
  t.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(Scan(f.db.get()) == "");
}

TEST_CASE("Prepare requires a name", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  auto t = Begin(f.db.get());
  REQUIRE(t->Put("a", "1").ok());
  REQUIRE(t->Prepare().IsInvalidArgument());
  REQUIRE(t->GetState() == Transaction::State::kStarted);
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  // Still usable; an unnamed transaction commits without Prepare.
  REQUIRE(t->Put("b", "2").ok());
  REQUIRE(t->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "a=1;b=2;");
}

TEST_CASE("SetName: names are unique among live transactions and at most 255 bytes", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  auto t1 = Begin(f.db.get());
  auto t2 = Begin(f.db.get());
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
  auto t3 = Begin(f.db.get());
  REQUIRE(t3->SetName("x").ok());
  REQUIRE(f.db->GetTransactionByName("x") == t3.get());
}

TEST_CASE("Prepare then Commit", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  auto t = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(t->SetName("p1").ok());
  REQUIRE(t->Put("a", "new").ok());
  REQUIRE(t->Put("b", "new").ok());
  REQUIRE(t->Prepare().ok());
  REQUIRE(t->GetState() == Transaction::State::kPrepared);
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"p1"});
  REQUIRE(Read(f.db.get(), "a") == "old");
  REQUIRE(Read(f.db.get(), "b") == "NOT_FOUND");
  REQUIRE(Scan(f.db.get()) == "a=old;");
  // A prepared transaction still holds its locks.
  auto other = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(other->Put("b", "other").IsTimedOut());
  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t->Commit().ok());
  REQUIRE(t->GetState() == Transaction::State::kCommitted);
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=new;b=new;");
  REQUIRE(Scan(f.db.get(), before) == "a=old;");
  f.db->ReleaseSnapshot(before);
  REQUIRE(other->Put("b", "other").ok());
  REQUIRE(other->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "a=new;b=other;");
}

TEST_CASE("Prepare then Rollback", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  auto t = Begin(f.db.get());
  REQUIRE(t->SetName("p1").ok());
  REQUIRE(t->Put("a", "new").ok());
  REQUIRE(t->Delete("a").ok());
  REQUIRE(t->Put("b", "new").ok());
  REQUIRE(t->Prepare().ok());
  REQUIRE(t->Rollback().ok());
  REQUIRE(t->GetState() == Transaction::State::kRolledBack);
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=old;");
  auto other = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a", "other").ok());
  REQUIRE(other->Commit().ok());
  t.reset();
  other.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=other;");
}

TEST_CASE("operations in the wrong state are InvalidArgument", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  std::string v;

  auto prepared = Begin(f.db.get());
  REQUIRE(prepared->SetName("p").ok());
  REQUIRE(prepared->Put("a", "1").ok());
  REQUIRE(prepared->Prepare().ok());
  REQUIRE(prepared->Put("b", "1").IsInvalidArgument());
  REQUIRE(prepared->Delete("b").IsInvalidArgument());
  REQUIRE(prepared->Get(ReadOptions(), "a", &v).IsInvalidArgument());
  REQUIRE(prepared->GetForUpdate(ReadOptions(), "a", &v).IsInvalidArgument());
  REQUIRE(prepared->Prepare().IsInvalidArgument());
  REQUIRE(prepared->GetState() == Transaction::State::kPrepared);
  REQUIRE(prepared->Commit().ok());

  auto committed = Begin(f.db.get());
  REQUIRE(committed->Put("c", "1").ok());
  REQUIRE(committed->Commit().ok());
  auto rolled_back = Begin(f.db.get());
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
  REQUIRE(Scan(f.db.get()) == "a=1;c=1;");
}

TEST_CASE("a write lock held by another transaction times out", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  auto a = Begin(f.db.get());
  REQUIRE(a->Put("k", "a").ok());
  auto b0 = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  auto b10 = Begin(f.db.get(), kShortMs);
  std::string v;
  REQUIRE(b0->Put("k", "b").IsTimedOut());
  REQUIRE(b0->Delete("k").IsTimedOut());
  REQUIRE(b0->GetForUpdate(ReadOptions(), "k", &v).IsTimedOut());
  REQUIRE(b10->Put("k", "b").IsTimedOut());
  REQUIRE(b10->Delete("k").IsTimedOut());
  REQUIRE(b10->GetForUpdate(ReadOptions(), "k", &v).IsTimedOut());
  // A lock error leaves the transaction usable; a plain Get takes no lock.
  REQUIRE(b0->GetState() == Transaction::State::kStarted);
  REQUIRE(TxnRead(b0.get(), "k") == "NOT_FOUND");
  REQUIRE(b0->Put("other", "b").ok());
  REQUIRE(a->Commit().ok());
  REQUIRE(b0->Put("k", "b").ok());
  REQUIRE(b0->Commit().ok());
  REQUIRE(b10->Rollback().ok());
  REQUIRE(Scan(f.db.get()) == "k=b;other=b;");
}

TEST_CASE("the DB's default transaction lock timeout applies", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  f.txn_options.transaction_lock_timeout_ms = kShortMs;
  REQUIRE(f.Open().ok());
  auto a = Begin(f.db.get());
  REQUIRE(a->Put("k", "a").ok());
  auto b = Begin(f.db.get());  // lock_timeout_ms = -1: the DB's default
  REQUIRE(b->Put("k", "b").IsTimedOut());
  REQUIRE(a->Rollback().ok());
  REQUIRE(b->Put("k", "b").ok());
  REQUIRE(b->Commit().ok());
}

TEST_CASE("a lock wait ends when the holder commits", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  auto a = Begin(f.db.get());
  REQUIRE(a->Put("k", "a").ok());
  auto b = Begin(f.db.get(), kLongMs);
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
  REQUIRE(Read(f.db.get(), "k") == "b");
}

TEST_CASE("deadlock detection: one of two crossed transactions gets Busy", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  for (int round = 0; round < 10; round++) {
    INFO("round " << round);
    auto a = Begin(f.db.get(), kLongMs, /*deadlock_detect=*/true);
    auto b = Begin(f.db.get(), kLongMs, /*deadlock_detect=*/true);
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
    if (sa.ok() != sb.ok()) REQUIRE(Scan(f.db.get()) == want);
    auto clean = Begin(f.db.get(), 0);
    REQUIRE(clean->Delete("k1").ok());
    REQUIRE(clean->Delete("k2").ok());
    REQUIRE(clean->Commit().ok());
  }
}

TEST_CASE("deadlock detection: a three-transaction cycle is broken", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  constexpr int kN = 3;
  std::vector<std::unique_ptr<Transaction>> txns;
  for (int i = 0; i < kN; i++) {
    txns.push_back(Begin(f.db.get(), kLongMs, /*deadlock_detect=*/true));
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
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  f.txn_options.default_lock_timeout_ms = kShortMs;
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "k", "v0").ok());
  auto a = Begin(f.db.get());
  REQUIRE(TxnRead(a.get(), "k", /*for_update=*/true) == "v0");
  REQUIRE(TxnRead(a.get(), "absent", /*for_update=*/true) == "NOT_FOUND");
  auto b = Begin(f.db.get(), kShortMs);
  REQUIRE(b->Put("k", "b").IsTimedOut());
  REQUIRE(b->Put("absent", "b").IsTimedOut());  // a missing key is locked too
  REQUIRE(TxnRead(b.get(), "k") == "v0");
  REQUIRE(f.db->Put(WriteOptions(), "k", "db").IsTimedOut());
  REQUIRE(Read(f.db.get(), "k") == "v0");
  REQUIRE(a->Rollback().ok());
  REQUIRE(b->Put("k", "b").ok());
  REQUIRE(b->Commit().ok());
  REQUIRE(Read(f.db.get(), "k") == "b");
}

TEST_CASE("TransactionDB's Put, Delete and Write outside a transaction", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
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
  REQUIRE(Scan(f.db.get()) == "c=1;d=1;");

  auto t = Begin(f.db.get());
  REQUIRE(t->Put("c", "t").ok());
  REQUIRE(f.db->Put(WriteOptions(), "c", "2").IsTimedOut());
  REQUIRE(f.db->Delete(WriteOptions(), "c").IsTimedOut());
  WriteBatch conflicting;
  conflicting.Put("e", "2");  // free, but the batch is all or nothing
  conflicting.Put("c", "2");
  REQUIRE(f.db->Write(WriteOptions(), &conflicting).IsTimedOut());
  REQUIRE(Scan(f.db.get()) == "c=1;d=1;");
  REQUIRE(f.db->Put(WriteOptions(), "d", "2").ok());  // unlocked keys are fine
  REQUIRE(t->Commit().ok());
  REQUIRE(f.db->Write(WriteOptions(), &conflicting).ok());
  REQUIRE(Scan(f.db.get()) == "c=2;d=2;e=2;");
  t.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(Scan(f.db.get()) == "c=2;d=2;e=2;");
}

TEST_CASE("an empty Write and an empty Commit change nothing", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "1").ok());
  WriteBatch empty;
  REQUIRE(f.db->Write(WriteOptions(), &empty).ok());
  auto t = Begin(f.db.get());
  REQUIRE(t->Commit().ok());
  REQUIRE(t->GetCommitSequence() == 0);
  auto t2 = Begin(f.db.get());
  REQUIRE(t2->Put("b", "2").ok());
  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t2->Commit().ok());
  REQUIRE(f.db->Write(WriteOptions(), &empty).ok());
  REQUIRE(Scan(f.db.get()) == "a=1;b=2;");
  REQUIRE(Scan(f.db.get(), before) == "a=1;");
  f.db->ReleaseSnapshot(before);
  t.reset();
  t2.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(Scan(f.db.get()) == "a=1;b=2;");
  REQUIRE(f.db->Write(WriteOptions(), &empty).ok());
  REQUIRE(f.db->Put(WriteOptions(), "c", "3").ok());
  REQUIRE(Scan(f.db.get()) == "a=1;b=2;c=3;");
}

TEST_CASE("skip_concurrency_control takes no locks (WritePrepared)", "[txn][lock]") {
  TxnDbFixture f(TxnWritePolicy::kWritePrepared);
  f.txn_options.skip_concurrency_control = true;
  REQUIRE(f.Open().ok());
  auto a = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  auto b = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(a->Put("a", "1").ok());
  REQUIRE(TxnRead(b.get(), "a", /*for_update=*/true) == "NOT_FOUND");  // no lock to wait for
  REQUIRE(b->Put("b", "2").ok());
  REQUIRE(a->SetName("a").ok());
  REQUIRE(a->Prepare().ok());
  REQUIRE(Scan(f.db.get()) == "");
  REQUIRE(b->Commit().ok());
  REQUIRE(a->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "a=1;b=2;");
}

TEST_CASE("the write-set limit is Busy", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  f.txn_options.max_write_keys_per_transaction = 2;
  REQUIRE(f.Open().ok());
  auto a = Begin(f.db.get());
  REQUIRE(a->Put("a1", "v").ok());
  REQUIRE(a->Put("a2", "v").ok());
  REQUIRE(a->Put("a1", "w").ok());  // a key already in the write set
  REQUIRE(a->Put("a3", "v").IsBusy());
  REQUIRE(a->GetState() == Transaction::State::kStarted);
  REQUIRE(TxnRead(a.get(), "a3") == "NOT_FOUND");
  REQUIRE(a->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "a1=w;a2=v;");
}

TEST_CASE("the lock limit is Busy", "[txn][lock]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  f.txn_options.max_num_locks = 3;
  REQUIRE(f.Open().ok());
  auto a = Begin(f.db.get());
  REQUIRE(a->Put("a1", "v").ok());
  REQUIRE(TxnRead(a.get(), "a2", /*for_update=*/true) == "NOT_FOUND");
  auto b = Begin(f.db.get());
  REQUIRE(b->Put("b1", "v").ok());  // the third lock
  REQUIRE(b->Put("b2", "v").IsBusy());
  REQUIRE(b->GetState() == Transaction::State::kStarted);
  REQUIRE(a->Commit().ok());
  REQUIRE(b->Put("b2", "v").ok());
  REQUIRE(b->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "a1=v;b1=v;b2=v;");
}

TEST_CASE("a prepared transaction is recovered after reopen and can be committed",
          "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName("rec").ok());
    REQUIRE(t->Put("a", "new").ok());
    REQUIRE(t->Put("b", "new").ok());
    REQUIRE(t->Prepare().ok());
    auto plain = Begin(f.db.get());
    REQUIRE(plain->Put("c", "committed").ok());
    REQUIRE(plain->Commit().ok());
  }  // destroyed unfinished: as if the process had died here
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"rec"});
  Transaction* rec = f.db->GetTransactionByName("rec");
  REQUIRE(rec != nullptr);
  REQUIRE(rec->GetName() == "rec");
  REQUIRE(rec->GetState() == Transaction::State::kPrepared);
  REQUIRE(Scan(f.db.get()) == "a=old;c=committed;");
  // It holds its locks, and its name.
  auto other = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(other->Put("b", "other").IsTimedOut());
  REQUIRE(other->SetName("rec").IsInvalidArgument());
  other.reset();

  // Closing with it unfinished keeps it prepared.
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"rec"});
  rec = f.db->GetTransactionByName("rec");
  REQUIRE(rec != nullptr);
  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(rec->Commit().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=new;b=new;c=committed;");
  REQUIRE(Scan(f.db.get(), before) == "a=old;c=committed;");
  f.db->ReleaseSnapshot(before);
  auto after = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(after->Put("b", "after").ok());
  REQUIRE(after->Commit().ok());
  after.reset();

  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(f.db->GetTransactionByName("rec") == nullptr);
  REQUIRE(Scan(f.db.get()) == "a=new;b=after;c=committed;");
}

TEST_CASE("a recovered prepared transaction can be rolled back", "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  for (const char* name : {"t2", "t1"}) {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName(name).ok());
    REQUIRE(t->Put(std::string("a.") + name, "new").ok());
    if (std::string(name) == "t1") REQUIRE(t->Delete("a").ok());
    REQUIRE(t->Prepare().ok());
  }
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"t1", "t2"});
  Transaction* t1 = f.db->GetTransactionByName("t1");
  Transaction* t2 = f.db->GetTransactionByName("t2");
  REQUIRE(t1 != nullptr);
  REQUIRE(t2 != nullptr);
  REQUIRE(Scan(f.db.get()) == "a=old;");
  REQUIRE(t1->Rollback().ok());
  REQUIRE(t1->GetState() == Transaction::State::kRolledBack);
  REQUIRE(t2->Commit().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=old;a.t2=new;");
  auto other = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a.t1", "other").ok());
  REQUIRE(other->Rollback().ok());
  other.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=old;a.t2=new;");
}

TEST_CASE("prepared data survives Flush and CompactRange invisible, then commits",
          "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  REQUIRE(f.db->Put(WriteOptions(), "d", "old").ok());
  // The old versions in their own table, so that compaction merges them
  // with the prepared ones.
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  auto t = Begin(f.db.get());
  REQUIRE(t->SetName("fc").ok());
  REQUIRE(t->Put("a", "new").ok());
  REQUIRE(t->Put("b", "new").ok());
  REQUIRE(t->Delete("d").ok());
  REQUIRE(t->Prepare().ok());
  REQUIRE(f.db->Put(WriteOptions(), "z", "plain").ok());
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  // The older committed versions under the prepared ones must survive too.
  REQUIRE(Scan(f.db.get()) == "a=old;d=old;z=plain;");
  REQUIRE(Read(f.db.get(), "a") == "old");
  REQUIRE(Read(f.db.get(), "b") == "NOT_FOUND");
  REQUIRE(Read(f.db.get(), "d") == "old");

  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "a=new;b=new;z=plain;");
  REQUIRE(Scan(f.db.get(), before) == "a=old;d=old;z=plain;");
  REQUIRE(Read(f.db.get(), "a", before) == "old");
  REQUIRE(Read(f.db.get(), "b", before) == "NOT_FOUND");
  // And again after the commit is flushed and compacted under the snapshot.
  REQUIRE(f.db->Put(WriteOptions(), "z", "plain2").ok());
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(Scan(f.db.get(), before) == "a=old;d=old;z=plain;");
  REQUIRE(Scan(f.db.get()) == "a=new;b=new;z=plain2;");
  f.db->ReleaseSnapshot(before);
  t.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=new;b=new;z=plain2;");
}

TEST_CASE("a prepared transaction survives Flush, CompactRange and reopen", "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  const bool commit = GENERATE(true, false);
  INFO(config.name << (commit ? ", then commit" : ", then rollback"));
  TxnDbFixture f(config);
  f.options.write_buffer_size = 4096;
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  REQUIRE(f.db->Put(WriteOptions(), "d", "old").ok());
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName("fc").ok());
    REQUIRE(t->Put("a", "new").ok());
    REQUIRE(t->Put("b", "new").ok());
    REQUIRE(t->Delete("d").ok());
    REQUIRE(t->Prepare().ok());
  }
  // Enough later writes to switch memtables (and WALs) several times.
  for (int i = 0; i < 200; i++) {
    REQUIRE(f.db->Put(WriteOptions(), "z" + std::to_string(i), std::string(100, 'z')).ok());
  }
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"fc"});
  REQUIRE(Read(f.db.get(), "a") == "old");
  REQUIRE(Read(f.db.get(), "b") == "NOT_FOUND");
  REQUIRE(Read(f.db.get(), "d") == "old");
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(Read(f.db.get(), "a") == "old");
  Transaction* t = f.db->GetTransactionByName("fc");
  REQUIRE(t != nullptr);
  REQUIRE((commit ? t->Commit() : t->Rollback()).ok());
  const std::string a = commit ? "new" : "old";
  const std::string b = commit ? "new" : "NOT_FOUND";
  const std::string d = commit ? "NOT_FOUND" : "old";
  for (int pass = 0; pass < 2; pass++) {
    INFO("pass " << pass);
    REQUIRE(f.db->GetPreparedTransactionNames().empty());
    REQUIRE(Read(f.db.get(), "a") == a);
    REQUIRE(Read(f.db.get(), "b") == b);
    REQUIRE(Read(f.db.get(), "d") == d);
    REQUIRE(Read(f.db.get(), "z7") == std::string(100, 'z'));
    REQUIRE(f.db->Flush(FlushOptions()).ok());
    REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
    REQUIRE(f.Reopen().ok());
  }
}

TEST_CASE("a destroyed prepared transaction stays prepared, owned by the DB", "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName("adopted").ok());
    REQUIRE(t->Put("a", "new").ok());
    REQUIRE(t->Prepare().ok());
  }
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"adopted"});
  Transaction* t = f.db->GetTransactionByName("adopted");
  REQUIRE(t != nullptr);
  REQUIRE(t->GetState() == Transaction::State::kPrepared);
  REQUIRE(Read(f.db.get(), "a") == "NOT_FOUND");
  auto other = Begin(f.db.get(), /*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a", "other").IsTimedOut());
  REQUIRE(other->SetName("adopted").IsInvalidArgument());
  REQUIRE(t->Commit().ok());
  REQUIRE(Read(f.db.get(), "a") == "new");
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(other->Put("a", "other").ok());
  REQUIRE(other->Commit().ok());
  other.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Read(f.db.get(), "a") == "other");
}

TEST_CASE("GetCommitSequence orders commits and matches snapshots", "[txn]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  auto t1 = Begin(f.db.get());
  auto t2 = Begin(f.db.get());
  auto reader = Begin(f.db.get());
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
  REQUIRE(Scan(f.db.get(), before) == "");
  REQUIRE(Scan(f.db.get(), between) == "a=1;");
  REQUIRE(Scan(f.db.get(), after) == "a=1;b=2;");
  REQUIRE(f.db->GetLatestSequenceNumber() >= c2);
  for (const Snapshot* snap : {before, between, after}) f.db->ReleaseSnapshot(snap);
}

TEST_CASE("a name is reusable once its transaction finished, across recovery", "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  for (int round = 0; round < 3; round++) {  // committed, rolled back, left prepared
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName("same").ok());
    REQUIRE(t->Put("k", "round" + std::to_string(round)).ok());
    REQUIRE(t->Put("r" + std::to_string(round), "x").ok());
    REQUIRE(t->Prepare().ok());
    if (round == 0) REQUIRE(t->Commit().ok());
    if (round == 1) REQUIRE(t->Rollback().ok());
  }
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"same"});
  REQUIRE(Scan(f.db.get()) == "k=round0;r0=x;");
  Transaction* t = f.db->GetTransactionByName("same");
  REQUIRE(t != nullptr);
  REQUIRE(t->Commit().ok());
  REQUIRE(Scan(f.db.get()) == "k=round2;r0=x;r2=x;");
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "k=round2;r0=x;r2=x;");
}

TEST_CASE("an empty or read-only transaction can be prepared, recovered and finished",
          "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "1").ok());
  for (const char* name : {"empty", "reader"}) {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName(name).ok());
    if (std::string(name) == "reader") REQUIRE(TxnRead(t.get(), "a", /*for_update=*/true) == "1");
    REQUIRE(t->Prepare().ok());
  }
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"empty", "reader"});
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"empty", "reader"});
  Transaction* empty = f.db->GetTransactionByName("empty");
  Transaction* reader = f.db->GetTransactionByName("reader");
  REQUIRE(empty != nullptr);
  REQUIRE(reader != nullptr);
  REQUIRE(empty->Commit().ok());
  REQUIRE(reader->Rollback().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(f.db->Put(WriteOptions(), "b", "2").ok());
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Scan(f.db.get()) == "a=1;b=2;");
}

TEST_CASE("prepared sections in several WALs: only unfinished ones come back", "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  f.options.write_buffer_size = 4096;
  REQUIRE(f.Open().ok());
  auto filler = [&](int round) {
    for (int i = 0; i < 60; i++) {
      Status s = f.db->Put(WriteOptions(), "f" + std::to_string(i),
                           std::string(100, static_cast<char>('a' + round)));
      if (!s.ok()) return s;
    }
    return f.db->Flush(FlushOptions());
  };
  // p0 and p2 stay prepared, p1 commits, p3 rolls back; each is prepared in
  // its own WAL, with flushes between.
  std::vector<std::unique_ptr<Transaction>> txns;
  for (int i = 0; i < 4; i++) {
    txns.push_back(Begin(f.db.get()));
    REQUIRE(txns[i]->SetName("p" + std::to_string(i)).ok());
    REQUIRE(txns[i]->Put("p" + std::to_string(i), "v").ok());
    REQUIRE(txns[i]->Prepare().ok());
    REQUIRE(filler(i).ok());
  }
  REQUIRE(txns[1]->Commit().ok());
  REQUIRE(txns[3]->Rollback().ok());
  REQUIRE(filler(4).ok());
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  txns.clear();
  for (int reopen = 0; reopen < 2; reopen++) {
    INFO("reopen " << reopen);
    REQUIRE(f.Reopen().ok());
    REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"p0", "p2"});
    REQUIRE(Read(f.db.get(), "p0") == "NOT_FOUND");
    REQUIRE(Read(f.db.get(), "p1") == "v");
    REQUIRE(Read(f.db.get(), "p2") == "NOT_FOUND");
    REQUIRE(Read(f.db.get(), "p3") == "NOT_FOUND");
    REQUIRE(Read(f.db.get(), "f7") == std::string(100, static_cast<char>('e' + reopen)));
    REQUIRE(filler(5 + reopen).ok());
  }
  Transaction* p0 = f.db->GetTransactionByName("p0");
  Transaction* p2 = f.db->GetTransactionByName("p2");
  REQUIRE(p0 != nullptr);
  REQUIRE(p2 != nullptr);
  REQUIRE(p2->Commit().ok());
  REQUIRE(p0->Rollback().ok());
  REQUIRE(filler(7).ok());
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.db->GetPreparedTransactionNames().empty());
  REQUIRE(Read(f.db.get(), "p0") == "NOT_FOUND");
  REQUIRE(Read(f.db.get(), "p1") == "v");
  REQUIRE(Read(f.db.get(), "p2") == "v");
  REQUIRE(Read(f.db.get(), "f7") == std::string(100, 'h'));
}

TEST_CASE("a WAL kept for a prepared section does not bring back overwritten data",
          "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName("keeper").ok());
    REQUIRE(t->Put("p", "v").ok());
    REQUIRE(t->Prepare().ok());
  }
  // In the kept WAL: x and y written, then deleted/overwritten in later
  // WALs and compacted down, so their old versions are gone from the tables.
  REQUIRE(f.db->Put(WriteOptions(), "x", "stale").ok());
  REQUIRE(f.db->Put(WriteOptions(), "y", "stale").ok());
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  REQUIRE(f.db->Delete(WriteOptions(), "x").ok());
  REQUIRE(f.db->Put(WriteOptions(), "y", "fresh").ok());
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(Scan(f.db.get()) == "y=fresh;");
  for (int reopen = 0; reopen < 2; reopen++) {
    INFO("reopen " << reopen);
    REQUIRE(f.Reopen().ok());
    REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"keeper"});
    REQUIRE(Scan(f.db.get()) == "y=fresh;");
    REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  }
  Transaction* keeper = f.db->GetTransactionByName("keeper");
  REQUIRE(keeper != nullptr);
  REQUIRE(keeper->Commit().ok());
  REQUIRE(f.Reopen().ok());
  REQUIRE(Scan(f.db.get()) == "p=v;y=fresh;");
}

TEST_CASE("a prepared transaction larger than the write buffer", "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  const bool commit = GENERATE(true, false);
  INFO(config.name << (commit ? ", then commit" : ", then rollback"));
  TxnDbFixture f(config);
  f.options.write_buffer_size = 4096;
  REQUIRE(f.Open().ok());
  constexpr int kKeys = 300;
  auto key = [](int i) { return "big" + std::to_string(1000 + i); };
  for (int i = 0; i < kKeys; i += 2) REQUIRE(f.db->Put(WriteOptions(), key(i), "old").ok());
  {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName("big").ok());
    for (int i = 0; i < kKeys; i++) REQUIRE(t->Put(key(i), std::string(60, 'n')).ok());
    REQUIRE(t->Prepare().ok());
  }
  auto check = [&](bool committed) {
    std::string want;
    for (int i = 0; i < kKeys; i++) {
      if (committed) {
        want += key(i) + "=" + std::string(60, 'n') + ";";
      } else if (i % 2 == 0) {
        want += key(i) + "=old;";
      }
    }
    return Scan(f.db.get()) == want;
  };
  REQUIRE(check(false));
  REQUIRE(f.db->Flush(FlushOptions()).ok());
  REQUIRE(f.Reopen().ok());
  REQUIRE(check(false));
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(check(false));
  Transaction* t = f.db->GetTransactionByName("big");
  REQUIRE(t != nullptr);
  REQUIRE((commit ? t->Commit() : t->Rollback()).ok());
  REQUIRE(check(commit));
  REQUIRE(f.Reopen().ok());
  REQUIRE(check(commit));
  REQUIRE(f.db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(check(commit));
}

TEST_CASE("a plain DB refuses a WAL that holds a prepared transaction", "[txn][recovery]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  TxnDbFixture f(config);
  REQUIRE(f.Open().ok());
  {
    auto t = Begin(f.db.get());
    REQUIRE(t->SetName("p").ok());
    REQUIRE(t->Put("a", "new").ok());
    REQUIRE(t->Prepare().ok());
  }
  REQUIRE(f.Close().ok());
  std::unique_ptr<DB> plain;
  Options o;
  Status s = DB::Open(o, f.path(), &plain);
  INFO(s.ToString());
  REQUIRE_FALSE(s.ok());
  REQUIRE(plain == nullptr);
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->GetPreparedTransactionNames() == std::vector<std::string>{"p"});
}

TEST_CASE("TransactionDB::Open validates write-path options", "[txn][options]") {
  auto open = [](TxnWritePolicy policy, bool unordered, bool two_queues) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    Options o;
    o.create_if_missing = true;
    o.unordered_write = unordered;
    o.two_write_queues = two_queues;
    TransactionDBOptions to;
    to.write_policy = policy;
    std::unique_ptr<TransactionDB> db;
    Status s = TransactionDB::Open(o, to, dir.Child("db"), &db);
    if (s.ok()) {
      // Works as a transaction DB.
      auto t = db->BeginTransaction(WriteOptions());
      Status w = t->Put("k", "v");
      if (w.ok()) w = t->Commit();
      t.reset();
      if (w.ok() && Read(db.get(), "k") != "v") w = Status::Corruption("k not visible");
      Status c = db->Close();
      s = FirstError(w, c);
    } else if (db != nullptr) {
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
