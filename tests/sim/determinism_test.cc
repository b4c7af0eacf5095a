// Same options => same trace hash, same final state; different seeds
// explore different schedules. Also Crash() and a context-switch benchmark.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/simulation.h"

namespace shale::sim {
namespace {

struct Outcome {
  uint64_t hash = 0;
  uint64_t now_ns = 0;
  uint64_t steps = 0;
  std::vector<std::string> log;
  std::vector<std::string> trace_lines;
};

// Producers, a consumer with timed waits, sleepers and a shared counter.
Outcome RunBusyProgram(uint64_t seed, Strategy strategy) {
  SimulationOptions options;
  options.seed = seed;
  options.strategy = strategy;
  options.pct_expected_steps = 2000;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  Clock* clock = sim.clock();
  Outcome out;
  sim.set_trace_sink([&](const std::string& line) { out.trace_lines.push_back(line); });
  Status status = sim.Run([&] {
    auto mu = rt->NewMutex();
    auto cv = rt->NewCondVar(mu.get());
    std::deque<std::string> queue;
    int producers_left = 3;
    std::vector<std::unique_ptr<Thread>> threads;
    for (int p = 0; p < 3; p++) {
      threads.push_back(rt->StartThread("producer", [&, p] {
        for (int i = 0; i < 20; i++) {
          if (sim.rng()->OneIn(4)) rt->SleepForMicroseconds(1 + sim.rng()->Uniform(50));
          mu->Lock();
          queue.push_back(std::to_string(p) + ":" + std::to_string(i));
          cv->Signal();
          mu->Unlock();
        }
        mu->Lock();
        producers_left--;
        cv->SignalAll();
        mu->Unlock();
      }));
    }
    threads.push_back(rt->StartThread("consumer", [&] {
      mu->Lock();
      while (producers_left > 0 || !queue.empty()) {
        if (queue.empty()) {
          if (cv->TimedWait(clock->NowNanos() + 7'000)) out.log.push_back("timeout");
          continue;
        }
        out.log.push_back(queue.front() + "@" + std::to_string(clock->NowNanos()));
        queue.pop_front();
        mu->Unlock();
        rt->YieldPoint("consumer.between");
        mu->Lock();
      }
      mu->Unlock();
    }));
    for (auto& thread : threads) thread->Join();
  });
  REQUIRE(status.ok());
  out.hash = sim.trace()->value();
  out.now_ns = sim.now_ns();
  out.steps = sim.steps();
  return out;
}

}  // namespace

TEST_CASE("same seed gives the same hash, state and event trace", "[sim][determinism]") {
  for (Strategy strategy : {Strategy::kRandom, Strategy::kPct}) {
    for (uint64_t seed : {1, 2, 99, 12345}) {
      const Outcome a = RunBusyProgram(seed, strategy);
      const Outcome b = RunBusyProgram(seed, strategy);
      REQUIRE(a.hash == b.hash);
      REQUIRE(a.now_ns == b.now_ns);
      REQUIRE(a.steps == b.steps);
      REQUIRE(a.log == b.log);
      REQUIRE(a.trace_lines == b.trace_lines);
      REQUIRE(a.log.size() >= 60);
    }
  }
}

TEST_CASE("different seeds give different schedules", "[sim][determinism]") {
  for (Strategy strategy : {Strategy::kRandom, Strategy::kPct}) {
    std::set<uint64_t> hashes;
    std::set<std::vector<std::string>> logs;
    for (uint64_t seed = 1; seed <= 30; seed++) {
      const Outcome outcome = RunBusyProgram(seed, strategy);
      hashes.insert(outcome.hash);
      logs.insert(outcome.log);
    }
    REQUIRE(hashes.size() >= 28);
    REQUIRE(logs.size() >= 20);
  }
}

TEST_CASE("Crash ends the other tasks and the caller carries on", "[sim][crash]") {
  for (uint64_t seed = 1; seed <= 10; seed++) {
    SimulationOptions options;
    options.seed = seed;
    Simulation sim(options);
    Runtime* rt = sim.runtime();
    int worker_iterations = 0;
    int after_crash = -1;
    bool next_incarnation_ran = false;
    Status status = sim.Run([&] {
      auto mu = rt->NewMutex();
      auto cv = rt->NewCondVar(mu.get());
      // Abandoned along with their tasks: never joined or destroyed.
      auto* spinner = rt->StartThread("spinner", [&] {
                          while (true) {
                            worker_iterations++;
                            rt->YieldPoint("spin");
                            rt->SleepForMicroseconds(1);  // a pure spinner would stop the clock
                          }
                        }).release();
      auto* waiter = rt->StartThread("waiter", [&] {
                         mu->Lock();
                         while (true) cv->Wait();
                       }).release();
      auto* sleeper = rt->StartThread("sleeper", [&] {
                          while (true) rt->SleepForMicroseconds(10);
                        }).release();
      (void)spinner, (void)waiter, (void)sleeper;
      rt->SleepForMicroseconds(100);
      REQUIRE(sim.incarnation() == 0);
      sim.Crash();
      REQUIRE(sim.incarnation() == 1);
      after_crash = worker_iterations;
      rt->SleepForMicroseconds(1000);  // the dead must stay dead
      REQUIRE(worker_iterations == after_crash);
      auto fresh = rt->StartThread("recovery", [&] { next_incarnation_ran = true; });
      fresh->Join();
    });
    INFO(status.ToString());
    REQUIRE(status.ok());
    REQUIRE(after_crash > 0);
    REQUIRE(next_incarnation_ran);
    REQUIRE(sim.now_ns() == 1'100'000);
  }
}

TEST_CASE("a crash from a background task abandons main", "[sim][crash]") {
  Simulation sim(SimulationOptions{});
  Runtime* rt = sim.runtime();
  bool survivor_done = false;
  Status status = sim.Run([&] {
    auto* killer = rt->StartThread("killer", [&] {
                       rt->SleepForMicroseconds(5);
                       sim.Crash();
                       rt->SleepForMicroseconds(5);
                       survivor_done = true;
                     }).release();
    (void)killer;
    rt->SleepForMicroseconds(1'000'000);  // main dies here
    FAIL("main survived the crash");
  });
  REQUIRE(status.ok());
  REQUIRE(survivor_done);
  REQUIRE(sim.now_ns() == 10'000);
}

TEST_CASE("context switch rate", "[.][bench]") {
  SimulationOptions options;
  options.max_steps = UINT64_MAX;
  Simulation sim(options);
  Runtime* rt = sim.runtime();
  constexpr int kYields = 1'000'000;
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(sim.Run([&] {
               auto other = rt->StartThread("other", [&] {
                 for (int i = 0; i < kYields; i++) rt->YieldPoint("b");
               });
               for (int i = 0; i < kYields; i++) rt->YieldPoint("a");
               other->Join();
             })
              .ok());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Roughly half the steps switch tasks under the uniform strategy.
  std::printf("steps/s %.0f, approx. switches/s %.0f\n", sim.steps() / seconds,
              sim.steps() / seconds / 2);
}

}  // namespace shale::sim
