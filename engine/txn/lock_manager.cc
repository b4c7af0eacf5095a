// LockManager (see lock_manager.h).
#include "txn/lock_manager.h"

#include <limits>

#include "shale/options.h"
#include "util/check.h"
#include "util/mutexlock.h"

namespace shale {

namespace {

// The clock reading timeout_ns from now, saturating at the clock's end.
uint64_t DeadlineFor(Clock* clock, uint64_t timeout_ns) {
  const uint64_t bounded_ns = timeout_ns < kMaxLockTimeoutNs ? timeout_ns : kMaxLockTimeoutNs;
  const uint64_t now = clock->NowNanos();
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  return now > max - bounded_ns ? max : now + bounded_ns;
}

std::string TxnName(uint64_t txn_id) { return "txn " + std::to_string(txn_id); }

}  // namespace

LockManager::LockManager(Runtime* runtime, Clock* clock, const LockManagerOptions& options)
    : runtime_(runtime), clock_(clock), options_(options), mu_(runtime->NewMutex()) {
  SHALE_CHECK(runtime_ != nullptr && clock_ != nullptr);
  SHALE_CHECK(options_.deadlock_detect_depth >= 0);
}

LockManager::~LockManager() {
  MutexLock l(mu_.get());
  CheckInvariantsLocked();
  SHALE_CHECK(waits_for_.empty());  // a thread is still inside Lock()
  for (const auto& [key, entry] : locks_) {
    (void)key;
    SHALE_CHECK(entry.num_waiters == 0 && entry.cv == nullptr);
    (void)entry;
  }
}

Status LockManager::Lock(uint64_t txn_id, const std::string& key, uint64_t timeout_ns,
                         bool deadlock_detect) {
  MutexLock l(mu_.get());
  SHALE_CHECK(waits_for_.count(txn_id) == 0);  // one Lock() per txn at a time
  const auto it = locks_.find(key);
  Status s;
  if (it == locks_.end() || !it->second.held) {
    s = AcquireFreeLocked(txn_id, key, it);
  } else if (it->second.holder == txn_id) {
    s = Status::OK();  // re-entrant: already ours
  } else if (timeout_ns == 0) {
    s = Status::TimedOut("lock timeout: key held by " + TxnName(it->second.holder) +
                         ", no wait requested by " + TxnName(txn_id));
  } else {
    s = WaitLocked(txn_id, it, timeout_ns, deadlock_detect);
  }
  CheckInvariantsLocked();
  return s;
}

Status LockManager::AcquireFreeLocked(uint64_t txn_id, const std::string& key,
                                      LockMap::iterator it) {
  SHALE_CHECK(it == locks_.end() || !it->second.held);
  if (num_held_ >= options_.max_num_locks) {
    return Status::Busy("lock limit: " + std::to_string(num_held_) +
                        " keys locked (max_num_locks " + std::to_string(options_.max_num_locks) +
                        ")");
  }
  if (it == locks_.end()) it = locks_.try_emplace(key).first;
  it->second.held = true;
  it->second.holder = txn_id;
  num_held_++;
  SHALE_CHECK(num_held_ <= options_.max_num_locks);
  return Status::OK();
}

Status LockManager::WaitLocked(uint64_t txn_id, LockMap::iterator it, uint64_t timeout_ns,
                               bool deadlock_detect) {
  LockEntry& entry = it->second;
  SHALE_CHECK(entry.held && entry.holder != txn_id && timeout_ns > 0);
  const uint64_t deadline_ns = DeadlineFor(clock_, timeout_ns);
  // Registered as a waiter, the entry (and `entry`) cannot be erased under us.
  if (entry.num_waiters == 0) {
    SHALE_CHECK(entry.cv == nullptr);
    entry.cv = runtime_->NewCondVar(mu_.get());
  }
  entry.num_waiters++;

  Status s;
  bool have_edge = false;
  uint64_t edge_holder = 0;  // the holder our edge points to, when have_edge
  bool timed_out = false;
  for (;;) {
    if (!entry.held) {  // free: take it, even at the deadline
      s = AcquireFreeLocked(txn_id, it->first, it);
      break;
    }
    SHALE_CHECK(entry.holder != txn_id);
    if (timed_out) {
      s = Status::TimedOut("lock timeout: " + TxnName(txn_id) + " waited for a key held by " +
                           TxnName(entry.holder));
      break;
    }
    if (!have_edge || entry.holder != edge_holder) {
      // Starting to wait, or the holder changed: our edge is new.
      const WaitCheck check =
          deadlock_detect ? CheckWaitLocked(txn_id, entry.holder) : WaitCheck::kNoDeadlock;
      if (check != WaitCheck::kNoDeadlock) {
        deadlocks_detected_++;
        s = Status::Busy(check == WaitCheck::kCycle
                             ? "deadlock: " + TxnName(txn_id) + " waiting for " +
                                   TxnName(entry.holder) + " would close a wait-for cycle"
                             : "deadlock: wait-for chain from " + TxnName(entry.holder) +
                                   " is longer than deadlock_detect_depth " +
                                   std::to_string(options_.deadlock_detect_depth));
        break;
      }
      waits_for_[txn_id] = entry.holder;
      have_edge = true;
      edge_holder = entry.holder;
    }
    timed_out = entry.cv->TimedWait(deadline_ns);
  }

  // The wait is over, whatever ended it: drop the edge and the waiter count.
  waits_for_.erase(txn_id);
  SHALE_CHECK(entry.num_waiters > 0);
  entry.num_waiters--;
  if (entry.num_waiters == 0) entry.cv.reset();
  if (!entry.held && entry.num_waiters == 0) locks_.erase(it);  // only if we failed
  return s;
}

LockManager::WaitCheck LockManager::CheckWaitLocked(uint64_t txn_id, uint64_t holder) const {
  uint64_t current = holder;
  for (int followed = 0;; followed++) {
    const auto edge = waits_for_.find(current);
    if (edge == waits_for_.end()) return WaitCheck::kNoDeadlock;  // chain ends
    if (followed == options_.deadlock_detect_depth) return WaitCheck::kTooDeep;
    current = edge->second;
    if (current == txn_id) return WaitCheck::kCycle;
  }
}

void LockManager::UnlockAll(uint64_t txn_id, const std::vector<std::string>& keys) {
  MutexLock l(mu_.get());
  for (const std::string& key : keys) {
    const auto it = locks_.find(key);
    if (it == locks_.end() || !it->second.held || it->second.holder != txn_id) continue;
    LockEntry& entry = it->second;
    entry.held = false;
    SHALE_CHECK(num_held_ > 0);
    if (entry.num_waiters > 0) {
      num_held_--;
      entry.cv->SignalAll();  // every waiter re-checks: one takes it, the rest see the new holder
    } else {
      // Planted bug: the count of a lock no one waits for stays up.
      if ((options_.planted_bugs & kBugUnlockLeaksHeldCount) == 0) num_held_--;
      locks_.erase(it);
    }
  }
  CheckInvariantsLocked();
}

size_t LockManager::NumLockedKeys() const {
  MutexLock l(mu_.get());
  return num_held_;
}

size_t LockManager::NumTrackedKeys() const {
  MutexLock l(mu_.get());
  return locks_.size();
}

uint64_t LockManager::DeadlocksDetected() const {
  MutexLock l(mu_.get());
  return deadlocks_detected_;
}

bool LockManager::IsWaiting(uint64_t txn_id) const {
  MutexLock l(mu_.get());
  return waits_for_.count(txn_id) != 0;
}

bool LockManager::IsHeldBy(const std::string& key, uint64_t txn_id) const {
  MutexLock l(mu_.get());
  const auto it = locks_.find(key);
  return it != locks_.end() && it->second.held && it->second.holder == txn_id;
}

void LockManager::CheckInvariantsLocked() const {
  SHALE_CHECK(num_held_ <= options_.max_num_locks);
  SHALE_CHECK(num_held_ <= locks_.size());
#ifndef NDEBUG
  // The full scan is O(keys): debug builds only, and only while small.
  constexpr size_t kMaxKeysForFullCheck = 4096;
  if (locks_.size() > kMaxKeysForFullCheck) return;
  size_t held = 0;
  size_t waiters = 0;
  for (const auto& [key, entry] : locks_) {
    (void)key;
    SHALE_CHECK(entry.held || entry.num_waiters > 0);  // no stale entries
    SHALE_CHECK((entry.num_waiters > 0) == (entry.cv != nullptr));
    if (entry.held) held++;
    waiters += entry.num_waiters;
  }
  SHALE_CHECK(held == num_held_);
  // Called only by a thread that is not waiting, while every waiter sits in
  // TimedWait (it releases mu_ nowhere else) with its edge set.
  SHALE_CHECK(waits_for_.size() == waiters);
#endif
}

}  // namespace shale
