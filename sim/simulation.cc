// Simulation and TraceHash: see simulation.h. The scheduler, runtime and
// clock live in scheduler.{h,cc} and sim_runtime.{h,cc}.
#include "sim/simulation.h"

#include <atomic>

#include <cstring>

#include "sim/foreign_sync.h"
#include "sim/scheduler.h"
#include "sim/sim_runtime.h"
#include "util/probes.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define SHALE_SIM_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SHALE_SIM_LSAN)
#define SHALE_SIM_LSAN 1
#endif
#ifdef SHALE_SIM_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace shale::sim {

// One multiply-xorshift round per 64-bit value (the hash is folded at every
// scheduling point, so it must be cheap); arithmetic on values, so the
// result does not depend on byte order.
void TraceHash::Fold(uint64_t value) {
  hash_ = (hash_ ^ value) * 0x9e3779b97f4a7c15ull;
  hash_ ^= hash_ >> 29;
}

// The text eight bytes at a time (little-endian words built explicitly),
// then its length, so "ab","c" differs from "a","bc".
void TraceHash::Fold(const char* text) {
  const size_t length = std::strlen(text);
  for (size_t i = 0; i < length; i += 8) {
    uint64_t word = 0;
    for (size_t b = 0; b < 8 && i + b < length; b++) {
      word |= static_cast<uint64_t>(static_cast<unsigned char>(text[i + b])) << (8 * b);
    }
    Fold(word);
  }
  Fold(0x100 + length);
}

class Simulation::Impl {
 public:
  Impl(Simulation* sim, const SimulationOptions& options)
      : scheduler(options, SchedulerState{&sim->tape_, &sim->trace_, &sim->now_ns_, &sim->steps_}),
        runtime(&scheduler, &sim->trace_, &sim->now_ns_, &sim->tape_, options.preempt_one_in,
                options.preempt_max_us),
        clock(&sim->now_ns_) {
    if (options.os_thread_tasks) {
      foreign = std::make_unique<ForeignSync>(&scheduler, &runtime, &sim->now_ns_);
      scheduler.set_thread_start_hook([sync = foreign.get()] { sync->BindThisThread(); });
    }
  }

  Scheduler scheduler;
  SimRuntime runtime;
  SimClock clock;
  std::unique_ptr<ForeignSync> foreign;  // with os_thread_tasks only
  bool ran = false;
};

namespace {

ChoiceTape MakeTape(const SimulationOptions& options) {
  return options.tape ? ChoiceTape(*options.tape) : ChoiceTape(options.seed);
}

SimulationOptions ResolveStrategy(SimulationOptions options, ChoiceTape* tape) {
  if (options.strategy == Strategy::kDrawn) {
    options.strategy = tape->OneIn(2) ? Strategy::kPct : Strategy::kRandom;
  }
  return options;
}

}  // namespace

Simulation::Simulation(const SimulationOptions& options)
    : tape_(MakeTape(options)),
      probe_counts_(probes::kCount, 0),
      impl_(std::make_unique<Impl>(this, ResolveStrategy(options, &tape_))) {
  impl_->runtime.CountProbesIn(probe_counts_.data(), probe_counts_.size());
  // Not the seed or the tape: a seed's run and the replay of the bytes it
  // consumed make the same decisions, so they hash the same.
  trace_.Fold(static_cast<uint64_t>(impl_->scheduler.strategy()));
}

Simulation::~Simulation() = default;

namespace {
std::atomic<const ChoiceTape*> running_tape{nullptr};
}  // namespace

const ChoiceTape* Simulation::RunningTape() { return running_tape.load(std::memory_order_acquire); }

Status Simulation::Run(std::function<void()> main) {
  if (impl_->ran) return Status::InvalidArgument("Simulation::Run called twice");
  impl_->ran = true;
  running_tape.store(rng(), std::memory_order_release);
#ifdef SHALE_SIM_LSAN
  __lsan_disable();
#endif
  Status status = impl_->scheduler.Run(std::move(main));
#ifdef SHALE_SIM_LSAN
  __lsan_enable();
#endif
  running_tape.store(nullptr, std::memory_order_release);
  return status;
}

Runtime* Simulation::runtime() { return &impl_->runtime; }
ForeignSync* Simulation::foreign_sync() { return impl_->foreign.get(); }
Clock* Simulation::clock() { return &impl_->clock; }

void Simulation::SwitchPoint(const char* what) {
  impl_->scheduler.NotePoint(what);
  impl_->scheduler.Point(what);
}

void Simulation::Delay(uint64_t ns) { impl_->runtime.SleepNanos(ns, "delay"); }

void Simulation::Crash() { impl_->scheduler.Crash(); }

uint64_t Simulation::incarnation() const { return impl_->scheduler.incarnation(); }

uint64_t Simulation::pct_changes_fired() const { return impl_->scheduler.pct_changes_fired(); }

Strategy Simulation::strategy() const { return impl_->scheduler.strategy(); }

void Simulation::set_point_hook(std::function<void(const char* name)> hook) {
  impl_->scheduler.set_point_hook(std::move(hook));
}

void Simulation::ParkCurrentTask() { impl_->scheduler.Park(); }

void Simulation::set_fault_point_hook(std::function<bool(const char* name)> hook) {
  impl_->runtime.set_fault_point_hook(std::move(hook));
}

std::string Simulation::CurrentTaskName() const {
  const Scheduler& s = impl_->scheduler;
  return s.in_task() ? s.task_name(s.current()) : std::string();
}

void Simulation::set_trace_sink(std::function<void(const std::string& line)> sink) {
  impl_->scheduler.set_trace_sink(std::move(sink));
}

bool Simulation::tracing() const { return impl_->scheduler.tracing(); }

void Simulation::TraceEvent(const std::string& line) { impl_->scheduler.TraceEvent(line); }

}  // namespace shale::sim
