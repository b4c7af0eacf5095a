// ForeignRwLocks: see foreign_rwlocks.h.
#include "sim/foreign_rwlocks.h"

#include <algorithm>
#include <cerrno>
#include <deque>
#include <string>
#include <utility>

#include "sim/foreign_maps.h"

namespace shale::sim {

struct ForeignRwLocks::RwLock final : Waitable {
  uint64_t id = 0;
  uint64_t incarnation = 0;
  TaskId writer = kNoTask;
  std::vector<TaskId> readers;  // one entry per read lock held
  std::deque<TaskId> waiters;

  bool Free(bool write) const { return writer == kNoTask && (!write || readers.empty()); }
  void Take(TaskId task, bool write) {
    if (write) {
      writer = task;
    } else {
      readers.push_back(task);
    }
  }
  std::string Describe() const override {
    std::string out = "rwlock#" + std::to_string(id);
    if (writer != kNoTask) return out + " (written by task " + std::to_string(writer) + ")";
    if (readers.empty()) return out + " (free)";
    out += " (read by task";
    for (const TaskId reader : readers) out += " " + std::to_string(reader);
    return out + ")";
  }
};

ForeignRwLocks::ForeignRwLocks(Scheduler* scheduler, uint64_t* calls)
    : scheduler_(scheduler), calls_(calls) {}

ForeignRwLocks::~ForeignRwLocks() = default;

const ForeignRwLocks::RwLock* ForeignRwLocks::Find(const void* rwlock) const {
  const auto it = locks_.find(rwlock);
  if (it == locks_.end() || it->second->incarnation != scheduler_->incarnation()) return nullptr;
  return it->second.get();
}

ForeignRwLocks::RwLock* ForeignRwLocks::At(const void* rwlock) {
  const UpdatingForeignMaps updating;
  std::unique_ptr<RwLock>& slot = locks_[rwlock];
  if (slot != nullptr && slot->incarnation != scheduler_->incarnation()) {
    retired_.push_back(std::move(slot));
  }
  if (slot == nullptr) {
    slot = std::make_unique<RwLock>();
    slot->id = next_id_++;
    slot->incarnation = scheduler_->incarnation();
  }
  return slot.get();
}

bool ForeignRwLocks::Knows(const void* rwlock) const { return Find(rwlock) != nullptr; }

bool ForeignRwLocks::Holds(const void* rwlock) const {
  const RwLock* lock = Find(rwlock);
  const TaskId me = scheduler_->current();
  return lock != nullptr &&
         (lock->writer == me ||
          std::find(lock->readers.begin(), lock->readers.end(), me) != lock->readers.end());
}

ForeignRwLocks::RwLock* ForeignRwLocks::Begin(const void* rwlock, const char* point) {
  (*calls_)++;
  scheduler_->Point(point);
  return At(rwlock);
}

int ForeignRwLocks::Lock(const void* rwlock, bool write) {
  RwLock* lock = Begin(rwlock, write ? "foreign.wrlock" : "foreign.rdlock");
  const TaskId me = scheduler_->current();
  if (lock->writer == me) return EDEADLK;
  while (!lock->Free(write)) {
    lock->waiters.push_back(me);
    scheduler_->Block(WaitKind::kMutex, lock);
    scheduler_->Point("foreign.rwlock_wait");
  }
  lock->Take(me, write);
  return 0;
}

int ForeignRwLocks::TryLock(const void* rwlock, bool write) {
  RwLock* lock = Begin(rwlock, write ? "foreign.trywrlock" : "foreign.tryrdlock");
  const TaskId me = scheduler_->current();
  if (lock->writer == me) return EDEADLK;
  if (!lock->Free(write)) return EBUSY;
  lock->Take(me, write);
  return 0;
}

int ForeignRwLocks::Unlock(const void* rwlock) {
  (*calls_)++;
  RwLock* lock = At(rwlock);
  const TaskId me = scheduler_->current();
  if (lock->writer == me) {
    lock->writer = kNoTask;
  } else {
    const auto reader = std::find(lock->readers.begin(), lock->readers.end(), me);
    if (reader == lock->readers.end()) {
      scheduler_->FailFromTask("simulation: an rwlock unlocked by a task that does not hold it");
    }
    lock->readers.erase(reader);
  }
  std::deque<TaskId> woken;
  woken.swap(lock->waiters);
  for (const TaskId waiter : woken) {
    if (scheduler_->blocked(waiter)) scheduler_->Wake(waiter);
  }
  scheduler_->Point("foreign.rwunlock");
  return 0;
}

void ForeignRwLocks::Forget(const void* rwlock) {
  const UpdatingForeignMaps updating;
  const auto it = locks_.find(rwlock);
  if (it == locks_.end()) return;
  retired_.push_back(std::move(it->second));
  locks_.erase(it);
}

}  // namespace shale::sim
