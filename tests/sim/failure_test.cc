// Run() failures: deadlocks and budgets name every task and its wait.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "sim/simulation.h"
#include "util/check.h"

namespace shale::sim {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two tasks take two mutexes in opposite order, yielding in between.
Status RunLockOrderInversion(uint64_t seed, Strategy strategy) {
  SimulationOptions options;
  options.seed = seed;
  options.strategy = strategy;
  options.pct_expected_steps = 30;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  return sim.Run([&] {
    auto a = rt->NewMutex();
    auto b = rt->NewMutex();
    auto ab = rt->StartThread("lock-ab", [&] {
      a->Lock();
      rt->YieldPoint("ab.between");
      b->Lock();
      b->Unlock();
      a->Unlock();
    });
    auto ba = rt->StartThread("lock-ba", [&] {
      b->Lock();
      rt->YieldPoint("ba.between");
      a->Lock();
      a->Unlock();
      b->Unlock();
    });
    ab->Join();
    ba->Join();
  });
}

}  // namespace

// The engine's invariants stay on in every build: a failed one inside a
// task ends the run with its message (the seed's failure), and the task
// never runs on.
TEST_CASE("a failed engine check inside a task ends the run with its message", "[sim]") {
  SimulationOptions options;
  options.seed = 1;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  int ran_on = 0;
  const int level = 1;
  const Status status = sim.Run([&] {
    auto checker = rt->StartThread("checker", [&] {
      SHALE_CHECK(level == 2);
      ran_on++;
    });
    checker->Join();
    ran_on++;
  });
  REQUIRE_FALSE(status.ok());
  INFO(status.ToString());
  REQUIRE(Contains(status.ToString(), "engine assertion failed: check failed at"));
  REQUIRE(Contains(status.ToString(), "failure_test.cc"));
  REQUIRE(Contains(status.ToString(), "level == 2"));
  REQUIRE(ran_on == 0);
}

TEST_CASE("lock-order inversion deadlocks on some seeds and is described", "[sim]") {
  for (Strategy strategy : {Strategy::kRandom, Strategy::kPct}) {
    int deadlocks = 0, passes = 0;
    std::string message;
    for (uint64_t seed = 1; seed <= 100; seed++) {
      Status status = RunLockOrderInversion(seed, strategy);
      if (status.ok()) {
        passes++;
      } else {
        REQUIRE(status.IsAborted());
        deadlocks++;
        message = status.ToString();
      }
    }
    INFO(message);
    REQUIRE(deadlocks > 0);
    REQUIRE(passes > 0);
    REQUIRE(Contains(message, "deadlock"));
    REQUIRE(Contains(message, "'lock-ab' [blocked] waits on mutex#1 (held by task 2 'lock-ba')"));
    REQUIRE(Contains(message, "'lock-ba' [blocked] waits on mutex#0 (held by task 1 'lock-ab')"));
    REQUIRE(Contains(message, "'main' [blocked] waits on join of task 1 'lock-ab'"));
    REQUIRE(Contains(message, "last point 'ab.between'"));
  }
}

// A default pthread mutex locked twice by its holder hangs that thread for
// good; in the simulation the run fails at once, naming the task.
TEST_CASE("a task that locks a mutex it holds is a deadlock naming the task", "[sim]") {
  Simulation sim(SimulationOptions{});
  Runtime* rt = sim.runtime();
  int ran_on = 0;
  Status status = sim.Run([&] {
    auto mu = rt->NewMutex();
    auto relocker = rt->StartThread("relocker", [&] {
      mu->Lock();
      mu->Lock();
      ran_on++;
    });
    relocker->Join();
  });
  REQUIRE(status.IsAborted());
  const std::string message = status.ToString();
  INFO(message);
  REQUIRE(Contains(message,
                   "deadlock: task 1 'relocker' locks a non-recursive mutex it already holds"));
  REQUIRE(ran_on == 0);
}

TEST_CASE("a wait nobody signals is a deadlock naming the condvar", "[sim]") {
  Simulation sim(SimulationOptions{});
  Runtime* rt = sim.runtime();
  Status status = sim.Run([&] {
    auto mu = rt->NewMutex();
    auto cv = rt->NewCondVar(mu.get());
    auto waiter = rt->StartThread("waiter", [&] {
      mu->Lock();
      cv->Wait();
      mu->Unlock();
    });
    waiter->Join();
  });
  REQUIRE(status.IsAborted());
  const std::string message = status.ToString();
  INFO(message);
  REQUIRE(Contains(message, "deadlock"));
  REQUIRE(Contains(message, "task 1 'waiter' [blocked] waits on condvar#0 of mutex#0 (free)"));
  REQUIRE(Contains(message, "task 0 'main' [blocked] waits on join of task 1 'waiter'"));
}

TEST_CASE("a background task blocked after main finished is a deadlock", "[sim]") {
  Simulation sim(SimulationOptions{});
  Runtime* rt = sim.runtime();
  std::unique_ptr<Mutex> mu;
  std::unique_ptr<CondVar> cv;
  std::unique_ptr<Thread> leaked;
  Status status = sim.Run([&] {
    mu = rt->NewMutex();
    cv = rt->NewCondVar(mu.get());
    leaked = rt->StartThread("orphan", [&] {
      mu->Lock();
      cv->Wait();
      mu->Unlock();
    });
  });
  REQUIRE(status.IsAborted());
  REQUIRE(Contains(status.ToString(), "'orphan' [blocked] waits on condvar#0"));
  (void)leaked.release();  // never joined: the run failed (abandoned on purpose)
}

TEST_CASE("the step budget ends a livelock", "[sim]") {
  SimulationOptions options;
  options.max_steps = 1000;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  Status status = sim.Run([&] {
    while (true) rt->YieldPoint("spin");
  });
  REQUIRE(status.IsAborted());
  REQUIRE(Contains(status.ToString(), "step budget exceeded"));
  REQUIRE(Contains(status.ToString(), "task 0 'main' [runnable]; last point 'spin'"));
  REQUIRE(sim.steps() == 1001);
}

TEST_CASE("the simulated time budget ends an endless sleeper", "[sim]") {
  SimulationOptions options;
  options.max_sim_time_ns = 1'000'000'000;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  Status status = sim.Run([&] {
    while (true) rt->SleepForMicroseconds(300'000);
  });
  REQUIRE(status.IsAborted());
  REQUIRE(Contains(status.ToString(), "simulated time budget exceeded"));
  REQUIRE(Contains(status.ToString(), "waits on sleep until t=1200000000 ns"));
  REQUIRE(sim.now_ns() == 900'000'000);
}

}  // namespace shale::sim
