// Fiber on ucontext with mmap'd, guard-paged stacks. See fiber.h.
#include "sim/fiber.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <utility>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHALE_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SHALE_FIBER_ASAN)
#define SHALE_FIBER_ASAN 1
#endif

#ifdef SHALE_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace shale::sim {

namespace {

thread_local Fiber* current_fiber = nullptr;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "shale fiber: %s\n", what);
  std::abort();
}

size_t PageBytes() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// ASan bookkeeping, compiled to nothing without ASan.
void StartSwitch(void** fake_stack_save, const void* bottom, size_t size) {
#ifdef SHALE_FIBER_ASAN
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save, (void)bottom, (void)size;
#endif
}

void FinishSwitch(void* fake_stack_save, const void** bottom_old, size_t* size_old) {
#ifdef SHALE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_save, bottom_old, size_old);
#else
  (void)fake_stack_save, (void)bottom_old, (void)size_old;
#endif
}

}  // namespace

struct Fiber::Context {
  ucontext_t host;
  ucontext_t fiber;
  void* host_fake_stack = nullptr;
  void* fiber_fake_stack = nullptr;
  const void* host_stack_bottom = nullptr;
  size_t host_stack_bytes = 0;
  char* stack = nullptr;  // usable stack, above the guard page
  size_t stack_bytes = 0;
};

Fiber::Fiber(size_t stack_bytes, std::function<void()> body)
    : body_(std::move(body)), ctx_(std::make_unique<Context>()) {
  const size_t page = PageBytes();
  const size_t usable = (std::max<size_t>(stack_bytes, 16 * 1024) + page - 1) / page * page;
  mapping_bytes_ = usable + page;
  void* mem = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (mem == MAP_FAILED) Die("mmap of a fiber stack failed");
  mapping_ = static_cast<char*>(mem);
  if (mprotect(mapping_, page, PROT_NONE) != 0) Die("mprotect of a guard page failed");
  ctx_->stack = mapping_ + page;
  ctx_->stack_bytes = usable;
}

Fiber::~Fiber() {
  if (running_) Die("destroying a running fiber");
#ifdef SHALE_FIBER_ASAN
  // An abandoned stack still carries poisoned redzones of frames that never
  // returned; clear them so the pages' next owner starts clean.
  ASAN_UNPOISON_MEMORY_REGION(ctx_->stack, ctx_->stack_bytes);
#endif
  munmap(mapping_, mapping_bytes_);
}

Fiber* Fiber::Current() { return current_fiber; }

void Fiber::Resume() {
  if (current_fiber != nullptr) Die("Resume called from inside a fiber");
  if (finished_) Die("Resume of a finished fiber");
  Context& c = *ctx_;
  if (!started_) {
    started_ = true;
    if (getcontext(&c.fiber) != 0) Die("getcontext failed");
    c.fiber.uc_stack.ss_sp = c.stack;
    c.fiber.uc_stack.ss_size = c.stack_bytes;
    c.fiber.uc_link = nullptr;
    makecontext(&c.fiber, &Fiber::Trampoline, 0);
  }
  current_fiber = this;
  running_ = true;
  StartSwitch(&c.host_fake_stack, c.stack, c.stack_bytes);
  if (swapcontext(&c.host, &c.fiber) != 0) Die("swapcontext failed");
  FinishSwitch(c.host_fake_stack, nullptr, nullptr);
  running_ = false;
  current_fiber = nullptr;
}

void Fiber::Suspend() {
  if (current_fiber != this) Die("Suspend called outside its fiber");
  SwitchToHost(/*exiting=*/false);
}

void Fiber::SwitchToHost(bool exiting) {
  Context& c = *ctx_;
  // An exiting fiber passes nullptr so ASan frees its fake stack.
  StartSwitch(exiting ? nullptr : &c.fiber_fake_stack, c.host_stack_bottom, c.host_stack_bytes);
  if (swapcontext(&c.fiber, &c.host) != 0) Die("swapcontext failed");
  if (exiting) Die("a finished fiber was resumed");
  FinishSwitch(c.fiber_fake_stack, &c.host_stack_bottom, &c.host_stack_bytes);
}

void Fiber::Trampoline() {
  Fiber* self = current_fiber;
  FinishSwitch(nullptr, &self->ctx_->host_stack_bottom, &self->ctx_->host_stack_bytes);
  self->body_();
  self->finished_ = true;
  self->body_ = nullptr;  // drop captures while still on a live stack
  self->SwitchToHost(/*exiting=*/true);
}

}  // namespace shale::sim
