// LockManager: exclusive key locks, lock-wait timeouts, deadlock detection.
//
// Real threads on Env::Default(). Every outcome is fixed by handshakes, never
// by sleeps: a thread that must be waiting is polled for with IsWaiting(), and
// a wait that must end by an unlock has a timeout (kLongNs) far beyond any
// test's run time. Only waits that are meant to time out use kShortNs.
// Elapsed time is never asserted.
//
// Two tests need the manager's state changed between an unlock and its
// waiters' wake-up; they run on GatedRuntime, which holds condvar signals back
// until the test releases them (and whose waits never wake spuriously).
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "shale/env.h"
#include "shale/status.h"
#include "txn/lock_manager.h"

using namespace shale;

namespace {

constexpr uint64_t kShortNs = 20 * 1000 * 1000;           // 20 ms: meant to time out
constexpr uint64_t kLongNs = 60ull * 1000 * 1000 * 1000;  // 60 s: must never time out

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// One Lock() call on its own thread.
class AsyncLock {
 public:
  AsyncLock(LockManager* lm, uint64_t txn_id, std::string key, uint64_t timeout_ns,
            bool deadlock_detect)
      : lm_(lm), txn_id_(txn_id) {
    thread_ = Env::Default()->runtime()->StartThread(
        "async_lock", [this, key = std::move(key), timeout_ns, deadlock_detect] {
          status_ = lm_->Lock(txn_id_, key, timeout_ns, deadlock_detect);
          done_.store(true);
        });
  }
  ~AsyncLock() {
    if (thread_ != nullptr) thread_->Join();
  }

  // Polls until the call waits inside the manager (true) or has returned
  // (false). Once true, the thread sits in its condvar wait.
  bool WaitUntilWaiting() const {
    for (;;) {
      if (lm_->IsWaiting(txn_id_)) return true;
      if (done_.load()) return false;
      Env::Default()->runtime()->SleepForMicroseconds(100);
    }
  }
  bool done() const { return done_.load(); }
  Status Join() {
    thread_->Join();
    thread_.reset();
    return status_;
  }

 private:
  LockManager* const lm_;
  const uint64_t txn_id_;
  Status status_;  // written by the thread, read after Join()
  std::atomic<bool> done_{false};
  std::unique_ptr<Thread> thread_;
};

// A Runtime over Env::Default()'s whose condvar signals can be held back:
// between Hold() and Release(), Signal/SignalAll are remembered, and Release()
// delivers them. A wait returns only when a signal reaches its condvar or its
// deadline passes: never spuriously.
// REQUIRES: at most one Mutex is made, and signals are sent with it held
// (LockManager signals only under its mutex).
class GatedRuntime final : public Runtime {
 public:
  std::unique_ptr<Mutex> NewMutex() override {
    std::unique_ptr<Mutex> mu = base_->NewMutex();
    REQUIRE(mu_ == nullptr);
    mu_ = mu.get();
    return mu;
  }
  std::unique_ptr<CondVar> NewCondVar(Mutex* mu) override {
    return std::make_unique<GatedCondVar>(this, base_->NewCondVar(mu));
  }
  std::unique_ptr<Thread> StartThread(const std::string& name, std::function<void()> fn) override {
    return base_->StartThread(name, std::move(fn));
  }
  void SleepForMicroseconds(uint64_t micros) override { base_->SleepForMicroseconds(micros); }

  void Hold() {
    mu_->Lock();
    held_ = true;
    mu_->Unlock();
  }
  void Release() {
    mu_->Lock();
    held_ = false;
    {
      std::lock_guard<std::mutex> g(registry_mu_);
      for (GatedCondVar* cv : cvs_) cv->DeliverPending();
    }
    mu_->Unlock();
  }

 private:
  class GatedCondVar final : public CondVar {
   public:
    GatedCondVar(GatedRuntime* rt, std::unique_ptr<CondVar> base)
        : rt_(rt), base_(std::move(base)) {
      std::lock_guard<std::mutex> g(rt_->registry_mu_);
      rt_->cvs_.push_back(this);
    }
    ~GatedCondVar() override {
      std::lock_guard<std::mutex> g(rt_->registry_mu_);
      std::erase(rt_->cvs_, this);
    }
    void Wait() override {
      const uint64_t gen = generation_;
      while (generation_ == gen) base_->Wait();
    }
    bool TimedWait(uint64_t deadline_nanos) override {
      const uint64_t gen = generation_;
      while (generation_ == gen) {
        if (base_->TimedWait(deadline_nanos)) return generation_ == gen;
      }
      return false;
    }
    // Waking every waiter is allowed (a wait may wake spuriously).
    void Signal() override { SignalAll(); }
    void SignalAll() override {
      if (rt_->held_) {
        pending_ = true;
      } else {
        Deliver();
      }
    }
    void DeliverPending() {
      if (pending_) Deliver();
    }

   private:
    void Deliver() {
      pending_ = false;
      generation_++;
      base_->SignalAll();
    }
    GatedRuntime* const rt_;
    const std::unique_ptr<CondVar> base_;
    uint64_t generation_ = 0;  // guarded by the bound mutex, as is pending_
    bool pending_ = false;
  };

  Runtime* const base_ = Env::Default()->runtime();
  Mutex* mu_ = nullptr;
  bool held_ = false;  // guarded by *mu_
  // Lock order: *mu_, then registry_mu_ (condvars are made and destroyed
  // under *mu_).
  std::mutex registry_mu_;
  std::vector<GatedCondVar*> cvs_;  // guarded by registry_mu_
};

LockManagerOptions Opts(size_t max_num_locks = 1 << 20, int depth = 50) {
  LockManagerOptions o;
  o.max_num_locks = max_num_locks;
  o.deadlock_detect_depth = depth;
  return o;
}

struct Fixture {
  explicit Fixture(const LockManagerOptions& options = Opts())
      : lm(Env::Default()->runtime(), Env::Default()->clock(), options) {}
  LockManager lm;
};

}  // namespace

TEST_CASE("lock, conflict, unlock", "[txn][lock_manager]") {
  Fixture f;
  REQUIRE(f.lm.Lock(1, "a", 0, true).ok());
  REQUIRE(f.lm.Lock(1, "b", 0, true).ok());
  REQUIRE(f.lm.Lock(2, "c", 0, true).ok());
  CHECK(f.lm.NumLockedKeys() == 3);
  CHECK(f.lm.IsHeldBy("a", 1));
  CHECK_FALSE(f.lm.IsHeldBy("a", 2));
  CHECK(f.lm.Lock(2, "a", 0, true).IsTimedOut());

  // Keys not held by the caller, unknown keys and duplicates are ignored.
  f.lm.UnlockAll(2, {"a", "b", "zzz"});
  CHECK(f.lm.NumLockedKeys() == 3);
  f.lm.UnlockAll(1, {"a", "a", "b", "zzz"});
  CHECK(f.lm.NumLockedKeys() == 1);
  CHECK(f.lm.NumTrackedKeys() == 1);
  REQUIRE(f.lm.Lock(2, "a", 0, true).ok());
  CHECK(f.lm.IsHeldBy("a", 2));
  f.lm.UnlockAll(2, {"a", "c"});
  CHECK(f.lm.NumLockedKeys() == 0);
  CHECK(f.lm.NumTrackedKeys() == 0);
  CHECK(f.lm.DeadlocksDetected() == 0);
}

TEST_CASE("re-acquiring a held key is a no-op, even at the lock limit", "[txn][lock_manager]") {
  Fixture f(Opts(/*max_num_locks=*/1));
  REQUIRE(f.lm.Lock(7, "k", 0, true).ok());
  REQUIRE(f.lm.Lock(7, "k", kLongNs, true).ok());
  REQUIRE(f.lm.Lock(7, "k", 0, false).ok());
  CHECK(f.lm.NumLockedKeys() == 1);
  f.lm.UnlockAll(7, {"k"});  // one unlock frees it however often it was locked
  CHECK(f.lm.NumLockedKeys() == 0);
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("timeout 0 fails at once and leaves no state", "[txn][lock_manager]") {
  Fixture f;
  REQUIRE(f.lm.Lock(1, "k", 0, true).ok());
  const Status s = f.lm.Lock(2, "k", 0, true);
  REQUIRE(s.IsTimedOut());
  CHECK(StartsWith(s.message(), "lock timeout"));
  CHECK_FALSE(f.lm.IsWaiting(2));
  CHECK(f.lm.NumTrackedKeys() == 1);
  CHECK(f.lm.IsHeldBy("k", 1));
}

TEST_CASE("a wait past its deadline returns TimedOut and leaves no state", "[txn][lock_manager]") {
  Fixture f;
  REQUIRE(f.lm.Lock(1, "k", 0, true).ok());
  const Status s = f.lm.Lock(2, "k", kShortNs, true);
  REQUIRE(s.IsTimedOut());
  CHECK(StartsWith(s.message(), "lock timeout"));
  CHECK_FALSE(f.lm.IsWaiting(2));
  CHECK(f.lm.NumTrackedKeys() == 1);
  CHECK(f.lm.IsHeldBy("k", 1));
  f.lm.UnlockAll(1, {"k"});
  CHECK(f.lm.NumTrackedKeys() == 0);  // no leftover waiter entry
  REQUIRE(f.lm.Lock(2, "k", 0, true).ok());
  f.lm.UnlockAll(2, {"k"});
}

TEST_CASE("a waiter that times out leaves the other waiters waiting", "[txn][lock_manager]") {
  Fixture f;
  REQUIRE(f.lm.Lock(1, "k", 0, true).ok());
  AsyncLock patient(&f.lm, 2, "k", kLongNs, true);
  REQUIRE(patient.WaitUntilWaiting());
  CHECK(f.lm.Lock(3, "k", kShortNs, true).IsTimedOut());
  CHECK_FALSE(f.lm.IsWaiting(3));
  CHECK(f.lm.IsWaiting(2));
  f.lm.UnlockAll(1, {"k"});
  REQUIRE(patient.Join().ok());
  CHECK(f.lm.IsHeldBy("k", 2));
  CHECK(f.lm.NumTrackedKeys() == 1);
  f.lm.UnlockAll(2, {"k"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("unlock wakes a waiter, which then holds the key", "[txn][lock_manager]") {
  Fixture f;
  REQUIRE(f.lm.Lock(1, "k", 0, true).ok());
  AsyncLock waiter(&f.lm, 2, "k", kLongNs, true);
  REQUIRE(waiter.WaitUntilWaiting());
  CHECK_FALSE(waiter.done());
  CHECK(f.lm.NumTrackedKeys() == 1);
  f.lm.UnlockAll(1, {"k"});
  REQUIRE(waiter.Join().ok());
  CHECK(f.lm.IsHeldBy("k", 2));
  CHECK_FALSE(f.lm.IsWaiting(2));
  f.lm.UnlockAll(2, {"k"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("waiters of one key get it one at a time, with no false deadlocks",
          "[txn][lock_manager]") {
  Fixture f;
  REQUIRE(f.lm.Lock(1, "k", 0, true).ok());
  std::vector<std::unique_ptr<AsyncLock>> waiters;
  for (uint64_t txn = 2; txn <= 4; txn++) {
    waiters.push_back(std::make_unique<AsyncLock>(&f.lm, txn, "k", kLongNs, true));
    REQUIRE(waiters.back()->WaitUntilWaiting());
  }
  uint64_t holder = 1;
  std::vector<bool> served(5, false);
  for (int round = 0; round < 3; round++) {
    f.lm.UnlockAll(holder, {"k"});
    // Exactly one waiter takes the key; find it.
    holder = 0;
    while (holder == 0) {
      for (uint64_t txn = 2; txn <= 4; txn++) {
        if (!served[txn] && f.lm.IsHeldBy("k", txn)) holder = txn;
      }
      if (holder == 0) Env::Default()->runtime()->SleepForMicroseconds(100);
    }
    served[holder] = true;
  }
  for (auto& w : waiters) REQUIRE(w->Join().ok());
  CHECK(f.lm.DeadlocksDetected() == 0);
  f.lm.UnlockAll(holder, {"k"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("two-txn deadlock: the request that closes the cycle is Busy", "[txn][lock_manager]") {
  Fixture f;
  REQUIRE(f.lm.Lock(1, "k1", 0, true).ok());
  REQUIRE(f.lm.Lock(2, "k2", 0, true).ok());
  AsyncLock a(&f.lm, 1, "k2", kLongNs, true);  // 1 waits for 2
  REQUIRE(a.WaitUntilWaiting());

  // 2 waiting for 1 would close the cycle. Detection answers before any wait,
  // so a short timeout is enough; without detection this is TimedOut.
  const Status s = f.lm.Lock(2, "k1", kShortNs, true);
  REQUIRE(s.IsBusy());
  CHECK(StartsWith(s.message(), "deadlock"));
  CHECK(f.lm.DeadlocksDetected() == 1);
  CHECK_FALSE(f.lm.IsWaiting(2));
  CHECK(f.lm.IsWaiting(1));

  // The victim gives up its keys; the survivor proceeds.
  f.lm.UnlockAll(2, {"k2"});
  REQUIRE(a.Join().ok());
  CHECK(f.lm.IsHeldBy("k2", 1));
  f.lm.UnlockAll(1, {"k1", "k2"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("planted bug: the same cycle without detection times out", "[txn][lock_manager]") {
  // The deadlock test above, with detection off for the request that closes
  // the cycle: it must wait and time out. So the Busy above comes from
  // detection, not from anything else in Lock().
  Fixture f;
  REQUIRE(f.lm.Lock(1, "k1", 0, true).ok());
  REQUIRE(f.lm.Lock(2, "k2", 0, true).ok());
  AsyncLock a(&f.lm, 1, "k2", kLongNs, true);
  REQUIRE(a.WaitUntilWaiting());
  const Status s = f.lm.Lock(2, "k1", kShortNs, /*deadlock_detect=*/false);
  REQUIRE(s.IsTimedOut());
  CHECK(f.lm.DeadlocksDetected() == 0);
  CHECK_FALSE(f.lm.IsWaiting(2));
  f.lm.UnlockAll(2, {"k2"});
  REQUIRE(a.Join().ok());
  f.lm.UnlockAll(1, {"k1", "k2"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("three-txn cycle is detected, and depth bounds the search", "[txn][lock_manager]") {
  // 1 holds a and waits for b; 2 holds b and waits for c; 3 holds c and asks
  // for a. The chain from a's holder is 1 -> 2 -> 3: two edges.
  int depth = 0;
  std::string expected_tail;
  SECTION("depth 2 finds the cycle") {
    depth = 2;
    expected_tail = "would close a wait-for cycle";
  }
  SECTION("depth 1 gives up: treated as a deadlock") {
    depth = 1;
    expected_tail = "is longer than deadlock_detect_depth 1";
  }
  Fixture f(Opts(1 << 20, depth));
  REQUIRE(f.lm.Lock(1, "a", 0, true).ok());
  REQUIRE(f.lm.Lock(2, "b", 0, true).ok());
  REQUIRE(f.lm.Lock(3, "c", 0, true).ok());
  AsyncLock one(&f.lm, 1, "b", kLongNs, true);
  REQUIRE(one.WaitUntilWaiting());
  AsyncLock two(&f.lm, 2, "c", kLongNs, true);
  REQUIRE(two.WaitUntilWaiting());

  const Status s = f.lm.Lock(3, "a", kShortNs, true);
  REQUIRE(s.IsBusy());
  CHECK(StartsWith(s.message(), "deadlock"));
  const std::string& msg = s.message();
  CHECK(msg.substr(msg.size() - expected_tail.size()) == expected_tail);
  CHECK(f.lm.DeadlocksDetected() == 1);

  f.lm.UnlockAll(3, {"c"});
  REQUIRE(two.Join().ok());
  f.lm.UnlockAll(2, {"b", "c"});
  REQUIRE(one.Join().ok());
  f.lm.UnlockAll(1, {"a", "b"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("a long chain without a cycle: waits within depth, Busy beyond it",
          "[txn][lock_manager]") {
  // 3 waits for 2, 2 waits for 1, 1 waits for nobody. 4 asks for c (held by
  // 3): the chain from 3 has two edges and then ends.
  const int depth = GENERATE(1, 2);
  Fixture f(Opts(1 << 20, depth));
  REQUIRE(f.lm.Lock(1, "a", 0, true).ok());
  REQUIRE(f.lm.Lock(2, "b", 0, true).ok());
  REQUIRE(f.lm.Lock(3, "c", 0, true).ok());
  AsyncLock two(&f.lm, 2, "a", kLongNs, true);
  REQUIRE(two.WaitUntilWaiting());
  AsyncLock three(&f.lm, 3, "b", kLongNs, true);
  REQUIRE(three.WaitUntilWaiting());

  const Status s = f.lm.Lock(4, "c", kShortNs, true);
  if (depth == 1) {
    REQUIRE(s.IsBusy());
    CHECK(StartsWith(s.message(), "deadlock"));
    CHECK(f.lm.DeadlocksDetected() == 1);
  } else {
    REQUIRE(s.IsTimedOut());  // no deadlock: it waited
    CHECK(f.lm.DeadlocksDetected() == 0);
  }
  f.lm.UnlockAll(1, {"a"});
  REQUIRE(two.Join().ok());
  f.lm.UnlockAll(2, {"a", "b"});
  REQUIRE(three.Join().ok());
  f.lm.UnlockAll(3, {"b", "c"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("lock limit: one key too many is Busy and leaves no state", "[txn][lock_manager]") {
  Fixture f(Opts(/*max_num_locks=*/3));
  REQUIRE(f.lm.Lock(1, "a", 0, true).ok());
  REQUIRE(f.lm.Lock(1, "b", 0, true).ok());
  REQUIRE(f.lm.Lock(2, "c", 0, true).ok());
  const Status s = f.lm.Lock(2, "d", kLongNs, true);  // free key: no wait
  REQUIRE(s.IsBusy());
  CHECK(StartsWith(s.message(), "lock limit"));
  CHECK(f.lm.DeadlocksDetected() == 0);
  CHECK(f.lm.NumLockedKeys() == 3);
  CHECK(f.lm.NumTrackedKeys() == 3);
  // Waiting for a held key is not a new lock: it times out, not Busy.
  CHECK(f.lm.Lock(2, "a", kShortNs, true).IsTimedOut());
  f.lm.UnlockAll(1, {"a"});
  REQUIRE(f.lm.Lock(2, "d", 0, true).ok());
  f.lm.UnlockAll(1, {"b"});
  f.lm.UnlockAll(2, {"c", "d"});
  CHECK(f.lm.NumTrackedKeys() == 0);
}

TEST_CASE("lock limit reached while a waiter slept: it gets Busy, no stale state",
          "[txn][lock_manager]") {
  GatedRuntime rt;
  LockManager lm(&rt, Env::Default()->clock(), Opts(/*max_num_locks=*/1));
  REQUIRE(lm.Lock(1, "a", 0, true).ok());
  AsyncLock waiter(&lm, 2, "a", kLongNs, true);
  REQUIRE(waiter.WaitUntilWaiting());
  rt.Hold();
  lm.UnlockAll(1, {"a"});                  // the wake-up is held back...
  REQUIRE(lm.Lock(3, "b", 0, true).ok());  // ...while 3 takes the only slot
  rt.Release();
  const Status s = waiter.Join();
  REQUIRE(s.IsBusy());
  CHECK(StartsWith(s.message(), "lock limit"));
  CHECK(lm.NumTrackedKeys() == 1);  // "a" is gone: no holder, no waiter
  lm.UnlockAll(3, {"b"});
  CHECK(lm.NumTrackedKeys() == 0);
}

TEST_CASE("deadlock re-checked when a waiter wakes to a new holder", "[txn][lock_manager]") {
  // 2 holds k2 and waits for k1 (held by 1). 1 unlocks k1, but before 2 runs
  // again, 3 takes k1 and then waits for k2. 3's check follows 3 -> 2 -> 1
  // (2's edge is still the stale one to 1) and finds no cycle. When 2 wakes,
  // its holder changed to 3: its re-check finds 2 -> 3 -> 2. Without the
  // re-check both would wait out their (long) timeouts.
  GatedRuntime rt;
  LockManager lm(&rt, Env::Default()->clock(), Opts());
  REQUIRE(lm.Lock(1, "k1", 0, true).ok());
  REQUIRE(lm.Lock(2, "k2", 0, true).ok());
  AsyncLock two(&lm, 2, "k1", kLongNs, true);
  REQUIRE(two.WaitUntilWaiting());
  rt.Hold();
  lm.UnlockAll(1, {"k1"});
  REQUIRE(lm.Lock(3, "k1", 0, true).ok());
  AsyncLock three(&lm, 3, "k2", kLongNs, true);
  REQUIRE(three.WaitUntilWaiting());
  CHECK(lm.DeadlocksDetected() == 0);
  CHECK(lm.IsWaiting(2));
  rt.Release();

  const Status s = two.Join();
  REQUIRE(s.IsBusy());
  CHECK(StartsWith(s.message(), "deadlock"));
  CHECK(lm.DeadlocksDetected() == 1);
  CHECK(lm.IsWaiting(3));
  lm.UnlockAll(2, {"k2"});
  REQUIRE(three.Join().ok());
  lm.UnlockAll(3, {"k1", "k2"});
  CHECK(lm.NumTrackedKeys() == 0);
}

TEST_CASE("concurrent transactions never share a key", "[txn][lock_manager]") {
  // Threads run transactions that lock a few of a small set of keys in a
  // seeded random order (deadlocks happen), hold them briefly and release.
  // Whatever each Lock returns, no key ever has two owners, and everything
  // is released at the end.
  constexpr int kThreads = 4;
  constexpr int kTxnsPerThread = 200;
  constexpr int kKeys = 6;
  Fixture f;
  std::vector<std::atomic<uint64_t>> owner(kKeys);
  std::atomic<int> violations{0};
  std::atomic<int> bad_statuses{0};
  std::vector<std::unique_ptr<Thread>> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.push_back(Env::Default()->runtime()->StartThread("txn_worker", [&, t] {
      std::mt19937 rng(static_cast<uint32_t>(1000 + t));
      for (int i = 0; i < kTxnsPerThread; i++) {
        const uint64_t txn = static_cast<uint64_t>(t) * kTxnsPerThread + i + 1;
        std::vector<std::string> held;
        std::vector<int> held_idx;
        const int n = 1 + static_cast<int>(rng() % 3);
        for (int j = 0; j < n; j++) {
          const int k = static_cast<int>(rng() % kKeys);
          const std::string key = "key" + std::to_string(k);
          const Status s = f.lm.Lock(txn, key, 1000 * 1000 * 1000, true);
          if (!s.ok()) {
            if (!s.IsBusy() && !s.IsTimedOut()) bad_statuses++;
            break;  // abort: release what we hold
          }
          uint64_t expected = 0;
          if (owner[k].compare_exchange_strong(expected, txn)) {
            held.push_back(key);
            held_idx.push_back(k);
          } else if (expected != txn) {
            violations++;
          }
          Env::Default()->runtime()->SleepForMicroseconds(20);  // contention, not correctness
        }
        for (int k : held_idx) owner[k].store(0);
        f.lm.UnlockAll(txn, held);
      }
    }));
  }
  for (auto& th : threads) th->Join();
  CHECK(violations.load() == 0);
  CHECK(bad_statuses.load() == 0);
  CHECK(f.lm.NumLockedKeys() == 0);
  CHECK(f.lm.NumTrackedKeys() == 0);
}
