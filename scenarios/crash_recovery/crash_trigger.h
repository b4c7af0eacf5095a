// CrashTrigger: crashes placed where they matter, not only after a count of
// workload operations. Armed with a point name and a hit count, it watches
// every named point any task reaches (Runtime::YieldPoint, and each
// simulated disk call); the hit-th time one matches, that task stops there
// for good (Simulation::ParkCurrentTask) and on_fire runs, which wakes the
// task that then calls Simulation::Crash(). So the crash finds that task
// exactly at the point: between writing a new MANIFEST and renaming
// CURRENT, between building a table and installing it, before a WAL sync,
// or at any step of recovery or Close.
//
// While armed it also counts every point reached (points_seen), so a
// scenario can learn how many steps recovery takes and draw a crash among
// them.
//
// Thread safety: none (one simulated task runs at a time).
// Ownership: installs itself as the simulation's point hook for its life;
// the Simulation must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/simulation.h"

namespace shale::scenario {

class CrashTrigger {
 public:
  explicit CrashTrigger(sim::Simulation* sim);
  ~CrashTrigger();
  CrashTrigger(const CrashTrigger&) = delete;
  CrashTrigger& operator=(const CrashTrigger&) = delete;

  // The engine points a workload phase's crash may target: each is a
  // YieldPoint the engine declares where a crash leaves interesting state.
  static const std::vector<const char*>& WorkloadTargets();
  // The simulated disk's calls that change what a crash leaves: the
  // targets for an engine that names no points of its own (a hosted one).
  static const std::vector<const char*>& DiskTargets();

  // Fires at the hit-th (>= 1) point reached whose name equals `name`, or
  // at the hit-th point of any name if name is empty. Resets points_seen
  // and fired. on_fire runs in the task that reached the point, after the
  // trigger disarmed itself, before that task parks.
  // then_any > 0 moves the crash on from that point by then_any more points
  // of any name (into the window a point opens, such as a rename not yet
  // made durable).
  void Arm(std::string name, uint64_t hit, std::function<void()> on_fire, uint64_t then_any = 0);
  // Counts a named point toward hit only while gate returns true (the
  // next Arm clears the gate). The gate runs in the task at the point and
  // must not reach points itself.
  void set_gate(std::function<bool()> gate) { gate_ = std::move(gate); }
  // Counts points only (never fires).
  void Count() { Arm("", 0, nullptr); }
  void Disarm() { armed_ = false; }

  bool fired() const { return fired_; }
  uint64_t points_seen() const { return points_seen_; }

 private:
  void OnPoint(const char* name);

  sim::Simulation* const sim_;
  bool armed_ = false;
  bool fired_ = false;
  std::string name_;
  uint64_t hit_ = 0;  // 0: count only
  uint64_t then_any_ = 0;
  uint64_t matches_ = 0;
  uint64_t points_seen_ = 0;
  std::function<void()> on_fire_;
  std::function<bool()> gate_;
};

}  // namespace shale::scenario
