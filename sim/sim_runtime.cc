// SimRuntime, SimMutex, SimCondVar, SimThread: see sim_runtime.h.
#include "sim/sim_runtime.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>

namespace shale::sim {

namespace {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "shale sim runtime: %s\n", what);
  std::abort();
}

std::string TaskLabel(const Scheduler& scheduler, TaskId id) {
  return "task " + std::to_string(id) + " '" + scheduler.task_name(id) + "'";
}

// Pops ids off the front of queue until one is still blocked, and wakes it.
// Ids that are no longer blocked (finished, abandoned, or woken by a timer)
// are dropped. Returns whether a task was woken.
bool WakeOldest(Scheduler* scheduler, std::deque<TaskId>* queue) {
  while (!queue->empty()) {
    const TaskId id = queue->front();
    queue->pop_front();
    if (scheduler->blocked(id)) {
      scheduler->Wake(id);
      return true;
    }
  }
  return false;
}

class SimMutex final : public Mutex, public Waitable {
 public:
  SimMutex(Scheduler* scheduler, uint64_t id) : scheduler_(scheduler), id_(id) {}

  void Lock() override {
    scheduler_->Point("mutex.lock");
    Acquire();
  }
  void Unlock() override {
    Release();
    scheduler_->Point("mutex.unlock");
  }
  void AssertHeld() override {
    if (owner_ != scheduler_->current()) Die("mutex not held by the calling task");
  }

  // Takes the mutex, blocking while another task owns it. No point first.
  void Acquire() {
    const TaskId me = scheduler_->current();
    // A task that locks a mutex it holds waits for itself forever (what a
    // default pthread mutex does): the run fails as a deadlock, with a
    // verdict and a trace, where a real thread would hang. The mutex goes
    // unnamed: a hosted engine's mutex ids follow its heap addresses.
    if (owner_ == me) {
      scheduler_->FailFromTask("deadlock: " + TaskLabel(*scheduler_, me) +
                               " locks a non-recursive mutex it already holds");
    }
    bool queued_before = false;
    while (owner_ != kNoTask) {
      // A woken waiter that lost the race keeps its place at the front.
      if (queued_before) {
        waiters_.push_front(me);
      } else {
        waiters_.push_back(me);
      }
      queued_before = true;
      scheduler_->Block(WaitKind::kMutex, this);
      scheduler_->Point("mutex.wait");
    }
    owner_ = me;
  }
  // Takes the mutex if it is free. No point.
  bool TryAcquire() {
    if (owner_ != kNoTask) return false;
    owner_ = scheduler_->current();
    return true;
  }
  // Gives the mutex up and wakes the oldest waiter. No point.
  void Release() {
    if (owner_ != scheduler_->current()) Die("Unlock by a task that does not hold the mutex");
    owner_ = kNoTask;
    WakeOldest(scheduler_, &waiters_);
  }

  std::string Describe() const override {
    std::string out = "mutex#" + std::to_string(id_);
    if (owner_ == kNoTask) return out + " (free)";
    return out + " (held by " + TaskLabel(*scheduler_, owner_) + ")";
  }

 private:
  Scheduler* const scheduler_;
  const uint64_t id_;
  TaskId owner_ = kNoTask;
  std::deque<TaskId> waiters_;
};

class SimCondVar final : public CondVar, public Waitable {
 public:
  SimCondVar(Scheduler* scheduler, SimMutex* mu, uint64_t id)
      : scheduler_(scheduler), mu_(mu), id_(id) {}

  void Wait() override { (void)WaitUntil(std::numeric_limits<uint64_t>::max(), false); }
  bool TimedWait(uint64_t deadline_nanos) override { return WaitUntil(deadline_nanos, true); }
  void Signal() override {
    WakeOldest(scheduler_, &waiters_);
    scheduler_->Point("condvar.signal");
  }
  void SignalAll() override {
    while (WakeOldest(scheduler_, &waiters_)) {
    }
    scheduler_->Point("condvar.signal_all");
  }

  std::string Describe() const override {
    return "condvar#" + std::to_string(id_) + " of " + mu_->Describe();
  }

 private:
  bool WaitUntil(uint64_t deadline_ns, bool timed) {
    mu_->AssertHeld();
    const TaskId me = scheduler_->current();
    waiters_.push_back(me);
    mu_->Release();
    scheduler_->Block(WaitKind::kCondVar, this);
    if (timed) scheduler_->SetTimer(deadline_ns);
    scheduler_->Point("condvar.wait");
    const bool timed_out = timed && scheduler_->TakeTimedOut();
    if (timed_out) std::erase(waiters_, me);
    mu_->Acquire();
    return timed_out;
  }

  Scheduler* const scheduler_;
  SimMutex* const mu_;
  const uint64_t id_;
  std::deque<TaskId> waiters_;
};

class SimThread final : public Thread, public Waitable {
 public:
  SimThread(Scheduler* scheduler, TaskId task) : scheduler_(scheduler), task_(task) {}
  ~SimThread() override { assert(joined_ && "SimThread destroyed without Join()"); }

  void Join() override {
    if (joined_) Die("Join called twice");
    joined_ = true;
    scheduler_->Point("thread.join");
    if (scheduler_->finished(task_)) return;
    scheduler_->AddJoiner(task_, scheduler_->current());
    scheduler_->Block(WaitKind::kJoin, this);
    scheduler_->Point("thread.join_wait");
  }

  std::string Describe() const override { return "join of " + TaskLabel(*scheduler_, task_); }

 private:
  Scheduler* const scheduler_;
  const TaskId task_;
  bool joined_ = false;
};

}  // namespace

std::unique_ptr<Mutex> SimRuntime::NewMutex() {
  return std::make_unique<SimMutex>(scheduler_, next_mutex_id_++);
}

std::unique_ptr<CondVar> SimRuntime::NewCondVar(Mutex* mu) {
  auto* sim_mu = dynamic_cast<SimMutex*>(mu);
  if (sim_mu == nullptr) Die("NewCondVar: the mutex is not from this runtime");
  return std::make_unique<SimCondVar>(scheduler_, sim_mu, next_condvar_id_++);
}

bool SimRuntime::TryAcquire(Mutex* mu) {
  auto* sim_mu = dynamic_cast<SimMutex*>(mu);
  if (sim_mu == nullptr) Die("TryAcquire: the mutex is not from a SimRuntime");
  return sim_mu->TryAcquire();
}

std::unique_ptr<Thread> SimRuntime::StartThread(const std::string& name, std::function<void()> fn) {
  const TaskId id = scheduler_->Spawn(name, std::move(fn));
  auto thread = std::make_unique<SimThread>(scheduler_, id);
  scheduler_->Point("thread.start");
  return thread;
}

void SimRuntime::SleepForMicroseconds(uint64_t micros) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  SleepNanos(micros > max / 1000 ? max : micros * 1000, "sleep");
}

void SimRuntime::SleepNanos(uint64_t ns, const char* what) {
  if (ns > 0) {
    const uint64_t now = *now_ns_;
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    scheduler_->Block(WaitKind::kSleep, nullptr);
    scheduler_->SetTimer(ns > max - now ? max : now + ns);
  }
  scheduler_->Point(what);
  if (ns > 0) (void)scheduler_->TakeTimedOut();
}

void SimRuntime::YieldPoint(const char* name) {
  scheduler_->NotePoint(name);
  trace_->Fold(name);
  if (preempt_one_in_ > 0 && tape_->OneIn(preempt_one_in_)) {
    const uint64_t us = 1 + tape_->Uniform(preempt_max_us_);
    trace_->Fold(us);
    if (scheduler_->tracing()) {
      scheduler_->TraceEvent("preempted: " + scheduler_->task_name(scheduler_->current()) + " at " +
                             name + " for " + std::to_string(us) + " us");
    }
    return SleepNanos(us * 1000, name);
  }
  scheduler_->Point(name);
}

bool SimRuntime::FaultPoint(const char* name) {
  const bool fire = hook_ ? hook_(name) : false;
  trace_->Fold(name);
  trace_->Fold(fire ? 1 : 0);
  return fire;
}

}  // namespace shale::sim
