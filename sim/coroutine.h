// Coroutine: what the scheduler runs a task on. Asymmetric: Resume() runs
// it from the host (the thread that called Scheduler::Run) until it calls
// Suspend() or its body returns; control always comes back to the host.
//
// Two kinds exist:
//  * Fiber (fiber.h): a stack on the host's own OS thread. The cheap kind,
//    for Shale's engine, whose every wait goes through the Env seam.
//  * ThreadFiber (thread_fiber.h): a body on an OS thread of its own that
//    runs only while the host waits for it. For engines Shale did not
//    write, which keep per-thread state (thread_local caches) and call
//    pthread directly: each of their threads needs a real thread, but only
//    one may run at a time.
//
// Destroying a coroutine that started but did not finish abandons it: its
// body never runs again and nothing on its stack is unwound (the simulator
// models a killed process this way).
//
// Thread safety: Resume only from the host, Suspend only from the
// coroutine itself; at most one of the two sides runs at any moment.
#pragma once

namespace shale::sim {

class Coroutine {
 public:
  virtual ~Coroutine() = default;
  // Runs the coroutine until it suspends or finishes. REQUIRES: called
  // from the host; !finished().
  virtual void Resume() = 0;
  // Returns control to the host; returns when the host resumes this
  // coroutine. REQUIRES: called from inside this coroutine.
  virtual void Suspend() = 0;
  virtual bool finished() const = 0;
};

}  // namespace shale::sim
