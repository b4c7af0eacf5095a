// LockManager: exclusive per-key locks for pessimistic transactions, with
// lock-wait timeouts and deadlock detection (the semantics of RocksDB's
// PointLockManager, exclusive locks only).
//
// A key is held by at most one transaction (txn id) at a time. A transaction
// that asks for a key another one holds waits, up to its timeout, on a
// Runtime condition variable of that key. While it waits it has one edge in
// the wait-for graph: waiter -> current holder. Each transaction waits for at
// most one key at a time, so from any transaction the graph is a single chain
// and deadlock detection follows that chain:
//   * it reaches the waiter          -> a cycle: Busy("deadlock ...");
//   * it ends (a txn that is not waiting) -> no deadlock: wait;
//   * it is still going after deadlock_detect_depth edges -> treated as a
//     deadlock (Busy), as RocksDB does.
// The check runs when a transaction starts to wait and again whenever it
// wakes and finds that the key's holder changed (its edge then points to a
// new transaction, which may already be waiting on the chain back to it).
// A waiter whose key is free when it wakes takes it, even at its deadline.
// A key freed by UnlockAll may be taken by a newcomer before its waiters run
// (no FIFO fairness).
//
// Bookkeeping is exact: an entry exists only for a key that is held or has a
// waiter, and a wait-for edge only while its transaction is inside Lock().
// A wait that ends for any reason (acquired, timed out, deadlock, lock limit)
// removes its edge and its waiter count. Keys are ordered (std::map) and
// transactions are named by id, so nothing observable depends on addresses.
//
// Limits: at most options.max_num_locks keys are held at once (over all
// transactions); one more is Busy("lock limit ..."). Entries beyond the held
// keys exist only for keys with waiters, at most one per waiting transaction.
// A timeout is capped at kMaxLockTimeoutNs.
//
// Ownership: the manager does not own runtime or clock.
// Thread safety: every method takes the manager's one Runtime mutex; all are
// safe to call concurrently. REQUIRES: a transaction calls Lock() from one
// thread at a time (a txn waits for at most one key).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shale/env.h"
#include "shale/status.h"

namespace shale {

struct LockManagerOptions {
  // Keys held at once, over all transactions; one more is Busy("lock limit").
  // 0 makes every new lock fail.
  size_t max_num_locks = 1 << 20;
  // Wait-for edges followed from the holder before giving up and treating the
  // wait as a deadlock. A two-txn cycle needs depth 1, an n-txn cycle n-1.
  // REQUIRES: >= 0 (0: any wait behind a waiting holder is a deadlock).
  int deadlock_detect_depth = 50;
  // Options::planted_bugs (TEST ONLY): kBugUnlockLeaksHeldCount.
  uint64_t planted_bugs = 0;
};

// Timeouts above this (about 146 years) are treated as this.
inline constexpr uint64_t kMaxLockTimeoutNs = uint64_t{1} << 62;

class LockManager {
 public:
  // REQUIRES: runtime and clock outlive the manager; clock is the Clock of
  // the same Env as runtime (condvar deadlines are on it).
  LockManager(Runtime* runtime, Clock* clock, const LockManagerOptions& options);
  // REQUIRES: no thread is inside Lock(). Keys still held are dropped.
  ~LockManager();

  LockManager(const LockManager&) = delete;
  LockManager& operator=(const LockManager&) = delete;

  // Acquires key for txn_id; re-acquiring a key txn_id holds is OK and a
  // no-op. If another txn holds it: with timeout_ns == 0 fails at once with
  // TimedOut (no deadlock check); otherwise waits until the clock reaches
  // NowNanos() + timeout_ns. Returns
  //   OK                      - txn_id holds key;
  //   TimedOut("lock timeout") - the deadline passed with key still held;
  //   Busy("deadlock ...")     - deadlock_detect and waiting would close a
  //                              cycle (or the chain is too deep, see above);
  //   Busy("lock limit ...")   - key is free but max_num_locks keys are held.
  // On any non-OK result txn_id holds nothing new and is not waiting.
  // REQUIRES: no other call to Lock() for txn_id is in progress.
  [[nodiscard]] Status Lock(uint64_t txn_id, const std::string& key, uint64_t timeout_ns,
                            bool deadlock_detect);

  // Releases those of keys that txn_id holds (others, and duplicates, are
  // ignored) and wakes the waiters of each released key.
  void UnlockAll(uint64_t txn_id, const std::vector<std::string>& keys);

  // For tests and stats. Each is a snapshot, stale as soon as it returns.
  // Keys held by some txn.
  size_t NumLockedKeys() const;
  // Keys held or waited for (NumLockedKeys() when nobody waits).
  size_t NumTrackedKeys() const;
  // Lock() calls that returned Busy("deadlock ...") so far.
  uint64_t DeadlocksDetected() const;
  // True while txn_id is waiting inside Lock() (it has a wait-for edge).
  bool IsWaiting(uint64_t txn_id) const;
  // True if txn_id holds key.
  bool IsHeldBy(const std::string& key, uint64_t txn_id) const;

 private:
  struct LockEntry {
    bool held = false;
    uint64_t holder = 0;  // meaningful only when held
    uint32_t num_waiters = 0;
    // Waiters of this key wait here; exists exactly while num_waiters > 0.
    std::unique_ptr<CondVar> cv;
  };
  using LockMap = std::map<std::string, LockEntry>;

  enum class WaitCheck { kNoDeadlock, kCycle, kTooDeep };

  // Makes txn_id the holder of the free key (creating its entry if it is
  // end()), or returns Busy("lock limit").
  // REQUIRES: mu_ held; it is end() or an entry that is not held.
  Status AcquireFreeLocked(uint64_t txn_id, const std::string& key, LockMap::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Waits for the held key at it; see Lock(). REQUIRES: mu_ held; it->second
  // held by a txn other than txn_id; timeout_ns > 0.
  Status WaitLocked(uint64_t txn_id, LockMap::iterator it, uint64_t timeout_ns,
                    bool deadlock_detect) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether an edge txn_id -> holder would close a cycle. REQUIRES: mu_ held.
  WaitCheck CheckWaitLocked(uint64_t txn_id, uint64_t holder) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Debug builds: counts and edges agree with the entries. REQUIRES: mu_ held.
  void CheckInvariantsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Runtime* const runtime_;
  Clock* const clock_;
  const LockManagerOptions options_;
  const std::unique_ptr<Mutex> mu_;

  LockMap locks_ ABSL_GUARDED_BY(mu_);
  // waiter txn -> the txn holding the key it waits for.
  std::map<uint64_t, uint64_t> waits_for_ ABSL_GUARDED_BY(mu_);
  size_t num_held_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t deadlocks_detected_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace shale
