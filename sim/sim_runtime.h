// SimRuntime and SimClock: the engine's Runtime and Clock seams (shale/env.h)
// implemented on the Scheduler. Every Runtime call is a scheduling point.
//
//  * Mutex: an owner and a FIFO of waiters. Lock() blocks while another task
//    owns it; Unlock() makes the oldest waiter runnable, and that waiter
//    re-acquires when it runs (another task may take the mutex first, and
//    then the waiter queues again at the front).
//  * CondVar: Wait() releases the mutex, blocks until signalled, then
//    re-locks. TimedWait(deadline) also wakes at the deadline (simulated
//    clock) and returns true if it timed out. Signal() wakes the oldest
//    waiter; SignalAll() all of them. No spurious wakeups are produced.
//  * Thread: a task; Join() blocks until it finishes.
//  * SleepForMicroseconds: blocks on a timer in simulated time.
//  * YieldPoint(name): a scheduling point; the name is folded into the trace.
//  * FaultPoint(name): asks the hook (Simulation::set_fault_point_hook);
//    false without one. Not a scheduling point; name and answer are folded.
//
// Mutexes and condvars are numbered in creation order (mutex#N, condvar#N)
// for deadlock reports. REQUIRES: every call except New*/NowNanos is made
// from a task of the owning Simulation.
// Thread safety: none (one task runs at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "shale/env.h"
#include "sim/scheduler.h"

namespace shale::sim {

class SimClock final : public Clock {
 public:
  explicit SimClock(const uint64_t* now_ns) : now_ns_(now_ns) {}
  uint64_t NowNanos() override { return *now_ns_; }

 private:
  const uint64_t* now_ns_;
};

class SimRuntime final : public Runtime {
 public:
  // preempt_one_in, preempt_max_us: as in SimulationOptions; draws come
  // from tape.
  SimRuntime(Scheduler* scheduler, TraceHash* trace, const uint64_t* now_ns, ChoiceTape* tape,
             uint64_t preempt_one_in, uint64_t preempt_max_us)
      : scheduler_(scheduler),
        trace_(trace),
        now_ns_(now_ns),
        tape_(tape),
        preempt_one_in_(preempt_one_in),
        preempt_max_us_(preempt_max_us > 0 ? preempt_max_us : 1) {}

  std::unique_ptr<Mutex> NewMutex() override;
  std::unique_ptr<CondVar> NewCondVar(Mutex* mu) override;
  std::unique_ptr<Thread> StartThread(const std::string& name, std::function<void()> fn) override;
  void SleepForMicroseconds(uint64_t micros) override;
  void YieldPoint(const char* name) override;
  bool FaultPoint(const char* name) override;

  // Takes mu for the calling task if no task holds it, without a
  // scheduling point (the caller takes one first); returns whether it did.
  // REQUIRES: mu is from a SimRuntime (NewMutex); called from a task.
  static bool TryAcquire(Mutex* mu);

  // Suspends the calling task for ns of simulated time (0: just a point).
  void SleepNanos(uint64_t ns, const char* what);
  void set_fault_point_hook(std::function<bool(const char*)> hook) { hook_ = std::move(hook); }

  Scheduler* scheduler() const { return scheduler_; }
  uint64_t now_ns() const { return *now_ns_; }

 private:
  Scheduler* const scheduler_;
  TraceHash* const trace_;
  const uint64_t* const now_ns_;
  ChoiceTape* const tape_;
  const uint64_t preempt_one_in_;  // 0: no preemption
  const uint64_t preempt_max_us_;
  uint64_t next_mutex_id_ = 0;
  uint64_t next_condvar_id_ = 0;
  std::function<bool(const char*)> hook_;
};

}  // namespace shale::sim
