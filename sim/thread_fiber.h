// ThreadFiber: a Coroutine (coroutine.h) whose body runs on an OS thread of
// its own, handed the CPU by the host and back through two semaphores, so
// that exactly one of the host and the body runs at any moment.
//
// Why a thread and not a Fiber: an engine Shale did not write keeps
// per-thread state (thread_local slots, errno, a thread's cached handles)
// and blocks through pthread calls, which the interposer
// (hosted/interposer.cc) turns into scheduling points only for threads it
// knows. Each of its threads therefore needs a real thread; the scheduler
// still decides, from the seed, which one runs.
//
// The thread starts at the first Resume() and runs `on_start` (if set),
// then the body. When the body returns, the host is resumed and waits in
// that Resume() for the thread to end, so what the thread runs on its way
// out (thread-local destructors, a hosted engine's among them) runs while
// nothing else does. Destroying a ThreadFiber that started and has not finished
// abandons it: its body never runs again, nothing on its stack is unwound
// or destroyed, as with a killed process's threads, and the thread sleeps
// until the process exits (thread_fiber.cc says why it cannot end).
//
// Thread safety: as Coroutine. Cost: two futex hand-offs per switch.
#pragma once

#include <pthread.h>
#include <semaphore.h>

#include <atomic>
#include <functional>

#include "sim/coroutine.h"

namespace shale::sim {

class ThreadFiber final : public Coroutine {
 public:
  // on_start runs first on the new thread (e.g. to mark it as a simulated
  // thread); may be null. planted_runs_on_at_suspend: 0 in real runs; N > 0
  // plants a bug for checker self-tests: the body's Nth Suspend hands the
  // CPU to the host without stopping (it stops at its next Suspend), so two
  // of them run at once.
  ThreadFiber(std::function<void()> on_start, std::function<void()> body,
              int planted_runs_on_at_suspend = 0);
  ~ThreadFiber() override;
  ThreadFiber(const ThreadFiber&) = delete;
  ThreadFiber& operator=(const ThreadFiber&) = delete;

  void Resume() override;
  void Suspend() override;
  bool finished() const override { return finished_; }

  // The ThreadFiber whose thread is the caller's, or nullptr.
  static ThreadFiber* Current();

  // Whether, since the last call, a body or the host woke while another
  // body was still running: the one-at-a-time rule this class exists to
  // keep was broken (checked at every hand-off, in every build). Called by
  // the host.
  static bool TakeOverlapSeen();

 private:
  static void* ThreadMain(void* self);
  // Waits on sem until posted (retrying EINTR).
  static void Wait(sem_t* sem);
  [[noreturn]] static void Abandoned(sem_t* host);

  std::function<void()> on_start_;
  std::function<void()> body_;
  sem_t run_;   // posted by the host: the body may run
  sem_t host_;  // posted by the body: the host may run
  pthread_t thread_{};
  bool started_ = false;
  bool joined_ = false;
  bool finished_ = false;  // written by the body before it posts host_
  bool abandon_ = false;   // written by the host before it posts run_
  const int planted_runs_on_at_suspend_;
  int suspends_ = 0;
  bool host_posted_early_ = false;  // the planted bug posted host_ already
};

}  // namespace shale::sim
