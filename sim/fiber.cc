// Fiber with mmap'd, guard-paged stacks. See fiber.h.
//
// The context switch: on x86-64 a hand-written one (below), everywhere else
// ucontext. swapcontext saves and restores the signal mask, one
// rt_sigprocmask syscall per switch, and switches dominate the simulator's
// cost; the simulator never changes the signal mask, so the hand-written
// switch keeps only what the SysV ABI says a callee must preserve.
#include "sim/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#if defined(__x86_64__) && defined(__linux__)
#define SHALE_FIBER_X86_64 1
#else
#include <ucontext.h>
#endif

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

#ifdef SHALE_FIBER_X86_64
// shale_fiber_switch(save, load): saves the callee-saved state of the caller
// (rbx, rbp, r12-r15, MXCSR and the x87 control word) on its own stack,
// stores that stack pointer in *save, switches to the stack pointer load
// (saved by an earlier switch, or built by MakeStack) and restores the same
// state from it, returning into whoever saved load. Everything else the ABI
// lets a call clobber, and the compiler assumes it was.
//
// The saved frame, from the saved stack pointer up:
//   [MXCSR (4 bytes), x87 CW (2 bytes), 2 spare] r15 r14 r13 r12 rbx rbp ret
//
// shale_fiber_start is where a new fiber's first switch "returns" to: it
// calls the entry function left in r12 on an aligned stack, with rbp = 0
// ending the frame-pointer chain and CFI marking the outermost frame for
// DWARF unwinders. The entry never returns; ud2 faults loudly if it did.
extern "C" void shale_fiber_switch(void** save, void* load);
extern "C" void shale_fiber_start();

asm(R"(
  .pushsection .text
  .p2align 4
  .globl shale_fiber_switch
  .hidden shale_fiber_switch
  .type shale_fiber_switch, @function
shale_fiber_switch:
  .cfi_startproc
  pushq %rbp
  .cfi_adjust_cfa_offset 8
  pushq %rbx
  .cfi_adjust_cfa_offset 8
  pushq %r12
  .cfi_adjust_cfa_offset 8
  pushq %r13
  .cfi_adjust_cfa_offset 8
  pushq %r14
  .cfi_adjust_cfa_offset 8
  pushq %r15
  .cfi_adjust_cfa_offset 8
  subq $8, %rsp
  .cfi_adjust_cfa_offset 8
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  .cfi_adjust_cfa_offset -8
  popq %r15
  .cfi_adjust_cfa_offset -8
  popq %r14
  .cfi_adjust_cfa_offset -8
  popq %r13
  .cfi_adjust_cfa_offset -8
  popq %r12
  .cfi_adjust_cfa_offset -8
  popq %rbx
  .cfi_adjust_cfa_offset -8
  popq %rbp
  .cfi_adjust_cfa_offset -8
  ret
  .cfi_endproc
  .size shale_fiber_switch, .-shale_fiber_switch

  .p2align 4
  .globl shale_fiber_start
  .hidden shale_fiber_start
  .type shale_fiber_start, @function
shale_fiber_start:
  .cfi_startproc
  .cfi_undefined rip
  xorl %ebp, %ebp
  andq $-16, %rsp
  callq *%r12
  ud2
  .cfi_endproc
  .size shale_fiber_start, .-shale_fiber_start
  .popsection
)");

namespace {

// Builds, at the top of [stack, stack + bytes), the frame shale_fiber_switch
// restores, so that switching to the returned stack pointer calls entry
// through shale_fiber_start. The floating-point control words are the
// caller's, as makecontext after getcontext would have them.
void* MakeStack(char* stack, size_t bytes, void (*entry)()) {
  uint32_t mxcsr = 0;
  uint16_t x87_cw = 0;
  asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(x87_cw));
  // top is page-aligned; one spare slot keeps the return-address slot
  // 16-byte aligned, as a call would leave it.
  uint64_t* sp = reinterpret_cast<uint64_t*>(stack + bytes);
  *--sp = 0;                                               // spare
  *--sp = reinterpret_cast<uint64_t>(&shale_fiber_start);  // ret
  *--sp = 0;                                               // rbp
  *--sp = 0;                                               // rbx
  *--sp = reinterpret_cast<uint64_t>(entry);               // r12
  *--sp = 0;                                               // r13
  *--sp = 0;                                               // r14
  *--sp = 0;                                               // r15
  *--sp = 0;                                               // control words
  std::memcpy(sp, &mxcsr, sizeof(mxcsr));
  std::memcpy(reinterpret_cast<char*>(sp) + 4, &x87_cw, sizeof(x87_cw));
  return sp;
}

}  // namespace
#endif  // SHALE_FIBER_X86_64

struct Fiber::Context {
#ifdef SHALE_FIBER_X86_64
  void* host_sp = nullptr;   // the host's saved stack pointer while the fiber runs
  void* fiber_sp = nullptr;  // the fiber's saved stack pointer while it is suspended
#else
  ucontext_t host;
  ucontext_t fiber;
#endif
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
  void* mem =
      mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
#ifdef SHALE_FIBER_X86_64
    c.fiber_sp = MakeStack(c.stack, c.stack_bytes, &Fiber::Trampoline);
#else
    if (getcontext(&c.fiber) != 0) Die("getcontext failed");
    c.fiber.uc_stack.ss_sp = c.stack;
    c.fiber.uc_stack.ss_size = c.stack_bytes;
    c.fiber.uc_link = nullptr;
    makecontext(&c.fiber, &Fiber::Trampoline, 0);
#endif
  }
  current_fiber = this;
  running_ = true;
  StartSwitch(&c.host_fake_stack, c.stack, c.stack_bytes);
#ifdef SHALE_FIBER_X86_64
  shale_fiber_switch(&c.host_sp, c.fiber_sp);
#else
  if (swapcontext(&c.host, &c.fiber) != 0) Die("swapcontext failed");
#endif
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
#ifdef SHALE_FIBER_X86_64
  shale_fiber_switch(&c.fiber_sp, c.host_sp);
#else
  if (swapcontext(&c.fiber, &c.host) != 0) Die("swapcontext failed");
#endif
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
