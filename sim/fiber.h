// Fiber: a stackful coroutine on the calling OS thread, the unit the
// simulator schedules. The switch is hand-written on x86-64 (callee-saved
// registers only, no syscall) and ucontext's swapcontext elsewhere.
// Asymmetric: Resume() runs the fiber from the host (the OS thread's own
// stack) until the fiber calls Suspend() or its body returns; control always
// comes back to the host.
//
// Stacks are mmap'd with a PROT_NONE guard page below them, so a stack
// overflow faults at once instead of corrupting a neighbour. Under
// AddressSanitizer every switch is announced with
// __sanitizer_start/finish_switch_fiber, so ASan tracks the right stack.
//
// Abandoning: destroying a Fiber that has started but not finished frees its
// stack WITHOUT unwinding it: destructors of objects on that stack never run
// and whatever they own on the heap is leaked on purpose (this is how the
// simulator models a killed process). See Simulation for how LeakSanitizer
// is kept quiet about those leaks.
//
// Thread safety: none. A fiber must be resumed only on the thread that
// created it. REQUIRES: body does not throw.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "sim/coroutine.h"

namespace shale::sim {

class Fiber final : public Coroutine {
 public:
  // Allocates the stack (at least stack_bytes, page-rounded). Does not start
  // running body; the first Resume() does.
  Fiber(size_t stack_bytes, std::function<void()> body);
  // Frees the stack. REQUIRES: the fiber is not running (it is suspended,
  // finished, or never started).
  ~Fiber() override;
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the fiber until it suspends or finishes. REQUIRES: called from the
  // host (not from inside any fiber); !finished().
  void Resume() override;
  // Returns control to the host; returns when the host resumes this fiber.
  // REQUIRES: called from inside this fiber.
  void Suspend() override;

  bool finished() const override { return finished_; }
  bool running() const { return running_; }
  // The fiber running on this thread, or nullptr on the host.
  static Fiber* Current();

 private:
  struct Context;  // saved contexts and sanitizer bookkeeping
  static void Trampoline();
  void SwitchToHost(bool exiting);

  std::function<void()> body_;
  std::unique_ptr<Context> ctx_;
  char* mapping_ = nullptr;  // guard page + stack
  size_t mapping_bytes_ = 0;
  bool started_ = false;
  bool running_ = false;
  bool finished_ = false;
};

}  // namespace shale::sim
