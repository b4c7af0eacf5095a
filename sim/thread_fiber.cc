// ThreadFiber: see thread_fiber.h.
#include "sim/thread_fiber.h"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace shale::sim {

namespace {

thread_local ThreadFiber* current_thread_fiber = nullptr;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "shale thread fiber: %s\n", what);
  std::abort();
}

// Bodies between waking and handing the CPU back: never more than one, and
// none while the host runs. handed_back: set by a body that stopped, just
// before it posts the host; each host wake consumes one.
std::atomic<int> bodies_running{0};
std::atomic<bool> handed_back{false};
std::atomic<bool> overlap_seen{false};

void BodyWakes() {
  if (bodies_running.fetch_add(1, std::memory_order_acq_rel) != 0) {
    overlap_seen.store(true, std::memory_order_release);
  }
}
void BodyStops() { bodies_running.fetch_sub(1, std::memory_order_acq_rel); }
// Yields the host spends waiting for a body that ran on to stop (a few
// seconds): past it, that body never reached a hand-off.
constexpr int64_t kMaxRunOnYields = 10'000'000;

// Stops the caller's body and wakes the host.
void HandBack(sem_t* host) {
  BodyStops();
  handed_back.store(true, std::memory_order_release);
  if (sem_post(host) != 0) Die("sem_post failed");
}

// A host woken by a body that did not stop (no hand-back, or a body still
// running) broke the rule: flag it, then let that body reach its next
// hand-off before the host goes on, so the host never runs beside it (it
// reads the flag and ends the run).
void HostWakes() {
  const bool handed = handed_back.exchange(false, std::memory_order_acq_rel);
  if (handed && bodies_running.load(std::memory_order_acquire) == 0) return;
  overlap_seen.store(true, std::memory_order_release);
  for (int64_t i = 0; bodies_running.load(std::memory_order_acquire) != 0; i++) {
    if (i == kMaxRunOnYields) Die("a task that ran on beside the host never stopped");
    sched_yield();
  }
}

}  // namespace

ThreadFiber::ThreadFiber(std::function<void()> on_start, std::function<void()> body,
                         int planted_runs_on_at_suspend)
    : on_start_(std::move(on_start)),
      body_(std::move(body)),
      planted_runs_on_at_suspend_(planted_runs_on_at_suspend) {
  if (sem_init(&run_, 0, 0) != 0 || sem_init(&host_, 0, 0) != 0) Die("sem_init failed");
}

ThreadFiber::~ThreadFiber() {
  if (started_ && !finished_) {
    // Waiting in Suspend(): wake it only to hear it leave this object for
    // good (see Abandoned), then let it be.
    abandon_ = true;
    if (sem_post(&run_) != 0) Die("sem_post failed");
    Wait(&host_);
    if (pthread_detach(thread_) != 0) Die("pthread_detach failed");
  } else if (started_ && !joined_) {
    if (pthread_join(thread_, nullptr) != 0) Die("pthread_join failed");
  }
  sem_destroy(&run_);
  sem_destroy(&host_);
}

ThreadFiber* ThreadFiber::Current() { return current_thread_fiber; }

bool ThreadFiber::TakeOverlapSeen() {
  return overlap_seen.exchange(false, std::memory_order_acq_rel);
}

void ThreadFiber::Wait(sem_t* sem) {
  while (sem_wait(sem) != 0) {
    if (errno != EINTR) Die("sem_wait failed");
  }
}

void ThreadFiber::Resume() {
  if (finished_) Die("Resume of a finished thread fiber");
  if (current_thread_fiber != nullptr) Die("Resume called from inside a thread fiber");
  if (!started_) {
    started_ = true;
    if (pthread_create(&thread_, nullptr, &ThreadFiber::ThreadMain, this) != 0) {
      Die("pthread_create failed");
    }
  }
  if (sem_post(&run_) != 0) Die("sem_post failed");
  Wait(&host_);
  HostWakes();
  if (finished_ && !joined_) {  // see the class comment
    if (pthread_join(thread_, nullptr) != 0) Die("pthread_join failed");
    joined_ = true;
  }
}

void ThreadFiber::Suspend() {
  if (current_thread_fiber != this) Die("Suspend called outside its thread fiber");
  if (++suspends_ == planted_runs_on_at_suspend_) {
    // The planted bug: the host may run, and this body runs on.
    host_posted_early_ = true;
    if (sem_post(&host_) != 0) Die("sem_post failed");
    return;
  }
  if (host_posted_early_) {
    BodyStops();  // the host was told already
  } else {
    HandBack(&host_);
  }
  host_posted_early_ = false;
  Wait(&run_);
  if (abandon_) Abandoned(&host_);
  BodyWakes();
}

// An abandoned thread never runs its body again and never ends: ending it
// without unwinding (SYS_exit) would leave its stack, and the thread-local
// storage the allocator and the C library keep on it, for the next thread
// to reuse while their lists still name it. So it tells the host it has
// let go of the ThreadFiber and sleeps until the process exits, touching
// nothing. A worker process runs a few seeds, so these stay few; they
// cost their stacks' touched pages.
void ThreadFiber::Abandoned(sem_t* host) {
  if (sem_post(host) != 0) Die("sem_post failed");
  for (;;) pause();
}

void* ThreadFiber::ThreadMain(void* arg) {
  auto* self = static_cast<ThreadFiber*>(arg);
  current_thread_fiber = self;
  Wait(&self->run_);
  BodyWakes();
  if (self->on_start_) self->on_start_();
  self->body_();
  self->body_ = nullptr;  // drop captures while the host still waits
  current_thread_fiber = nullptr;
  self->finished_ = true;
  if (self->host_posted_early_) {
    BodyStops();
  } else {
    HandBack(&self->host_);
  }
  return nullptr;
}

}  // namespace shale::sim
