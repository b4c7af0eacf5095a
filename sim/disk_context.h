// DiskContext: what a simulated disk needs from the simulation that runs
// it. Simulation implements it; disk unit tests use a trivial one.
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <cstdint>
#include <string>

#include "sim/choice_tape.h"

namespace shale::sim {

class DiskContext {
 public:
  virtual ~DiskContext() = default;
  // A scheduling point: another task may run before this returns.
  virtual void SwitchPoint(const char* what) = 0;
  // The calling task waits ns of simulated time (I/O latency).
  virtual void Delay(uint64_t ns) = 0;
  // Simulated time now, in nanoseconds (a device that queues work per
  // parallel unit reads it to know when each unit is free).
  virtual uint64_t NowNanos() const = 0;
  // The run's PRNG (disk decisions such as which unsynced writes survive).
  virtual ChoiceTape* rng() = 0;
  // Folds a value into the run's trace hash.
  virtual void Fold(uint64_t value) = 0;
  // The name of the task making the current call ("client0", "flush"), for
  // diagnostics; empty outside a task.
  virtual std::string CurrentTaskName() const { return ""; }
  // Whether the run keeps an event trace (`shale replay --trace`), and one
  // line for it. Trace lines are never folded into the trace hash.
  virtual bool tracing() const { return false; }
  virtual void TraceEvent(const std::string& line) { (void)line; }
};

}  // namespace shale::sim
