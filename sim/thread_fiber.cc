// ThreadFiber: see thread_fiber.h.
#include "sim/thread_fiber.h"

#include <unistd.h>

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

}  // namespace

ThreadFiber::ThreadFiber(std::function<void()> on_start, std::function<void()> body)
    : on_start_(std::move(on_start)), body_(std::move(body)) {
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
  } else if (started_) {
    if (pthread_join(thread_, nullptr) != 0) Die("pthread_join failed");
  }
  sem_destroy(&run_);
  sem_destroy(&host_);
}

ThreadFiber* ThreadFiber::Current() { return current_thread_fiber; }

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
}

void ThreadFiber::Suspend() {
  if (current_thread_fiber != this) Die("Suspend called outside its thread fiber");
  if (sem_post(&host_) != 0) Die("sem_post failed");
  Wait(&run_);
  if (abandon_) Abandoned(&host_);
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
  if (self->on_start_) self->on_start_();
  self->body_();
  self->body_ = nullptr;  // drop captures while the host still waits
  current_thread_fiber = nullptr;
  self->finished_ = true;
  if (sem_post(&self->host_) != 0) Die("sem_post failed");
  return nullptr;
}

}  // namespace shale::sim
