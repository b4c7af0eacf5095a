// Scheduler: see scheduler.h.
#include "sim/scheduler.h"

#include <cstdio>
#include <cstdlib>

#include "sim/fiber.h"
#include "sim/thread_fiber.h"
#include "util/check.h"

namespace shale::sim {

namespace {

// Tags folded before the values of each kind of decision, so that e.g. a
// timer fire of task 3 and a switch to task 3 hash differently.
constexpr uint64_t kFoldSwitch = 0x5357;  // "SW"
constexpr uint64_t kFoldTimer = 0x544d;   // "TM"
constexpr uint64_t kFoldSpawn = 0x5350;   // "SP"
constexpr uint64_t kFoldFinish = 0x4649;  // "FI"
constexpr uint64_t kFoldCrash = 0x4352;   // "CR"

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "shale scheduler: %s\n", what);
  std::abort();
}

// The scheduler whose Run is on this thread (its fiber tasks run here).
thread_local Scheduler* running_here = nullptr;

// A failed SHALE_CHECK (util/check.h) inside a task ends the run with the
// check's message, as a hosted engine's failed assertion does; outside a
// task, CheckFailed aborts.
void FailRunOnCheck(const char* message) {
  if (running_here == nullptr || !running_here->in_task()) return;
  running_here->FailFromTask(std::string("engine assertion failed: ") + message);
}

const char* StateName(TaskState state) {
  switch (state) {
    case TaskState::kRunnable:
      return "runnable";
    case TaskState::kBlocked:
      return "blocked";
    case TaskState::kFinished:
      return "finished";
    case TaskState::kAbandoned:
      return "abandoned";
  }
  return "?";
}

const char* WaitName(WaitKind kind) {
  switch (kind) {
    case WaitKind::kNone:
      return "nothing";
    case WaitKind::kMutex:
      return "mutex";
    case WaitKind::kCondVar:
      return "condvar";
    case WaitKind::kJoin:
      return "join";
    case WaitKind::kSleep:
      return "sleep";
    case WaitKind::kParked:
      return "parked at a crash point";
  }
  return "?";
}

}  // namespace

Scheduler::Scheduler(const SimulationOptions& options, SchedulerState state)
    : options_(options), s_(state) {
  SetCheckFailedHook(&FailRunOnCheck);
}

Scheduler::~Scheduler() {
  // Abandon whatever is left (a failed run): free stacks, never unwind.
  for (auto& task : tasks_) task->fiber.reset();
}

Status Scheduler::Run(std::function<void()> main) {
  if (!tasks_.empty() || in_task()) Die("Run called twice or from a task");
  if (options_.strategy == Strategy::kPct && options_.pct_expected_steps > 0) {
    for (int i = 1; i < options_.pct_depth; i++) {
      change_points_.push_back(s_.rng->Uniform(options_.pct_expected_steps));
    }
    // Descending, so the next one due is at the back.
    std::sort(change_points_.begin(), change_points_.end(), std::greater<>());
  }
  next_ = Spawn("main", std::move(main));
  Scheduler* const outer = running_here;
  running_here = this;
  while (true) {
    current_ = next_;
    Task* task = tasks_[current_].get();
    task->fiber->Resume();
    if (options_.os_thread_tasks && ThreadFiber::TakeOverlapSeen()) {
      Fail("simulation: two tasks ran at once (task " + std::to_string(current_) + " '" +
           task->name + "' handed over while still running)");
    }
    if (ended_) break;
    if (task->fiber->finished()) {
      OnFinished(task);
      if (Decide() == Decision::kEnd) break;
    }
  }
  current_ = kNoTask;
  running_here = outer;
  return end_;
}

TaskId Scheduler::Spawn(const std::string& name, std::function<void()> fn) {
  if (static_cast<int>(live_.size()) >= options_.max_tasks) {
    Fail("task limit exceeded: max_tasks=" + std::to_string(options_.max_tasks) +
         " while starting '" + name + "'");
    SwitchAwayForGood();
  }
  auto task = std::make_unique<Task>();
  task->id = static_cast<TaskId>(tasks_.size());
  task->name = name;
  task->incarnation = incarnation_;
  if (options_.strategy == Strategy::kPct) task->priority = DrawPriority();
  if (options_.os_thread_tasks) {
    task->fiber = std::make_unique<ThreadFiber>(thread_start_hook_, std::move(fn),
                                                options_.planted_thread_runs_on_at_suspend);
  } else {
    task->fiber = std::make_unique<Fiber>(options_.task_stack_bytes, std::move(fn));
  }
  const TaskId id = task->id;
  tasks_.push_back(std::move(task));
  states_.push_back(TaskState::kRunnable);
  live_.push_back(id);  // ids only grow, so live_ stays sorted
  s_.trace->Fold(kFoldSpawn);
  s_.trace->Fold(id);
  if (tracing()) TraceEvent("spawn task " + std::to_string(id) + " '" + name + "'");
  return id;
}

void Scheduler::Point(const char* what) {
  (void)what;
  if (!in_task()) Die("scheduling point outside a task");
  if (Decide() == Decision::kEnd) SwitchAwayForGood();
  if (next_ == current_) return;
  tasks_[current_]->fiber->Suspend();
  // Resumed by the host: current_ is this task again.
}

void Scheduler::NotePoint(const char* name) {
  if (!in_task()) return;
  tasks_[current_]->last_point = name;
  if (point_hook_) point_hook_(name);
}

void Scheduler::Park() {
  assert(in_task());
  s_.trace->Fold("park");
  Block(WaitKind::kParked, nullptr);
}

bool Scheduler::finished(TaskId id) const {
  const TaskState state = states_[id];
  return state == TaskState::kFinished || state == TaskState::kAbandoned;
}

void Scheduler::Block(WaitKind kind, const Waitable* object) {
  Task* me = tasks_[current_].get();
  states_[me->id] = TaskState::kBlocked;
  me->wait = kind;
  me->wait_object = object;
}

void Scheduler::Wake(TaskId id) {
  Task* task = tasks_[id].get();
  if (states_[id] != TaskState::kBlocked) return;
  CancelTimer(task);
  states_[id] = TaskState::kRunnable;
  task->wait = WaitKind::kNone;
  task->wait_object = nullptr;
}

void Scheduler::SetTimer(uint64_t deadline_ns) {
  Task* me = tasks_[current_].get();
  CancelTimer(me);
  me->timer = {deadline_ns, next_timer_seq_++};
  timers_[me->timer] = me->id;
}

bool Scheduler::TakeTimedOut() {
  Task* me = tasks_[current_].get();
  const bool timed_out = me->timed_out;
  me->timed_out = false;
  return timed_out;
}

void Scheduler::AddJoiner(TaskId target, TaskId waiter) {
  tasks_[target]->joiners.push_back(waiter);
}

void Scheduler::Crash() {
  if (!in_task()) Die("Crash called outside a task");
  for (TaskId id : live_) {
    if (id == current_) continue;
    Task* task = tasks_[id].get();
    CancelTimer(task);
    states_[id] = TaskState::kAbandoned;
    task->fiber.reset();  // not running: we are on current_'s stack
  }
  live_.assign(1, current_);
  incarnation_++;
  tasks_[current_]->incarnation = incarnation_;
  s_.trace->Fold(kFoldCrash);
  s_.trace->Fold(incarnation_);
  if (tracing()) TraceEvent("crash: incarnation " + std::to_string(incarnation_));
}

Scheduler::Decision Scheduler::Decide() {
  if (++*s_.steps > options_.max_steps) {
    Fail("step budget exceeded: max_steps=" + std::to_string(options_.max_steps));
    return Decision::kEnd;
  }
  bool change_point = false;
  while (!change_points_.empty() && change_points_.back() <= *s_.steps - 1) {
    change_point = change_point || change_points_.back() == *s_.steps - 1;
    change_points_.pop_back();
  }
  if (change_point && !finished(current_)) {
    tasks_[current_]->priority = --lowest_priority_;
    pct_changes_fired_++;
  }
  while (true) {
    // Timers already due (set with a past deadline) fire before anything.
    while (!timers_.empty() && timers_.begin()->first.first <= *s_.now_ns) FireEarliestTimer();
    runnable_.clear();
    for (TaskId id : live_) {
      if (states_[id] == TaskState::kRunnable) runnable_.push_back(id);
    }
    if (!runnable_.empty()) break;
    if (timers_.empty()) {
      if (live_.empty()) {
        ended_ = true;
        end_ = Status::OK();
      } else {
        Fail("deadlock: no task can run and no timer is pending");
      }
      return Decision::kEnd;
    }
    if (!FireEarliestTimer()) return Decision::kEnd;
  }
  const TaskId picked = options_.strategy == Strategy::kPct ? PickPct() : Pick();
  s_.trace->Fold(kFoldSwitch);
  s_.trace->Fold(picked);
  if (tracing() && picked != current_) {
    TraceEvent("step " + std::to_string(*s_.steps) + " t=" + std::to_string(*s_.now_ns) +
               " run task " + std::to_string(picked) + " '" + tasks_[picked]->name + "'");
  }
  next_ = picked;
  return Decision::kRun;
}

bool Scheduler::FireEarliestTimer() {
  const auto it = timers_.begin();
  const uint64_t deadline = it->first.first;
  if (deadline > options_.max_sim_time_ns) {
    Fail("simulated time budget exceeded: next timer at " + std::to_string(deadline) +
         " ns > max_sim_time_ns=" + std::to_string(options_.max_sim_time_ns));
    return false;
  }
  if (deadline > *s_.now_ns) *s_.now_ns = deadline;
  Task* task = tasks_[it->second].get();
  timers_.erase(it);
  task->timer = {0, 0};
  task->timed_out = true;
  states_[task->id] = TaskState::kRunnable;
  task->wait = WaitKind::kNone;
  task->wait_object = nullptr;
  s_.trace->Fold(kFoldTimer);
  s_.trace->Fold(task->id);
  s_.trace->Fold(*s_.now_ns);
  if (tracing()) {
    TraceEvent("t=" + std::to_string(*s_.now_ns) + " timer fires for task " +
               std::to_string(task->id) + " '" + task->name + "'");
  }
  return true;
}

TaskId Scheduler::Pick() {
  if (runnable_.size() == 1) return runnable_[0];
  return runnable_[s_.rng->Uniform(runnable_.size())];
}

TaskId Scheduler::PickPct() {
  TaskId best = runnable_[0];
  for (TaskId id : runnable_) {
    if (tasks_[id]->priority > tasks_[best]->priority) best = id;
  }
  return best;
}

// One draw; a priority already taken moves up to the next free one, so a
// tape of zeros still gives distinct priorities (in spawn order).
int64_t Scheduler::DrawPriority() {
  int64_t priority = static_cast<int64_t>(s_.rng->Uniform(uint64_t{1} << 62)) + 1;
  while (!used_priorities_.insert(priority).second) priority++;
  return priority;
}

void Scheduler::OnFinished(Task* task) {
  states_[task->id] = TaskState::kFinished;
  task->fiber.reset();  // on the host: the stack is free to go
  for (TaskId waiter : task->joiners) Wake(waiter);
  task->joiners.clear();
  std::erase(live_, task->id);
  s_.trace->Fold(kFoldFinish);
  s_.trace->Fold(task->id);
  if (tracing()) TraceEvent("task " + std::to_string(task->id) + " '" + task->name + "' finished");
}

void Scheduler::CancelTimer(Task* task) {
  if (task->timer.second == 0) return;
  timers_.erase(task->timer);
  task->timer = {0, 0};
}

void Scheduler::Fail(const std::string& why) {
  ended_ = true;
  end_ = Status::Aborted(why + " at step " + std::to_string(*s_.steps) +
                         ", t=" + std::to_string(*s_.now_ns) + " ns\n" + DescribeTasks());
}

void Scheduler::FailFromTask(const std::string& why) {
  if (!in_task()) Die("FailFromTask called outside a task");
  Fail(why);
  SwitchAwayForGood();
  Die("a failed run resumed a task");
}

void Scheduler::SwitchAwayForGood() {
  if (!in_task()) return;  // Run() sees ended_
  tasks_[current_]->fiber->Suspend();
  Die("a task was resumed after the run ended");
}

std::string Scheduler::DescribeTasks() const {
  std::string out;
  for (TaskId id : live_) out += DescribeTask(*tasks_[id]) + "\n";
  const size_t done = tasks_.size() - live_.size();
  if (done > 0) out += "(" + std::to_string(done) + " finished or abandoned tasks not shown)\n";
  return out;
}

std::string Scheduler::DescribeTask(const Task& task) const {
  std::string line = "task " + std::to_string(task.id) + " '" + task.name + "' [" +
                     StateName(states_[task.id]) + "]";
  if (states_[task.id] == TaskState::kBlocked) {
    line += " waits on ";
    line += task.wait_object != nullptr ? task.wait_object->Describe() : WaitName(task.wait);
    if (task.timer.second != 0) line += " until t=" + std::to_string(task.timer.first) + " ns";
  }
  if (!task.last_point.empty()) line += "; last point '" + task.last_point + "'";
  return line;
}

}  // namespace shale::sim
