// RAII helpers over the Env runtime's Mutex (the engine has no other lock).
#pragma once

#include "shale/env.h"

namespace shale {

// Holds mu for the scope. REQUIRES: mu outlives the MutexLock.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// As MutexLock, but a null mu means "no lock needed" (an optional lock).
// Not annotated: the analysis cannot express a lock that may not be taken.
class MaybeMutexLock {
 public:
  explicit MaybeMutexLock(Mutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS : mu_(mu) {
    if (mu_ != nullptr) mu_->Lock();
  }
  ~MaybeMutexLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (mu_ != nullptr) mu_->Unlock();
  }
  MaybeMutexLock(const MaybeMutexLock&) = delete;
  MaybeMutexLock& operator=(const MaybeMutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Lock and unlock mu if it is not null, for an optional lock held across
// scopes. Not annotated, as MaybeMutexLock.
inline void LockIfAny(Mutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (mu != nullptr) mu->Lock();
}
inline void UnlockIfAny(Mutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  if (mu != nullptr) mu->Unlock();
}

// Releases a held mu for the scope and re-acquires it at the end.
// Not annotated: clang 14's analysis does not model a scope that releases
// and re-acquires, so inside one it still takes mu as held (an access there
// is not checked; everything after the scope is).
class MutexUnlock {
 public:
  explicit MutexUnlock(Mutex* mu) ABSL_NO_THREAD_SAFETY_ANALYSIS : mu_(mu) { mu_->Unlock(); }
  ~MutexUnlock() ABSL_NO_THREAD_SAFETY_ANALYSIS { mu_->Lock(); }
  MutexUnlock(const MutexUnlock&) = delete;
  MutexUnlock& operator=(const MutexUnlock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace shale
