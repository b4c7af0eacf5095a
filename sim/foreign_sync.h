// ForeignSync: the pthread mutexes and condition variables, clocks, sleeps
// and yields of a hosted engine's code (an engine Shale did not write),
// answered by the simulation instead of the OS; and, through the models it
// owns (foreign_rwlocks.h, foreign_threads.h), its read-write locks,
// threads and once-controls.
//
// The interposer (hosted/interposer.cc) routes a call here when it comes
// from a hosted library's code on a thread of a simulation's task (tasks run
// on ThreadFibers then: SimulationOptions::os_thread_tasks). Each pthread
// object is modelled by a simulated one keyed by its address: the pthread
// object's own memory is never read or written, so its real state stays
// whatever its initializer left (a once-control's done state is the one
// exception: foreign_threads.h). Every call is a scheduling point, as the
// engine's own Mutex and CondVar calls are (sim_runtime.h has their rules:
// FIFO waiters, no spurious wakeups, timed waits on the simulated clock).
//
// Addresses are reused: a freed mutex's memory may hold another later. An
// object is forgotten when destroyed (pthread_*_destroy), and every object
// last used before a crash is replaced by a fresh one on its next use, since
// the threads that held or waited on it were abandoned with the process.
// Lookups never iterate the map, so its order cannot reach the trace.
//
// Thread safety: none needed; only the simulation's running task calls in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "shale/env.h"
#include "sim/foreign_rwlocks.h"
#include "sim/foreign_threads.h"
#include "sim/scheduler.h"

namespace shale::sim {

class SimRuntime;

class ForeignSync {
 public:
  // Realtime clock reads answer this plus the simulated time: 2020-01-01.
  static constexpr uint64_t kRealtimeEpochNanos = 1'577'836'800'000'000'000ull;

  ForeignSync(Scheduler* scheduler, SimRuntime* runtime, const uint64_t* now_ns);
  ~ForeignSync();
  ForeignSync(const ForeignSync&) = delete;
  ForeignSync& operator=(const ForeignSync&) = delete;

  // The ForeignSync of the simulation whose task runs on the calling
  // thread, or nullptr on every other thread, on a thread fiber whose body
  // has returned, and while this one updates its maps (the allocator's
  // own pthread calls made meanwhile go on to the C library).
  static ForeignSync* ForThisThread();
  // Marks the calling thread as one of this simulation's tasks.
  void BindThisThread();
  // The ForeignSync the calling task's thread is bound to, even while its
  // maps are updated; nullptr off a task's thread. For checks only.
  static ForeignSync* BoundToThisThread();
  // The hosting layer let a hosted call through that the simulation must
  // answer (what names it): the run fails as "simulation" and the task
  // never runs again. REQUIRES: called from a task.
  [[noreturn]] void HostingGap(const std::string& what);

  // The hosted code that called pthread_mutex_lock holds the simulated
  // mutex after Lock returns and gives it back through Unlock, so neither
  // can be checked by clang's lock analysis.
  void Lock(const void* mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS;
  void Unlock(const void* mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS;
  // pthread_mutex_trylock: a scheduling point, then takes the mutex if no
  // task holds it (the caller included, as for glibc's default mutex).
  // Returns whether it did.
  bool TryLock(const void* mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS;
  // Whether the calling task holds mutex here (Lock without Unlock since).
  bool Holds(const void* mutex) const;
  // Whether an object at this address was used here since the last crash
  // (and not destroyed): its next calls must come here too, whoever makes
  // them (a tail call hides a hosted caller from the interposer).
  bool KnowsMutex(const void* mutex) const;
  bool KnowsCond(const void* cond) const;
  // Waits on cond, releasing mutex meanwhile; deadline_ns on the simulated
  // clock, or UINT64_MAX for none. Returns true if it timed out.
  // REQUIRES: the calling task holds mutex.
  bool Wait(const void* cond, const void* mutex, uint64_t deadline_ns);
  void Signal(const void* cond);
  void Broadcast(const void* cond);
  // pthread_*_destroy: the next object at this address is a new one.
  void Forget(const void* object);

  // A clock read: a scheduling point, then the simulated time.
  uint64_t NowNanos();
  void SleepNanos(uint64_t ns);
  void Yield();
  // An assertion failed inside the engine: the run fails with message
  // (never taken for an injected crash) and the task never runs again.
  [[noreturn]] void AssertionFailed(const std::string& message);

  // Read-write locks, and the threads and once-controls of hosted code.
  ForeignRwLocks* rwlocks() { return &rwlocks_; }
  ForeignThreads* threads() { return &threads_; }

  // Calls answered so far, for reports.
  uint64_t calls() const { return calls_; }

 private:
  struct MutexEntry {
    std::unique_ptr<Mutex> mutex;
    uint64_t incarnation = 0;
    TaskId owner = kNoTask;
  };
  struct CondEntry {
    std::unique_ptr<CondVar> cond;
    const void* bound_mutex = nullptr;
    uint64_t incarnation = 0;
  };
  MutexEntry* MutexAt(const void* address);
  CondVar* CondAt(const void* cond, const void* mutex);

  Scheduler* const scheduler_;
  SimRuntime* const runtime_;
  const uint64_t* const now_ns_;
  std::unordered_map<const void*, MutexEntry> mutexes_;
  std::unordered_map<const void*, CondEntry> conds_;
  // Objects replaced while abandoned tasks may still name them in their
  // wait queues: kept until the simulation ends.
  std::vector<std::unique_ptr<Mutex>> retired_mutexes_;
  std::vector<std::unique_ptr<CondVar>> retired_conds_;
  uint64_t calls_ = 0;
  ForeignRwLocks rwlocks_;
  ForeignThreads threads_;
};

}  // namespace shale::sim
