// ForeignThreads: the threads a hosted engine starts on its own
// (pthread_create, std::thread) and its pthread_once controls, answered by
// the simulation. The interposer (hosted/interposer.cc) routes a hosted
// caller's calls here (foreign_sync.h says when a call is hosted).
//
// A thread a hosted caller starts is a task of the simulation, on an OS
// thread of its own as every task is with os_thread_tasks, so it runs only
// when the scheduler picks it. Every task's pthread_t, as hosted code sees
// it (pthread_create's result, pthread_self), is kThreadIdTag plus its task
// id: never an address, so an id, and whatever an engine derives from one
// (a hash that seeds a thread-local generator), repeats from run to run. A
// tagged id is not a canonical address; one that reaches the C library
// faults at once instead of corrupting memory.
//
// Join waits (a scheduling point) until the thread's start routine returns
// and hands back its result. As in glibc: a detached or already joined
// thread is EINVAL, the caller itself EDEADLK, an unknown id ESRCH. A
// thread a crash abandoned was the dead process's: joining it from after
// the crash fails the run as "simulation" (a real restart has no such
// thread, so only state the simulation failed to reset can name it).
// pthread_exit and thread cancellation are not answered.
//
// Once (pthread_once): the control's done state is the C library's own
// (the routine's caller stores it, so calls outside the simulation see it
// too). A caller finding the routine already run returns at once, and the
// first caller runs the routine at once, neither taking a scheduling point,
// exactly as the C library does: libstdc++ runs once-routines of its own in
// a process's first seed only, and a point there would shift that seed's
// schedule. Only a caller that must wait for a routine another task is
// running blocks, until it returns. A routine a crash cut short is run again
// by its next caller, as a restarted process would.
//
// A function-local static's guard (__cxa_guard_acquire and its release and
// abort) is a once control too: the guard's first byte is its done state,
// as libstdc++ keeps it, and a second task reaching a static another task
// is still constructing waits for it as a simulated wait, where libstdc++
// would block the whole process on a futex.
//
// Thread safety: none needed; only the simulation's running task calls in.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/scheduler.h"

namespace shale::sim {

class ForeignThreads {
 public:
  static constexpr uint64_t kThreadIdTag = 0x5a1e'0000'0000'0000ull;
  static constexpr uint64_t kThreadIdTagMask = 0xffff'0000'0000'0000ull;
  static bool IsSimulatedThreadId(uint64_t id) { return (id & kThreadIdTagMask) == kThreadIdTag; }

  // calls: the count of answered calls this adds to (ForeignSync::calls).
  ForeignThreads(Scheduler* scheduler, uint64_t* calls);
  ~ForeignThreads();
  ForeignThreads(const ForeignThreads&) = delete;
  ForeignThreads& operator=(const ForeignThreads&) = delete;

  // Starts start(arg) as a new task and stores its id in *id before the
  // task can run (as glibc does); detached: as with PTHREAD_CREATE_DETACHED.
  // A scheduling point after the start.
  void Start(void* (*start)(void*), void* arg, bool detached, pthread_t* id);
  // The calling task's id.
  uint64_t Self() const;
  // pthread_join, pthread_detach: 0 or an errno value, as above.
  int Join(uint64_t id, void** result);
  int Detach(uint64_t id);
  // pthread_setname_np / pthread_getname_np of a simulated id. A name is at
  // most 15 bytes (ERANGE past it); GetName needs room for 16 with the NUL.
  int SetName(uint64_t id, const char* name);
  int GetName(uint64_t id, char* buffer, size_t length) const;

  // pthread_once. Returns 0.
  int Once(pthread_once_t* control, void (*routine)());
  // __cxa_guard_acquire: false if the static is constructed (perhaps after
  // waiting for the task constructing it); true if the caller must
  // construct it, then call GuardRelease (done) or GuardAbort (it threw).
  bool GuardAcquire(uint64_t* guard);
  // Whether the calling task holds guard from GuardAcquire (in this
  // incarnation): only such a guard is released or aborted here.
  bool RunsGuard(const uint64_t* guard) const;
  void GuardRelease(uint64_t* guard);
  void GuardAbort(uint64_t* guard);

 private:
  struct Thread;
  struct OnceEntry;
  Thread* Find(uint64_t id) const;
  void WaitForOnce(OnceEntry* entry);
  // Waits while another task of this incarnation runs key's routine; false
  // once done() holds, else makes the caller key's runner and returns true.
  bool ClaimOnce(const void* key, const std::function<bool()>& done);
  // Ends key's run (if any) and wakes its waiters.
  void FinishOnce(const void* key);

  Scheduler* const scheduler_;
  uint64_t* const calls_;
  std::map<TaskId, std::unique_ptr<Thread>> threads_;
  std::map<TaskId, std::string> names_;
  std::map<const void*, std::unique_ptr<OnceEntry>> onces_;
  // Entries abandoned tasks may still wait on: kept until the end.
  std::vector<std::unique_ptr<OnceEntry>> retired_onces_;
};

}  // namespace shale::sim
