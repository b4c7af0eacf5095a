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

// As MutexLock, but a null mu means "no lock needed" (an optional lock).
class MaybeMutexLock {
 public:
  explicit MaybeMutexLock(Mutex* mu) : mu_(mu) {
    if (mu_ != nullptr) mu_->Lock();
  }
  ~MaybeMutexLock() {
    if (mu_ != nullptr) mu_->Unlock();
  }
  MaybeMutexLock(const MaybeMutexLock&) = delete;
  MaybeMutexLock& operator=(const MaybeMutexLock&) = delete;

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
