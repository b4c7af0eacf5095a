// ForeignThreads: see foreign_threads.h.
#include "sim/foreign_threads.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <utility>

#include "sim/foreign_maps.h"

namespace shale::sim {

namespace {

// glibc's pthread_once_t states: bit 1 set once the routine has returned.
constexpr int kOnceDone = 2;
constexpr size_t kMaxThreadNameBytes = 15;

TaskId TaskOf(uint64_t id) { return static_cast<TaskId>(id & ~ForeignThreads::kThreadIdTagMask); }

}  // namespace

struct ForeignThreads::Thread final : Waitable {
  TaskId task = kNoTask;
  uint64_t incarnation = 0;
  bool detached = false;
  bool joined = false;
  bool returned = false;  // the start routine returned
  void* result = nullptr;
  std::string Describe() const override {
    return "join of hosted thread (task " + std::to_string(task) + ")";
  }
};

struct ForeignThreads::OnceEntry final : Waitable {
  TaskId runner = kNoTask;
  uint64_t incarnation = 0;
  std::deque<TaskId> waiters;
  std::string Describe() const override {
    return "pthread_once routine run by task " + std::to_string(runner);
  }
};

ForeignThreads::ForeignThreads(Scheduler* scheduler, uint64_t* calls)
    : scheduler_(scheduler), calls_(calls) {}

ForeignThreads::~ForeignThreads() = default;

void ForeignThreads::Start(void* (*start)(void*), void* arg, bool detached, pthread_t* id) {
  (*calls_)++;
  auto owned = std::make_unique<Thread>();
  Thread* thread = owned.get();
  thread->incarnation = scheduler_->incarnation();
  thread->detached = detached;
  // Spawn may end the run (the task limit): nothing is guarded across it.
  thread->task = scheduler_->Spawn("hosted.thread", [thread, start, arg] {
    thread->result = start(arg);
    thread->returned = true;
  });
  {
    const UpdatingForeignMaps updating;
    threads_[thread->task] = std::move(owned);
  }
  *id = static_cast<pthread_t>(kThreadIdTag | thread->task);
  scheduler_->Point("foreign.thread_start");
}

uint64_t ForeignThreads::Self() const { return kThreadIdTag | scheduler_->current(); }

ForeignThreads::Thread* ForeignThreads::Find(uint64_t id) const {
  if (!IsSimulatedThreadId(id)) return nullptr;
  const auto it = threads_.find(TaskOf(id));
  return it == threads_.end() ? nullptr : it->second.get();
}

int ForeignThreads::Join(uint64_t id, void** result) {
  (*calls_)++;
  Thread* thread = Find(id);
  if (thread == nullptr) return ESRCH;
  if (thread->task == scheduler_->current()) return EDEADLK;
  if (thread->detached || thread->joined) return EINVAL;
  thread->joined = true;
  scheduler_->Point("foreign.join");
  if (!thread->returned && thread->incarnation != scheduler_->incarnation()) {
    scheduler_->FailFromTask("simulation: hosted code joined thread (task " +
                             std::to_string(thread->task) +
                             ") that a crash abandoned: process-wide state outlived the crash");
  }
  if (!scheduler_->finished(thread->task)) {
    scheduler_->AddJoiner(thread->task, scheduler_->current());
    scheduler_->Block(WaitKind::kJoin, thread);
    scheduler_->Point("foreign.join_wait");
  }
  if (result != nullptr) *result = thread->result;
  return 0;
}

int ForeignThreads::Detach(uint64_t id) {
  (*calls_)++;
  Thread* thread = Find(id);
  if (thread == nullptr) return ESRCH;
  if (thread->detached || thread->joined) return EINVAL;
  thread->detached = true;
  return 0;
}

int ForeignThreads::SetName(uint64_t id, const char* name) {
  (*calls_)++;
  if (!IsSimulatedThreadId(id)) return ESRCH;
  if (std::strlen(name) > kMaxThreadNameBytes) return ERANGE;
  const UpdatingForeignMaps updating;
  names_[TaskOf(id)] = name;
  return 0;
}

int ForeignThreads::GetName(uint64_t id, char* buffer, size_t length) const {
  (*calls_)++;
  if (!IsSimulatedThreadId(id)) return ESRCH;
  if (length < kMaxThreadNameBytes + 1) return ERANGE;
  const auto it = names_.find(TaskOf(id));
  const std::string name = it == names_.end() ? scheduler_->task_name(TaskOf(id)) : it->second;
  const size_t bytes = std::min(name.size(), kMaxThreadNameBytes);
  std::memcpy(buffer, name.data(), bytes);
  buffer[bytes] = '\0';
  return 0;
}

void ForeignThreads::WaitForOnce(OnceEntry* entry) {
  if (entry->runner == scheduler_->current()) {
    scheduler_->FailFromTask(
        "deadlock: a pthread_once routine called pthread_once on its own control");
  }
  (*calls_)++;
  entry->waiters.push_back(scheduler_->current());
  scheduler_->Block(WaitKind::kMutex, entry);
  scheduler_->Point("foreign.once_wait");
}

bool ForeignThreads::ClaimOnce(const void* key, const std::function<bool()>& done) {
  while (true) {
    if (done()) return false;
    const auto it = onces_.find(key);
    if (it == onces_.end() || it->second->incarnation != scheduler_->incarnation()) break;
    WaitForOnce(it->second.get());
  }
  const UpdatingForeignMaps updating;
  std::unique_ptr<OnceEntry>& slot = onces_[key];
  if (slot != nullptr) retired_onces_.push_back(std::move(slot));  // a crash cut it short
  slot = std::make_unique<OnceEntry>();
  slot->runner = scheduler_->current();
  slot->incarnation = scheduler_->incarnation();
  return true;
}

void ForeignThreads::FinishOnce(const void* key) {
  const UpdatingForeignMaps updating;
  auto node = onces_.extract(key);
  if (node.empty()) return;
  for (const TaskId waiter : node.mapped()->waiters) {
    if (scheduler_->blocked(waiter)) scheduler_->Wake(waiter);
  }
  retired_onces_.push_back(std::move(node.mapped()));
}

int ForeignThreads::Once(pthread_once_t* control, void (*routine)()) {
  std::atomic_ref<int> state(*control);
  if (!ClaimOnce(control,
                 [&] { return (state.load(std::memory_order_acquire) & kOnceDone) != 0; })) {
    return 0;
  }
  // Whether the routine returns or throws, its waiters wake: they find the
  // control done, or run the routine themselves, as with the C library.
  struct Finish {
    ForeignThreads* self;
    const void* control;
    ~Finish() { self->FinishOnce(control); }
  } finish{this, control};
  routine();
  state.store(kOnceDone, std::memory_order_release);
  return 0;
}

bool ForeignThreads::GuardAcquire(uint64_t* guard) {
  std::atomic_ref<uint8_t> initialized(*reinterpret_cast<uint8_t*>(guard));
  return ClaimOnce(guard, [&] { return initialized.load(std::memory_order_acquire) != 0; });
}

bool ForeignThreads::RunsGuard(const uint64_t* guard) const {
  const auto it = onces_.find(guard);
  return it != onces_.end() && it->second->runner == scheduler_->current() &&
         it->second->incarnation == scheduler_->incarnation();
}

void ForeignThreads::GuardRelease(uint64_t* guard) {
  std::atomic_ref<uint8_t>(*reinterpret_cast<uint8_t*>(guard)).store(1, std::memory_order_release);
  FinishOnce(guard);
}

void ForeignThreads::GuardAbort(uint64_t* guard) { FinishOnce(guard); }

}  // namespace shale::sim
