// RAII helpers over the Env runtime's Mutex (the engine has no other lock).
#pragma once

#include "shale/env.h"

namespace shale {

// Holds mu for the scope. REQUIRES: mu outlives the MutexLock.
class MutexLock {
 public:
  explicit MutexLock(Mutex* mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Releases a held mu for the scope and re-acquires it at the end.
class MutexUnlock {
 public:
  explicit MutexUnlock(Mutex* mu) : mu_(mu) { mu_->Unlock(); }
  ~MutexUnlock() { mu_->Lock(); }
  MutexUnlock(const MutexUnlock&) = delete;
  MutexUnlock& operator=(const MutexUnlock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace shale
