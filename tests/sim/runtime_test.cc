// SimRuntime on the Simulation: mutex, condvar, timed waits, sleep, join.
#include <catch2/catch.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <vector>

#include "sim/simulation.h"

namespace shale::sim {
namespace {

SimulationOptions Seeded(uint64_t seed, Strategy strategy = Strategy::kRandom) {
  SimulationOptions options;
  options.seed = seed;
  options.strategy = strategy;
  return options;
}

}  // namespace

TEST_CASE("Run with a trivial main finishes OK", "[sim]") {
  Simulation sim(Seeded(1));
  bool ran = false;
  REQUIRE(sim.Run([&] { ran = true; }).ok());
  REQUIRE(ran);
}

TEST_CASE("mutex keeps a read-yield-write counter consistent", "[sim]") {
  for (Strategy strategy : {Strategy::kRandom, Strategy::kPct}) {
    for (uint64_t seed = 1; seed <= 20; seed++) {
      Simulation sim(Seeded(seed, strategy));
      Runtime* rt = sim.runtime();
      int counter = 0;
      int unlocked_counter = 0;
      Status status = sim.Run([&] {
        auto mu = rt->NewMutex();
        std::vector<std::unique_ptr<Thread>> threads;
        for (int t = 0; t < 4; t++) {
          threads.push_back(rt->StartThread("inc", [&] {
            for (int i = 0; i < 50; i++) {
              mu->Lock();
              const int seen = counter;
              rt->YieldPoint("between.read.and.write");
              counter = seen + 1;
              mu->Unlock();
              const int racy = unlocked_counter;
              rt->YieldPoint("racy");
              unlocked_counter = racy + 1;
            }
          }));
        }
        for (auto& thread : threads) thread->Join();
      });
      REQUIRE(status.ok());
      REQUIRE(counter == 200);
      // Without the mutex, updates are lost (the scheduler does interleave).
      if (strategy == Strategy::kRandom) REQUIRE(unlocked_counter < 200);
    }
  }
}

TEST_CASE("condvar producer/consumer delivers every item in order", "[sim]") {
  for (uint64_t seed = 1; seed <= 20; seed++) {
    Simulation sim(Seeded(seed, seed % 2 ? Strategy::kRandom : Strategy::kPct));
    Runtime* rt = sim.runtime();
    std::vector<int> received;
    Status status = sim.Run([&] {
      auto mu = rt->NewMutex();
      auto not_empty = rt->NewCondVar(mu.get());
      auto not_full = rt->NewCondVar(mu.get());
      std::deque<int> queue;
      auto consumer = rt->StartThread("consumer", [&] {
        for (int i = 0; i < 100; i++) {
          mu->Lock();
          while (queue.empty()) not_empty->Wait();
          received.push_back(queue.front());
          queue.pop_front();
          not_full->Signal();
          mu->Unlock();
        }
      });
      for (int i = 0; i < 100; i++) {
        mu->Lock();
        while (queue.size() >= 3) not_full->Wait();
        queue.push_back(i);
        not_empty->Signal();
        mu->Unlock();
      }
      consumer->Join();
    });
    REQUIRE(status.ok());
    REQUIRE(received.size() == 100);
    for (int i = 0; i < 100; i++) REQUIRE(received[i] == i);
  }
}

TEST_CASE("TimedWait times out at the deadline, or returns false when signalled", "[sim]") {
  Simulation sim(Seeded(7));
  Runtime* rt = sim.runtime();
  Clock* clock = sim.clock();
  bool first_timed_out = false;
  bool second_timed_out = true;
  uint64_t woke_at = 0;
  Status status = sim.Run([&] {
    auto mu = rt->NewMutex();
    auto cv = rt->NewCondVar(mu.get());
    mu->Lock();
    first_timed_out = cv->TimedWait(clock->NowNanos() + 5'000'000);
    woke_at = clock->NowNanos();
    mu->Unlock();
    auto signaller = rt->StartThread("signaller", [&] {
      rt->SleepForMicroseconds(100);
      mu->Lock();
      cv->Signal();
      mu->Unlock();
    });
    mu->Lock();
    second_timed_out = cv->TimedWait(clock->NowNanos() + 1'000'000'000);
    mu->Unlock();
    signaller->Join();
  });
  REQUIRE(status.ok());
  REQUIRE(first_timed_out);
  REQUIRE(woke_at == 5'000'000);
  REQUIRE_FALSE(second_timed_out);
  REQUIRE(sim.now_ns() == 5'100'000);
}

TEST_CASE("sleeping a simulated hour costs no wall time", "[sim]") {
  SimulationOptions options = Seeded(3);
  options.max_sim_time_ns = 2 * 3'600'000'000'000ull;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  const auto wall_start = std::chrono::steady_clock::now();
  REQUIRE(sim.Run([&] { rt->SleepForMicroseconds(3'600'000'000ull); }).ok());
  const auto wall = std::chrono::steady_clock::now() - wall_start;
  REQUIRE(sim.now_ns() == 3'600'000'000'000ull);
  REQUIRE(wall < std::chrono::seconds(1));
}

TEST_CASE("sleepers wake in deadline order", "[sim]") {
  Simulation sim(Seeded(11));
  Runtime* rt = sim.runtime();
  std::vector<int> order;
  REQUIRE(sim.Run([&] {
               std::vector<std::unique_ptr<Thread>> threads;
               for (int i : {3, 1, 2, 1}) {
                 threads.push_back(rt->StartThread("sleeper", [&, i] {
                   rt->SleepForMicroseconds(static_cast<uint64_t>(i) * 10);
                   order.push_back(i);
                 }));
               }
               for (auto& thread : threads) thread->Join();
             })
              .ok());
  REQUIRE(order == std::vector<int>{1, 1, 2, 3});
  REQUIRE(sim.now_ns() == 30'000);
}

// A task opens a window, yields at a named point and closes it; a second
// task wakes from a 5 us sleep and looks. Returns whether it saw the window
// open, and the simulated time the window closed at in *closed_ns.
static bool SleeperSeesWindow(SimulationOptions options, uint64_t* closed_ns) {
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  bool open = false, seen = false;
  REQUIRE(sim.Run([&] {
               auto sleeper = rt->StartThread("sleeper", [&] {
                 rt->SleepForMicroseconds(5);
                 seen = open;
               });
               auto window = rt->StartThread("window", [&] {
                 open = true;
                 rt->YieldPoint("window.open");
                 open = false;
                 *closed_ns = sim.now_ns();
               });
               sleeper->Join();
               window->Join();
             })
              .ok());
  return seen;
}

TEST_CASE("preemption at a named yield point lets a sleeper into a window", "[sim]") {
  int seen_preempted = 0;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    SimulationOptions options = Seeded(seed);
    uint64_t closed_ns = 1;
    // Without preemption the window takes no simulated time: never seen.
    REQUIRE_FALSE(SleeperSeesWindow(options, &closed_ns));
    REQUIRE(closed_ns == 0);
    options.preempt_one_in = 2;
    options.preempt_max_us = 16;
    const bool seen = SleeperSeesWindow(options, &closed_ns);
    // Seen only when the window task was preempted past the sleeper's
    // wake-up; never longer than the limit.
    if (seen) REQUIRE(closed_ns >= 5'000);
    REQUIRE(closed_ns <= 16'000);
    seen_preempted += seen;
  }
  REQUIRE(seen_preempted > 0);
  // A tape of zeros is the default choice: no preemption.
  SimulationOptions zeros = Seeded(1);
  zeros.tape = std::string(64, '\0');
  zeros.preempt_one_in = 2;
  uint64_t closed_ns = 1;
  REQUIRE_FALSE(SleeperSeesWindow(zeros, &closed_ns));
  REQUIRE(closed_ns == 0);
}

TEST_CASE("Join waits for the thread to finish", "[sim]") {
  for (uint64_t seed = 1; seed <= 10; seed++) {
    Simulation sim(Seeded(seed));
    Runtime* rt = sim.runtime();
    bool child_done = false;
    bool seen_after_join = false;
    REQUIRE(sim.Run([&] {
                 auto child = rt->StartThread("child", [&] {
                   for (int i = 0; i < 5; i++) rt->YieldPoint("child.loop");
                   rt->SleepForMicroseconds(10);
                   child_done = true;
                 });
                 child->Join();
                 seen_after_join = child_done;
               })
                .ok());
    REQUIRE(seen_after_join);
  }
}

TEST_CASE("fault points answer false by default and ask the hook", "[sim]") {
  Simulation sim(Seeded(5));
  Runtime* rt = sim.runtime();
  bool before = true, after = false;
  sim.set_fault_point_hook(nullptr);
  REQUIRE(sim.Run([&] {
               before = rt->FaultPoint("flush.before_install");
               sim.set_fault_point_hook([](const char* name) { return std::string(name) == "x"; });
               after = rt->FaultPoint("x");
             })
              .ok());
  REQUIRE_FALSE(before);
  REQUIRE(after);
}

TEST_CASE("a task budget failure is reported", "[sim]") {
  SimulationOptions options = Seeded(1);
  options.max_tasks = 3;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  Status status = sim.Run([&] {
    std::vector<std::unique_ptr<Thread>> threads;
    for (int i = 0; i < 5; i++) {
      threads.push_back(rt->StartThread("t", [&] { rt->SleepForMicroseconds(5); }));
    }
    for (auto& thread : threads) thread->Join();
  });
  REQUIRE(status.IsAborted());
  REQUIRE(status.ToString().find("task limit") != std::string::npos);
}

}  // namespace shale::sim
