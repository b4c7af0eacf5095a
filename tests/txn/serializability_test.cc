// Serializability of pessimistic transactions, model-checked.
//
// A history is what the committed transactions observed: for each, its reads
// (key -> value or absent) and writes (key -> a value unique to that write),
// in program order, plus the DB's final state. FindSerialOrder searches every
// order of the committed transactions (at most 6! = 720) for one whose replay
// on a std::map reproduces every read and the final state.
//
//   * The property: random transactions of GetForUpdate and Put over 3-5
//     keys run concurrently, one real thread each (deadlock detection on;
//     Busy or TimedOut rolls back). Strict 2PL makes every such history
//     serializable, and in commit-sequence order (GetCommitSequence), under
//     both write policies with one or two write queues (and WritePrepared
//     with unordered_write). The same holds for single-thread random
//     schedules (lock timeout 0: a conflict rolls back at once).
//   * Bank transfers (GetForUpdate both accounts, half through Prepare) in
//     four threads, with flushes and compactions under them: every snapshot
//     a reader takes, by Gets or by an iterator, holds the same total.
//   * The checker bites: reads by plain Get (no lock) let a read-modify-write
//     lose an update, in an interleaving built by hand and in single-thread
//     random schedules; the checker must reject such histories.
// Outcomes never depend on timing: a lock wait that may end in TimedOut just
// rolls its transaction back, which is still a serializable history.
#include <rapidcheck.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/rc_check.h"
#include "shale/transaction_db.h"
#include "txn/txn_test_support.h"

using namespace shale;
using shale_test::AnyConfig;
using shale_test::TxnConfig;
using shale_test::TxnDb;

namespace {

using State = std::map<std::string, std::string>;

// One step a committed transaction took. A read's value is nullopt for
// NotFound; a write's value is always set (the transactions only Put).
struct Event {
  bool is_read = false;
  std::string key;
  std::optional<std::string> value;
};
using TxnHistory = std::vector<Event>;

std::string Describe(const std::vector<TxnHistory>& committed, const State& final_state) {
  std::ostringstream out;
  for (size_t i = 0; i < committed.size(); i++) {
    out << "T" << i << ":";
    for (const Event& e : committed[i]) {
      out << (e.is_read ? " R(" : " W(") << e.key << "=" << e.value.value_or("<none>") << ")";
    }
    out << "\n";
  }
  out << "final:";
  for (const auto& [k, v] : final_state) out << " " << k << "=" << v;
  return out.str();
}

// Whether order puts every two transactions with nonzero commit sequences
// in commit-sequence order.
bool FollowsCommitSequences(const std::vector<size_t>& order,
                            const std::vector<uint64_t>& commit_sequences) {
  uint64_t last = 0;
  for (size_t i : order) {
    const uint64_t seq = commit_sequences[i];
    if (seq == 0) continue;
    if (seq < last) return false;
    last = seq;
  }
  return true;
}

// The serializability checker: a serial order of committed (indices into
// it) whose replay from initial reproduces every read and ends in
// final_state, or nullopt if there is none. With commit_sequences (one per
// transaction, 0 = unordered), only orders that follow them are tried.
// REQUIRES: committed.size() <= 8.
std::optional<std::vector<size_t>> FindSerialOrder(
    const State& initial, const std::vector<TxnHistory>& committed, const State& final_state,
    const std::vector<uint64_t>* commit_sequences = nullptr) {
  std::vector<size_t> order(committed.size());
  std::iota(order.begin(), order.end(), size_t{0});
  do {
    if (commit_sequences != nullptr && !FollowsCommitSequences(order, *commit_sequences)) {
      continue;
    }
    State model = initial;
    bool reads_match = true;
    for (size_t i = 0; i < order.size() && reads_match; i++) {
      for (const Event& e : committed[order[i]]) {
        if (e.is_read) {
          auto it = model.find(e.key);
          const std::optional<std::string> seen =
              it == model.end() ? std::nullopt : std::optional<std::string>(it->second);
          if (seen != e.value) {
            reads_match = false;
            break;
          }
        } else {
          model[e.key] = *e.value;
        }
      }
    }
    if (reads_match && model == final_state) return order;
  } while (std::next_permutation(order.begin(), order.end()));
  return std::nullopt;
}

std::string KeyOf(int i) { return "k" + std::to_string(i); }

struct Op {
  bool is_read;
  int key;
};

// A fresh TransactionDB in a temp dir, open (if status() is OK) and
// holding initial.
class TxnDbForHistory : public TxnDb {
 public:
  TxnDbForHistory(const TxnConfig& config, int64_t lock_timeout_ms, const State& initial)
      : TxnDb(config) {
    txn_options.transaction_lock_timeout_ms = lock_timeout_ms;
    status_ = Open();
    for (const auto& [k, v] : initial) {
      if (status_.ok()) status_ = db->Put(WriteOptions(), k, v);
    }
  }
  const Status& status() const { return status_; }

  // The whole DB, or an error status.
  Status ReadAll(State* out) {
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    out->clear();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      (*out)[it->key().ToString()] = it->value().ToString();
    }
    return it->status();
  }

 private:
  Status status_;
};

// One transaction's run: its history if it committed; error is set for
// anything other than a lock conflict (Busy, TimedOut), which rolls back.
struct TxnRun {
  bool committed = false;
  bool rolled_back = false;
  uint64_t commit_sequence = 0;  // GetCommitSequence once committed
  TxnHistory history;
  std::string error;
};

bool IsLockConflict(const Status& s) { return s.IsBusy() || s.IsTimedOut(); }

// The next step of txn number `index` (op `step` of ops, or Commit when
// step == ops.size()). Returns false once the transaction has finished.
bool RunStep(Transaction* txn, int index, const std::vector<Op>& ops, size_t step, bool reads_lock,
             TxnRun* run) {
  if (step == ops.size()) {
    Status s = txn->Commit();
    if (s.ok()) {
      run->committed = true;
      run->commit_sequence = txn->GetCommitSequence();
    } else {
      run->error = "Commit: " + s.ToString();
    }
    return false;
  }
  const Op& op = ops[step];
  const std::string key = KeyOf(op.key);
  Status s;
  Event e;
  e.is_read = op.is_read;
  e.key = key;
  if (op.is_read) {
    std::string value;
    s = reads_lock ? txn->GetForUpdate(ReadOptions(), key, &value)
                   : txn->Get(ReadOptions(), key, &value);
    if (s.ok()) e.value = value;
    if (s.IsNotFound()) s = Status::OK();
  } else {
    e.value = "t" + std::to_string(index) + ".op" + std::to_string(step);
    s = txn->Put(key, *e.value);
  }
  if (s.ok()) {
    run->history.push_back(std::move(e));
    return true;
  }
  if (IsLockConflict(s)) {
    Status r = txn->Rollback();
    if (r.ok()) {
      run->rolled_back = true;
    } else {
      run->error = "Rollback: " + r.ToString();
    }
    return false;
  }
  run->error = (op.is_read ? "read " : "Put ") + key + ": " + s.ToString();
  return false;
}

struct HistoryCase {
  int num_keys = 3;
  State initial;
  std::vector<std::vector<Op>> txns;
};

// An int in [min, max), drawn from the whole range whatever rapidcheck's
// current size (which would otherwise keep early cases near min).
int FullRange(int min, int max) { return *rc::gen::resize(100, rc::gen::inRange(min, max)); }

HistoryCase GenHistoryCase() {
  HistoryCase c;
  c.num_keys = FullRange(3, 6);
  for (int k = 0; k < c.num_keys; k++) {
    if (*rc::gen::arbitrary<bool>()) c.initial[KeyOf(k)] = "init" + std::to_string(k);
  }
  const int num_txns = FullRange(2, 7);
  for (int t = 0; t < num_txns; t++) {
    const int num_ops = FullRange(1, 6);
    std::vector<Op> ops;
    for (int j = 0; j < num_ops; j++) {
      const bool is_read = *rc::gen::arbitrary<bool>();
      ops.push_back(Op{is_read, FullRange(0, c.num_keys)});
    }
    c.txns.push_back(std::move(ops));
  }
  return c;
}

// Which unfinished transaction steps next, entry by entry (cycled).
std::vector<size_t> GenSchedule() {
  return *rc::gen::container<std::vector<size_t>>(
      40, rc::gen::resize(100, rc::gen::inRange<size_t>(0, 6)));
}

struct PropertyStats {
  int cases = 0;
  int committed = 0;
  int rolled_back = 0;
};

// Runs c's transactions concurrently (one thread each) and asserts that the
// resulting history is serializable.
void CheckConcurrentHistory(const TxnConfig& config, const HistoryCase& c, PropertyStats* stats) {
  TxnDbForHistory h(config, /*lock_timeout_ms=*/2000, c.initial);
  RC_ASSERT(h.status().ok());
  const size_t n = c.txns.size();
  std::vector<TxnRun> runs(n);
  std::atomic<size_t> ready{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n; i++) {
    threads.emplace_back([&, i] {
      TransactionOptions to;
      to.deadlock_detect = true;
      std::unique_ptr<Transaction> txn = h.db->BeginTransaction(WriteOptions(), to);
      ready.fetch_add(1);
      while (ready.load() < n) std::this_thread::yield();  // start together
      for (size_t step = 0;; step++) {
        if (!RunStep(txn.get(), static_cast<int>(i), c.txns[i], step, /*reads_lock=*/true,
                     &runs[i])) {
          break;
        }
        std::this_thread::yield();
      }
    });
  }
  for (auto& t : threads) t.join();

  std::vector<TxnHistory> committed;
  std::vector<uint64_t> commit_sequences;
  for (size_t i = 0; i < n; i++) {
    if (!runs[i].error.empty()) RC_FAIL("T" + std::to_string(i) + ": " + runs[i].error);
    RC_ASSERT(runs[i].committed != runs[i].rolled_back);
    if (!runs[i].committed) continue;
    committed.push_back(runs[i].history);
    commit_sequences.push_back(runs[i].commit_sequence);
  }
  State final_state;
  RC_ASSERT(h.ReadAll(&final_state).ok());
  const auto order = FindSerialOrder(c.initial, committed, final_state);
  if (!order) RC_FAIL("not serializable:\n" + Describe(committed, final_state));
  // Strict 2PL: the commit order itself is a serial order.
  if (!FindSerialOrder(c.initial, committed, final_state, &commit_sequences)) {
    std::string seqs;
    for (uint64_t seq : commit_sequences) seqs += " " + std::to_string(seq);
    RC_FAIL("serializable, but not in commit-sequence order (" + seqs + "):\n" +
            Describe(committed, final_state));
  }
  // The committed state is durable too.
  RC_ASSERT(h.Close().ok());
  stats->cases++;
  stats->committed += static_cast<int>(committed.size());
  stats->rolled_back += static_cast<int>(n - committed.size());
}

// Runs c's transactions on this thread in the order schedule picks (each
// entry chooses among the unfinished transactions), with lock timeout 0.
// Returns whether the history is serializable; *error for engine errors.
bool RunScheduledHistory(const TxnConfig& config, const HistoryCase& c,
                         const std::vector<size_t>& schedule, bool reads_lock, std::string* error) {
  TxnDbForHistory h(config, /*lock_timeout_ms=*/0, c.initial);
  if (!h.status().ok()) {
    *error = "open: " + h.status().ToString();
    return false;
  }
  const size_t n = c.txns.size();
  std::vector<std::unique_ptr<Transaction>> txns;
  for (size_t i = 0; i < n; i++) txns.push_back(h.db->BeginTransaction(WriteOptions()));
  std::vector<TxnRun> runs(n);
  std::vector<size_t> next_step(n, 0);
  std::vector<size_t> live(n);
  std::iota(live.begin(), live.end(), size_t{0});
  for (size_t pick = 0; !live.empty(); pick++) {
    const size_t li = schedule[pick % schedule.size()] % live.size();
    const size_t i = live[li];
    if (!RunStep(txns[i].get(), static_cast<int>(i), c.txns[i], next_step[i]++, reads_lock,
                 &runs[i])) {
      live.erase(live.begin() + static_cast<long>(li));
    }
  }
  txns.clear();
  std::vector<TxnHistory> committed;
  for (const TxnRun& run : runs) {
    if (!run.error.empty()) *error = run.error;
    if (run.committed) committed.push_back(run.history);
  }
  State final_state;
  Status s = h.ReadAll(&final_state);
  if (!s.ok()) *error = "scan: " + s.ToString();
  return FindSerialOrder(c.initial, committed, final_state).has_value();
}

}  // namespace

TEST_CASE("the serializability checker accepts serial histories and rejects others",
          "[txn][serializability]") {
  const State initial = {{"x", "x0"}};
  // T0 increments x, then T1 increments it: serializable only as T0, T1.
  const std::vector<TxnHistory> serial = {
      {{true, "x", "x0"}, {false, "x", "x1"}},
      {{true, "x", "x1"}, {false, "x", "x2"}, {true, "y", std::nullopt}},
  };
  const auto order = FindSerialOrder(initial, serial, {{"x", "x2"}});
  REQUIRE(order.has_value());
  REQUIRE(*order == std::vector<size_t>{0, 1});
  REQUIRE(FindSerialOrder(initial, {serial[1], serial[0]}, {{"x", "x2"}}) ==
          std::vector<size_t>{1, 0});
  // Restricted to commit-sequence order; 0 (a read-only commit) is free.
  const std::vector<uint64_t> in_order = {3, 5}, reversed = {5, 3}, free_first = {0, 5};
  REQUIRE(FindSerialOrder(initial, serial, {{"x", "x2"}}, &in_order).has_value());
  REQUIRE_FALSE(FindSerialOrder(initial, serial, {{"x", "x2"}}, &reversed).has_value());
  REQUIRE(FindSerialOrder(initial, serial, {{"x", "x2"}}, &free_first).has_value());
  // The right reads but the wrong final state.
  REQUIRE_FALSE(FindSerialOrder(initial, serial, {{"x", "x1"}}).has_value());
  REQUIRE_FALSE(FindSerialOrder(initial, serial, {{"x", "x2"}, {"y", "y"}}).has_value());
  // A lost update: both read x0.
  const std::vector<TxnHistory> lost = {
      {{true, "x", "x0"}, {false, "x", "x1"}},
      {{true, "x", "x0"}, {false, "x", "x2"}},
  };
  REQUIRE_FALSE(FindSerialOrder(initial, lost, {{"x", "x2"}}).has_value());
  REQUIRE_FALSE(FindSerialOrder(initial, lost, {{"x", "x1"}}).has_value());
  // Write skew: each reads what the other overwrites.
  const std::vector<TxnHistory> skew = {
      {{true, "a", "a0"}, {true, "b", "b0"}, {false, "a", "a1"}},
      {{true, "a", "a0"}, {true, "b", "b0"}, {false, "b", "b1"}},
  };
  REQUIRE_FALSE(
      FindSerialOrder({{"a", "a0"}, {"b", "b0"}}, skew, {{"a", "a1"}, {"b", "b1"}}).has_value());
  // No transactions: the state must not change.
  REQUIRE(FindSerialOrder(initial, {}, initial).has_value());
  REQUIRE_FALSE(FindSerialOrder(initial, {}, {}).has_value());
}

TEST_CASE("concurrent GetForUpdate/Put transactions are serializable", "[txn][serializability]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  PropertyStats stats;
  shale_test::CheckProperty(std::string("serializable, ") + config.name, 300, 20240917,
                            [&] { CheckConcurrentHistory(config, GenHistoryCase(), &stats); });
  std::cout << "serializability (" << config.name << "): " << stats.cases << " histories, "
            << stats.committed << " commits, " << stats.rolled_back << " rollbacks\n";
  REQUIRE(stats.cases >= 300);
  REQUIRE(stats.committed > 0);
}

TEST_CASE("single-thread random schedules with GetForUpdate are serializable",
          "[txn][serializability]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  shale_test::CheckProperty(std::string("scheduled, ") + config.name, 200, 20240918, [&] {
    const HistoryCase c = GenHistoryCase();
    const std::vector<size_t> schedule = GenSchedule();
    std::string error;
    const bool serializable = RunScheduledHistory(config, c, schedule, /*reads_lock=*/true, &error);
    RC_ASSERT(error.empty());
    RC_ASSERT(serializable);
  });
}

TEST_CASE("concurrent transfers keep the total, seen whole by snapshot readers",
          "[txn][serializability]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  constexpr int kAccounts = 8;
  constexpr int kWriters = 4;
  constexpr int kTransfersPerWriter = 150;
  constexpr int64_t kInitialBalance = 100;
  constexpr int64_t kTotal = kAccounts * kInitialBalance;
  TxnDb d(config);
  d.options.write_buffer_size = 2048;  // flushes and compactions while transactions run
  d.options.target_file_size_base = 2048;
  d.options.level0_file_num_compaction_trigger = 2;
  d.txn_options.transaction_lock_timeout_ms = 60 * 1000;  // must never time out
  REQUIRE(d.Open().ok());
  TransactionDB* db = d.db.get();
  auto account = [](int i) { return "acct" + std::to_string(i); };
  for (int i = 0; i < kAccounts; i++) {
    REQUIRE(db->Put(WriteOptions(), account(i), std::to_string(kInitialBalance)).ok());
  }

  // Every transfer locks both accounts (GetForUpdate), moves an amount, and
  // commits (every other one through Prepare); Busy (deadlock) retries.
  std::atomic<int> writers_left{kWriters};
  std::vector<std::string> writer_errors(kWriters);
  std::vector<int> retries(kWriters, 0);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; w++) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(static_cast<uint32_t>(w + 1));
      for (int i = 0; i < kTransfersPerWriter && writer_errors[w].empty(); i++) {
        const int from = static_cast<int>(rng() % kAccounts);
        const int to_account = (from + 1 + static_cast<int>(rng() % (kAccounts - 1))) % kAccounts;
        const int64_t amount = 1 + static_cast<int64_t>(rng() % 10);
        for (;;) {
          TransactionOptions txn_options;
          txn_options.deadlock_detect = true;
          auto txn = db->BeginTransaction(WriteOptions(), txn_options);
          std::string from_value, to_value;
          Status s = txn->GetForUpdate(ReadOptions(), account(from), &from_value);
          if (s.ok()) s = txn->GetForUpdate(ReadOptions(), account(to_account), &to_value);
          if (s.ok()) s = txn->Put(account(from), std::to_string(std::stoll(from_value) - amount));
          if (s.ok()) {
            s = txn->Put(account(to_account), std::to_string(std::stoll(to_value) + amount));
          }
          if (s.ok() && i % 2 == 0) {
            s = txn->SetName("w" + std::to_string(w) + "." + std::to_string(i));
            if (s.ok()) s = txn->Prepare();
          }
          if (s.ok()) s = txn->Commit();
          if (s.ok()) break;
          if (!s.IsBusy()) {
            writer_errors[w] = "transfer " + std::to_string(i) + ": " + s.ToString();
            break;
          }
          retries[w]++;
          Status r = txn->Rollback();
          if (!r.ok()) {
            writer_errors[w] = "rollback: " + r.ToString();
            break;
          }
        }
      }
      writers_left.fetch_sub(1);
    });
  }
  // The reader: every snapshot, read by Gets or by an iterator, and every
  // iterator without a snapshot, holds the total.
  std::string reader_error;
  int snapshots_read = 0;
  threads.emplace_back([&] {
    for (int round = 0; reader_error.empty(); round++) {
      const bool last = writers_left.load() == 0;  // one more after the writers
      const Snapshot* snap = db->GetSnapshot();
      ReadOptions ro;
      ro.snapshot = snap;
      int64_t sum = 0;
      std::string seen;
      if (round % 2 == 0) {
        for (int i = 0; i < kAccounts && reader_error.empty(); i++) {
          std::string v;
          Status s = db->Get(ro, account(i), &v);
          if (!s.ok()) reader_error = "Get " + account(i) + ": " + s.ToString();
          if (s.ok()) sum += std::stoll(v);
          seen += " " + v;
        }
      } else {
        // Odd rounds iterate at the snapshot, or (every other one) with no
        // snapshot: an iterator alone also sees one point in time.
        std::unique_ptr<Iterator> it(db->NewIterator(round % 4 == 1 ? ro : ReadOptions()));
        int count = 0;
        for (it->SeekToFirst(); it->Valid(); it->Next(), count++) {
          sum += std::stoll(it->value().ToString());
          seen += " " + it->value().ToString();
        }
        if (!it->status().ok()) reader_error = "iterator: " + it->status().ToString();
        if (count != kAccounts) reader_error = "iterator saw " + std::to_string(count) + " keys";
      }
      db->ReleaseSnapshot(snap);
      if (reader_error.empty() && sum != kTotal) {
        reader_error = "snapshot sum " + std::to_string(sum) + ":" + seen;
      }
      snapshots_read++;
      if (last) break;
    }
  });
  for (auto& t : threads) t.join();
  for (int w = 0; w < kWriters; w++) {
    INFO("writer " << w);
    REQUIRE(writer_errors[w].empty());
  }
  INFO("reader after " << snapshots_read << " snapshots: " << reader_error);
  REQUIRE(reader_error.empty());
  int total_retries = 0;
  for (int r : retries) total_retries += r;
  std::cout << "transfers (" << config.name << "): " << kWriters * kTransfersPerWriter
            << " committed, " << total_retries << " deadlock retries, " << snapshots_read
            << " snapshots checked\n";

  REQUIRE(db->GetPreparedTransactionNames().empty());
  REQUIRE(d.Close().ok());
  REQUIRE(d.Open().ok());
  db = d.db.get();
  REQUIRE(db->GetPreparedTransactionNames().empty());
  int64_t sum = 0;
  for (int i = 0; i < kAccounts; i++) {
    std::string v;
    REQUIRE(db->Get(ReadOptions(), account(i), &v).ok());
    sum += std::stoll(v);
  }
  REQUIRE(sum == kTotal);
  REQUIRE(d.Close().ok());
}

TEST_CASE("checker bites: a read-modify-write through plain Get loses an update",
          "[txn][serializability]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  const State initial = {{"k", "v0"}};
  TxnDbForHistory h(config, /*lock_timeout_ms=*/0, initial);
  REQUIRE(h.status().ok());
  auto t1 = h.db->BeginTransaction(WriteOptions());
  auto t2 = h.db->BeginTransaction(WriteOptions());
  std::string r1, r2;
  REQUIRE(t1->Get(ReadOptions(), "k", &r1).ok());
  REQUIRE(t2->Get(ReadOptions(), "k", &r2).ok());
  REQUIRE(t1->Put("k", "t1").ok());
  REQUIRE(t1->Commit().ok());
  REQUIRE(t2->Put("k", "t2").ok());  // t1 has released k
  REQUIRE(t2->Commit().ok());
  const std::vector<TxnHistory> committed = {
      {{true, "k", r1}, {false, "k", "t1"}},
      {{true, "k", r2}, {false, "k", "t2"}},
  };
  State final_state;
  REQUIRE(h.ReadAll(&final_state).ok());
  INFO(Describe(committed, final_state));
  REQUIRE(r1 == "v0");
  REQUIRE(r2 == "v0");
  REQUIRE(final_state == State{{"k", "t2"}});
  REQUIRE_FALSE(FindSerialOrder(initial, committed, final_state).has_value());

  // The same interleaving with GetForUpdate: t4's read conflicts with t3's
  // lock, so t4 rolls back and its retry reads t3's value.
  auto t3 = h.db->BeginTransaction(WriteOptions());
  auto t4 = h.db->BeginTransaction(WriteOptions());
  std::string r3, r4;
  REQUIRE(t3->GetForUpdate(ReadOptions(), "k", &r3).ok());
  REQUIRE(t4->GetForUpdate(ReadOptions(), "k", &r4).IsTimedOut());
  REQUIRE(t4->Rollback().ok());
  REQUIRE(t3->Put("k", "t3").ok());
  REQUIRE(t3->Commit().ok());
  auto t4_retry = h.db->BeginTransaction(WriteOptions());
  REQUIRE(t4_retry->GetForUpdate(ReadOptions(), "k", &r4).ok());
  REQUIRE(t4_retry->Put("k", "t4").ok());
  REQUIRE(t4_retry->Commit().ok());
  const std::vector<TxnHistory> locked = {
      {{true, "k", r3}, {false, "k", "t3"}},
      {{true, "k", r4}, {false, "k", "t4"}},
  };
  REQUIRE(h.ReadAll(&final_state).ok());
  REQUIRE(FindSerialOrder(State{{"k", "t2"}}, locked, final_state).has_value());
}

TEST_CASE("checker bites: random schedules with plain Get produce non-serializable histories",
          "[txn][serializability]") {
  const TxnConfig config = AnyConfig();
  INFO(config.name);
  // The same generator and scheduler as the property above, reads by Get.
  int non_serializable = 0;
  int runs = 0;
  shale_test::CheckProperty(std::string("plain Get, ") + config.name, 200, 20240918, [&] {
    const HistoryCase c = GenHistoryCase();
    const std::vector<size_t> schedule = GenSchedule();
    std::string error;
    const bool serializable =
        RunScheduledHistory(config, c, schedule, /*reads_lock=*/false, &error);
    RC_ASSERT(error.empty());
    runs++;
    if (!serializable) non_serializable++;
  });
  std::cout << "plain Get (" << config.name << "): " << non_serializable << " of " << runs
            << " histories not serializable\n";
  REQUIRE(runs >= 200);
  REQUIRE(non_serializable > 0);
}
