// Simulation: one deterministic run. It owns the seeded PRNG, the simulated
// clock, the scheduler and the trace hash, and implements the engine's
// Runtime and Clock seams on top of them (SimRuntime, SimClock).
//
// Every engine "thread" (client tasks, flush, compaction) is a task: a fiber
// on the one OS thread that calls Run(). Exactly one task runs at a time; a
// task gives up the CPU only at a scheduling point: a Runtime call (lock,
// wait, signal, start, join, sleep, YieldPoint), a FileSystem call of a
// simulated disk (SwitchPoint), or when it finishes. At each point the
// scheduler picks the next task from the run's PRNG:
//   * kRandom: uniformly among runnable tasks;
//   * kPct: PCT (Burckhardt et al., ASPLOS 2010): every task gets a random
//     distinct priority; the highest-priority runnable task runs; at
//     pct_depth - 1 steps chosen at random in [0, pct_expected_steps) the
//     running task's priority drops below all others.
// Simulated time is discrete-event: it advances only when no task is
// runnable, jumping to the earliest timer (sleeps, timed waits, I/O latency).
//
// Every decision (task switch, timer fire, I/O, fault, crash) is folded into
// the trace hash; same options => same hash, in every build and compiler.
// Nothing here depends on pointer values or hash-container order.
//
// Failures: a deadlock (no task runnable and no timer pending while some
// task is unfinished), more than max_steps scheduling points, or simulated
// time past max_sim_time_ns ends Run() with a Status naming every task and
// what it waits on.
//
// Crashes: Crash() (from a task) ends every task of the current "process"
// at its current point without unwinding: their stacks are dropped and the
// objects they owned are abandoned, as a killed process's are. Tasks started
// afterwards belong to the next incarnation. A failed Run() abandons its
// unfinished tasks the same way (when the Simulation is destroyed).
// Those leaks are deliberate. Under LeakSanitizer, Run() brackets the whole
// run with __lsan_disable()/__lsan_enable(), so nothing allocated inside a
// simulation is ever reported as a leak (engine leaks are caught by the
// engine's own tests on the real backend).
//
// Thread safety: none; everything runs on the thread that called Run().
// Ownership: the Simulation owns its tasks, runtime and clock; it must
// outlive every object that uses runtime() or clock().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shale/env.h"
#include "shale/status.h"
#include "sim/choice_tape.h"
#include "sim/disk_context.h"

namespace shale::sim {

class ForeignSync;

// kDrawn: the tape's first draw picks kRandom (zero) or kPct.
enum class Strategy : uint8_t { kRandom = 0, kPct = 1, kDrawn = 2 };

struct SimulationOptions {
  uint64_t seed = 1;
  // If set, the run draws from these bytes (ChoiceTape) instead of the
  // seed's endless tape; the seed then only names the run.
  std::optional<std::string> tape;
  Strategy strategy = Strategy::kRandom;
  int pct_depth = 3;                                // d: PCT's bug depth (d-1 change points)
  uint64_t pct_expected_steps = 200000;             // where change points are drawn from
  uint64_t max_steps = 50'000'000;                  // scheduling points before failing
  uint64_t max_sim_time_ns = 3'600'000'000'000ull;  // one simulated hour
  // Preemption at the engine's named yield points (Runtime::YieldPoint).
  // When preempt_one_in > 0, each such point draws OneIn(preempt_one_in);
  // if it comes up, the running task is descheduled for a drawn 1 ..
  // preempt_max_us microseconds of simulated time, as a thread the OS
  // preempts between two steps. Meanwhile other tasks run and timers fire,
  // so a window that takes no simulated time (a sequence published before
  // its memtable insert) can be entered by a task that was asleep. Zero
  // (the default, and a tape's zero) neither draws nor preempts.
  uint64_t preempt_one_in = 0;
  uint64_t preempt_max_us = 64;
  size_t task_stack_bytes = 256 << 10;
  // Run every task on an OS thread of its own (ThreadFiber) instead of a
  // fiber, one at a time all the same, and answer the pthread and clock
  // calls of a hosted engine's code on those threads from the simulation
  // (ForeignSync, hosted/interposer.cc). For engines Shale did not write;
  // costs two thread hand-offs per switch.
  bool os_thread_tasks = false;
  // Checker self-test only (0 in real runs): with os_thread_tasks, each
  // task's Nth yield lets it run on beside the next task (ThreadFiber).
  int planted_thread_runs_on_at_suspend = 0;
  int max_tasks = 256;
};

// A running hash of everything the simulation decided.
class TraceHash {
 public:
  void Fold(uint64_t value);
  void Fold(const char* text);
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

class Simulation final : public DiskContext {
 public:
  explicit Simulation(const SimulationOptions& options);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Runs main as the first task, and every task it starts, until all have
  // finished. REQUIRES: called once, not from a task.
  [[nodiscard]] Status Run(std::function<void()> main);

  // The tape of the simulation Running in this process, or nullptr between
  // runs: its bytes read and operation marks are what the report of a
  // process that dies mid-run (hosted/hosted_code.h) gives a shrinker.
  // Async-signal-safe; reading the tape through it allocates nothing.
  static const ChoiceTape* RunningTape();

  Runtime* runtime();
  Clock* clock();
  // What answers a hosted engine's pthread and clock calls; nullptr unless
  // os_thread_tasks.
  ForeignSync* foreign_sync();
  // The run's one tape: every random choice (scheduling, disk, faults,
  // workload, options) draws from it, in a deterministic order.
  ChoiceTape* rng() override { return &tape_; }
  void Fold(uint64_t value) override { trace_.Fold(value); }
  TraceHash* trace() { return &trace_; }

  uint64_t now_ns() const { return now_ns_; }
  uint64_t steps() const { return steps_; }

  // A scheduling point inside a seam call (e.g. a simulated disk op): may
  // switch to another task. REQUIRES: called from a task.
  void SwitchPoint(const char* what) override;
  // Suspends the calling task for ns of simulated time (I/O latency).
  void Delay(uint64_t ns) override;
  uint64_t NowNanos() const override { return now_ns_; }
  std::string CurrentTaskName() const override;

  // Ends every task started before this call (the current process), then
  // returns in the calling task, which becomes the first task of the next
  // incarnation. REQUIRES: called from a task.
  void Crash();
  // Incarnation number (0 before the first crash).
  uint64_t incarnation() const;
  // kPct: change points that lowered a running task's priority so far.
  uint64_t pct_changes_fired() const;
  Strategy strategy() const;

  // Called whenever a task reaches a named point (Runtime::YieldPoint, or a
  // simulated disk call's SwitchPoint), from that task, before it may be
  // switched away. Targeted crashes use it: the hook may ParkCurrentTask()
  // and wake the task that will Crash(). Null: none.
  void set_point_hook(std::function<void(const char* name)> hook);
  // From a point hook: the current task stops at this point for good (it
  // never runs again; the next Crash() abandons it). Folded into the trace.
  void ParkCurrentTask();

  // Decides Runtime::FaultPoint(name) (the faults layer installs this);
  // without a hook every fault point answers false.
  void set_fault_point_hook(std::function<bool(const char* name)> hook);

  // Hits of each coverage probe (util/probes.h) so far, indexed as
  // probes::kNames; the runtime counts them across crashes. Never folded
  // into the trace: counting changes nothing a run does.
  const std::vector<uint64_t>& probe_counts() const { return probe_counts_; }

  // Appends one line to the event trace, if tracing is on (shale replay --trace).
  void set_trace_sink(std::function<void(const std::string& line)> sink);
  bool tracing() const override;
  void TraceEvent(const std::string& line) override;

 private:
  class Impl;
  ChoiceTape tape_;  // before impl_: a kDrawn strategy is drawn first
  // Before impl_: the runtime counts into it until impl_ is destroyed.
  std::vector<uint64_t> probe_counts_;
  std::unique_ptr<Impl> impl_;
  TraceHash trace_;
  uint64_t now_ns_ = 0;
  uint64_t steps_ = 0;
};

}  // namespace shale::sim
