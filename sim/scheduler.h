// Scheduler: the simulation's tasks, their states, the timer queue, the
// simulated clock and the choice of which task runs next (see simulation.h
// for the strategies). Internal to sim/; the Simulation wires it to the
// run's PRNG, trace hash and counters, and sim_runtime.h builds the engine's
// Mutex/CondVar/Thread on it.
//
// Tasks are numbered 0, 1, 2, ... in creation order; every ordering here is
// by task id or by (deadline, timer sequence number), never by pointer.
//
// Blocking protocol (used by the sync primitives, from inside a task):
//   scheduler->Block(kind, object);   // mark the current task blocked
//   [optionally] scheduler->SetTimer(deadline_ns);
//   scheduler->Point("...");          // switch away until woken
// Another task calls Wake(id), or the timer fires (then TakeTimedOut()).
//
// Thread safety: none; everything runs on the thread that called Run().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "shale/status.h"
#include "sim/coroutine.h"
#include "sim/simulation.h"

namespace shale::sim {

using TaskId = uint32_t;
inline constexpr TaskId kNoTask = UINT32_MAX;

enum class TaskState : uint8_t { kRunnable, kBlocked, kFinished, kAbandoned };
enum class WaitKind : uint8_t { kNone, kMutex, kCondVar, kJoin, kSleep, kParked };

// Something a task can block on; describes itself for deadlock reports.
class Waitable {
 public:
  virtual ~Waitable() = default;
  virtual std::string Describe() const = 0;
};

// The run's shared counters (owned by Simulation).
struct SchedulerState {
  ChoiceTape* rng;
  TraceHash* trace;
  uint64_t* now_ns;
  uint64_t* steps;
};

class Scheduler {
 public:
  Scheduler(const SimulationOptions& options, SchedulerState state);
  ~Scheduler();  // abandons (frees without unwinding) unfinished tasks' stacks

  // Runs main as task 0 and then every task until all finish or the run
  // fails (deadlock, budget). REQUIRES: called once, from the host.
  [[nodiscard]] Status Run(std::function<void()> main);

  // Creates a runnable task; it first runs at some later scheduling point.
  // Fails the run (and never returns) past max_tasks live tasks.
  TaskId Spawn(const std::string& name, std::function<void()> fn);
  // A scheduling point: counts a step, may advance time, may switch tasks.
  // REQUIRES: called from a task.
  void Point(const char* what);
  // Records name as the current task's last named point (YieldPoint,
  // SwitchPoint) for DescribeTasks, then calls the point hook (if any).
  void NotePoint(const char* name);
  // Called by NotePoint from the task reaching each named point; it may
  // Park() that task. Null: none.
  void set_point_hook(std::function<void(const char* name)> hook) { point_hook_ = std::move(hook); }
  // Ends the run now with why as its failure, from the current task, which
  // never runs again. For a failure seen inside an engine's own code (an
  // assertion of a hosted engine). REQUIRES: called from a task.
  [[noreturn]] void FailFromTask(const std::string& why);
  // With SimulationOptions::os_thread_tasks: runs first on each task's own
  // thread, before the task's body (the hosting layer marks the thread as
  // simulated). Null: nothing. REQUIRES: set before Run.
  void set_thread_start_hook(std::function<void()> hook) { thread_start_hook_ = std::move(hook); }

  // Marks the current task blocked for good: it leaves the CPU at the next
  // Point and never runs again (a crash abandons it). REQUIRES: in a task.
  void Park();

  TaskId current() const { return current_; }
  bool in_task() const { return current_ != kNoTask; }
  const std::string& task_name(TaskId id) const { return tasks_[id]->name; }
  bool finished(TaskId id) const;  // finished or abandoned
  bool blocked(TaskId id) const { return states_[id] == TaskState::kBlocked; }

  // Marks the current task blocked (it leaves the CPU at the next Point).
  void Block(WaitKind kind, const Waitable* object);
  // Makes a blocked task runnable and cancels its timer. No-op for tasks
  // that are runnable, finished or abandoned.
  void Wake(TaskId id);
  // Arms a timer for the current (blocked) task; when it fires first the
  // task wakes with TakeTimedOut() == true.
  void SetTimer(uint64_t deadline_ns);
  // True (once) if the current task was last woken by its timer.
  bool TakeTimedOut();
  // Task `waiter` (blocked) is woken when `target` finishes.
  void AddJoiner(TaskId target, TaskId waiter);

  // Abandons every unfinished task except the current one (see Crash()).
  void Crash();
  uint64_t incarnation() const { return incarnation_; }
  // PCT change points that lowered a running task's priority so far.
  uint64_t pct_changes_fired() const { return pct_changes_fired_; }
  Strategy strategy() const { return options_.strategy; }

  std::string DescribeTasks() const;
  void set_trace_sink(std::function<void(const std::string&)> sink) { sink_ = std::move(sink); }
  void TraceEvent(const std::string& line) {
    if (sink_) sink_(line);
  }
  bool tracing() const { return static_cast<bool>(sink_); }

 private:
  struct Task {
    TaskId id;
    std::string name;
    uint64_t incarnation;
    WaitKind wait = WaitKind::kNone;
    const Waitable* wait_object = nullptr;
    std::pair<uint64_t, uint64_t> timer{0, 0};  // (deadline, seq); seq 0 = none
    bool timed_out = false;
    int64_t priority = 0;  // PCT
    std::string last_point;
    std::vector<TaskId> joiners;
    std::unique_ptr<Coroutine> fiber;
  };
  // What runs next, or that the run is over (status set in end_).
  enum class Decision : uint8_t { kRun, kEnd };

  Decision Decide();
  bool FireEarliestTimer();
  TaskId Pick();
  TaskId PickPct();
  void OnFinished(Task* task);
  void CancelTimer(Task* task);
  void Fail(const std::string& why);
  void SwitchAwayForGood();
  int64_t DrawPriority();
  std::string DescribeTask(const Task& task) const;

  const SimulationOptions options_;
  SchedulerState s_;
  std::vector<std::unique_ptr<Task>> tasks_;  // index == id
  // Each task's state, by id: kept apart from Task, dense, because
  // Decide scans it at every scheduling point.
  std::vector<TaskState> states_;
  std::map<std::pair<uint64_t, uint64_t>, TaskId> timers_;
  uint64_t next_timer_seq_ = 1;
  TaskId current_ = kNoTask;
  std::function<void(const char* name)> point_hook_;
  TaskId next_ = kNoTask;
  std::vector<TaskId> live_;  // unfinished tasks, ascending id
  uint64_t incarnation_ = 0;
  bool ended_ = false;
  Status end_;
  // PCT
  std::vector<uint64_t> change_points_;  // PCT's, descending; popped as passed
  std::set<int64_t> used_priorities_;
  int64_t lowest_priority_ = 0;
  uint64_t pct_changes_fired_ = 0;
  std::vector<TaskId> runnable_;  // scratch
  std::function<void(const std::string&)> sink_;
  std::function<void()> thread_start_hook_;
};

}  // namespace shale::sim
