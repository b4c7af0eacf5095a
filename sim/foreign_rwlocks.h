// ForeignRwLocks: a hosted engine's pthread read-write locks
// (pthread_rwlock_*, std::shared_mutex), answered by the simulation. The
// interposer (hosted/interposer.cc) routes a call here on the rules
// ForeignSync's mutexes follow (foreign_sync.h): a hosted caller, or a lock
// the simulation already answers for.
//
// Each lock is modelled by a simulated one keyed by its address (the
// pthread object's memory is never touched), of glibc's default kind:
// readers preferred, so a reader gets in while a writer waits, and a task
// may take the read lock again while it holds it. A task that holds the
// write lock and locks again gets EDEADLK, as from glibc; one that holds
// the read lock and asks for the write lock waits for good, as with glibc,
// which the scheduler reports as a deadlock. Every call is a scheduling
// point; a blocked caller waits in the simulation (deadlock reports name
// the lock and its holders). An unlock wakes every waiter, oldest first,
// and each tries again when it runs.
//
// Addresses are reused: a lock is forgotten when destroyed or initialized,
// and one last used before a crash is replaced on its next use (the tasks
// that held it were abandoned with the process). Lookups never iterate.
//
// Thread safety: none needed; only the simulation's running task calls in.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/scheduler.h"

namespace shale::sim {

class ForeignRwLocks {
 public:
  // calls: the count of answered calls this adds to (ForeignSync::calls).
  ForeignRwLocks(Scheduler* scheduler, uint64_t* calls);
  ~ForeignRwLocks();
  ForeignRwLocks(const ForeignRwLocks&) = delete;
  ForeignRwLocks& operator=(const ForeignRwLocks&) = delete;

  // Whether a lock at this address was used here since the last crash.
  bool Knows(const void* rwlock) const;
  // Whether the calling task holds it, for reading or writing.
  bool Holds(const void* rwlock) const;

  // pthread_rwlock_rdlock / wrlock (0 or EDEADLK), tryrdlock / trywrlock
  // (0, EBUSY or EDEADLK), unlock (0; REQUIRES: Holds).
  int Lock(const void* rwlock, bool write);
  int TryLock(const void* rwlock, bool write);
  int Unlock(const void* rwlock);
  // pthread_rwlock_init / destroy: the next lock at this address is new.
  void Forget(const void* rwlock);

 private:
  struct RwLock;
  RwLock* At(const void* rwlock);
  // Counts the call, takes the scheduling point, then finds the lock.
  RwLock* Begin(const void* rwlock, const char* point);
  const RwLock* Find(const void* rwlock) const;

  Scheduler* const scheduler_;
  uint64_t* const calls_;
  uint64_t next_id_ = 0;
  std::unordered_map<const void*, std::unique_ptr<RwLock>> locks_;
  // Replaced locks abandoned tasks may still wait on: kept until the end.
  std::vector<std::unique_ptr<RwLock>> retired_;
};

}  // namespace shale::sim
