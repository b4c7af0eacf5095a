// ForeignSync: see foreign_sync.h.
#include "sim/foreign_sync.h"

#include <limits>
#include <utility>

#include "sim/foreign_maps.h"
#include "sim/sim_runtime.h"
#include "sim/thread_fiber.h"

namespace shale::sim {

namespace {

thread_local ForeignSync* bound_sync = nullptr;
thread_local int updating_maps = 0;

}  // namespace

UpdatingForeignMaps::UpdatingForeignMaps() { updating_maps++; }
UpdatingForeignMaps::~UpdatingForeignMaps() { updating_maps--; }
bool UpdatingForeignMaps::Active() { return updating_maps != 0; }

ForeignSync::ForeignSync(Scheduler* scheduler, SimRuntime* runtime, const uint64_t* now_ns)
    : scheduler_(scheduler),
      runtime_(runtime),
      now_ns_(now_ns),
      rwlocks_(scheduler, &calls_),
      threads_(scheduler, &calls_) {}

ForeignSync::~ForeignSync() = default;

ForeignSync* ForeignSync::ForThisThread() {
  // A thread fiber whose body has returned may outlive its simulation (its
  // thread-local destructors, the allocator's among them, run after the
  // host was handed back): its calls go on to the C library.
  if (UpdatingForeignMaps::Active() || ThreadFiber::Current() == nullptr) return nullptr;
  return bound_sync;
}

void ForeignSync::BindThisThread() { bound_sync = this; }

ForeignSync* ForeignSync::BoundToThisThread() {
  return ThreadFiber::Current() == nullptr ? nullptr : bound_sync;
}

void ForeignSync::HostingGap(const std::string& what) {
  scheduler_->FailFromTask("simulation: " + what);
}

ForeignSync::MutexEntry* ForeignSync::MutexAt(const void* address) {
  const UpdatingForeignMaps updating;
  MutexEntry& entry = mutexes_[address];
  if (entry.mutex != nullptr && entry.incarnation != scheduler_->incarnation()) {
    retired_mutexes_.push_back(std::move(entry.mutex));
  }
  if (entry.mutex == nullptr) {
    entry.mutex = runtime_->NewMutex();
    entry.incarnation = scheduler_->incarnation();
    entry.owner = kNoTask;
  }
  return &entry;
}

bool ForeignSync::Holds(const void* mutex) const {
  const auto it = mutexes_.find(mutex);
  return it != mutexes_.end() && it->second.incarnation == scheduler_->incarnation() &&
         it->second.owner == scheduler_->current();
}

bool ForeignSync::KnowsMutex(const void* mutex) const {
  const auto it = mutexes_.find(mutex);
  return it != mutexes_.end() && it->second.incarnation == scheduler_->incarnation();
}

bool ForeignSync::KnowsCond(const void* cond) const {
  const auto it = conds_.find(cond);
  return it != conds_.end() && it->second.incarnation == scheduler_->incarnation();
}

CondVar* ForeignSync::CondAt(const void* cond, const void* mutex) {
  const UpdatingForeignMaps updating;
  CondEntry& entry = conds_[cond];
  const bool stale = entry.incarnation != scheduler_->incarnation();
  if (entry.cond != nullptr && (stale || entry.bound_mutex != mutex)) {
    retired_conds_.push_back(std::move(entry.cond));
  }
  if (entry.cond == nullptr) {
    entry.cond = runtime_->NewCondVar(MutexAt(mutex)->mutex.get());
    entry.bound_mutex = mutex;
    entry.incarnation = scheduler_->incarnation();
  }
  return entry.cond.get();
}

void ForeignSync::Lock(const void* mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  calls_++;
  MutexEntry* entry = MutexAt(mutex);
  entry->mutex->Lock();
  entry->owner = scheduler_->current();
}

bool ForeignSync::TryLock(const void* mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  calls_++;
  scheduler_->Point("foreign.trylock");
  MutexEntry* entry = MutexAt(mutex);
  if (!SimRuntime::TryAcquire(entry->mutex.get())) return false;
  entry->owner = scheduler_->current();
  return true;
}

void ForeignSync::Unlock(const void* mutex) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  calls_++;
  MutexEntry* entry = MutexAt(mutex);
  entry->owner = kNoTask;
  entry->mutex->Unlock();
}

bool ForeignSync::Wait(const void* cond, const void* mutex, uint64_t deadline_ns) {
  calls_++;
  CondVar* cv = CondAt(cond, mutex);
  MutexEntry* held = MutexAt(mutex);
  held->owner = kNoTask;  // released while waiting
  const bool timed_out = deadline_ns == std::numeric_limits<uint64_t>::max()
                             ? (cv->Wait(), false)
                             : cv->TimedWait(deadline_ns);
  held->owner = scheduler_->current();
  return timed_out;
}

void ForeignSync::Signal(const void* cond) {
  calls_++;
  const auto it = conds_.find(cond);
  if (it == conds_.end() || it->second.incarnation != scheduler_->incarnation()) {
    scheduler_->Point("foreign.signal");  // nobody can be waiting
    return;
  }
  it->second.cond->Signal();
}

void ForeignSync::Broadcast(const void* cond) {
  calls_++;
  const auto it = conds_.find(cond);
  if (it == conds_.end() || it->second.incarnation != scheduler_->incarnation()) {
    scheduler_->Point("foreign.broadcast");
    return;
  }
  it->second.cond->SignalAll();
}

void ForeignSync::Forget(const void* object) {
  // Destroying an object that a task holds or waits on is undefined for
  // pthread too; a stale entry's waiters were abandoned. Either way no
  // live task names it, so it goes at once.
  const UpdatingForeignMaps updating;
  mutexes_.erase(object);
  conds_.erase(object);
}

uint64_t ForeignSync::NowNanos() {
  calls_++;
  scheduler_->Point("foreign.clock");
  return *now_ns_;
}

void ForeignSync::SleepNanos(uint64_t ns) {
  calls_++;
  runtime_->SleepNanos(ns, "foreign.sleep");
}

void ForeignSync::Yield() {
  calls_++;
  scheduler_->Point("foreign.yield");
}

void ForeignSync::AssertionFailed(const std::string& message) {
  scheduler_->FailFromTask("engine assertion failed: " + message);
}

}  // namespace shale::sim
