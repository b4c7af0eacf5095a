// CrashTrigger: the hit-th matching point parks its task there for good and
// wakes the crashing task; a count-only arm never fires.
#include <catch2/catch.hpp>

#include "scenarios/crash_recovery/crash_trigger.h"
#include "sim/simulation.h"

using namespace shale;
using namespace shale::scenario;

TEST_CASE("a crash trigger parks the task at the hit-th matching point", "[scenario]") {
  sim::SimulationOptions options;
  options.seed = 5;
  sim::Simulation sim(options);
  CrashTrigger trigger(&sim);
  int passed = 0;  // points named "x" the worker got past
  bool woke = false;
  const Status s = sim.Run([&] {
    Runtime* rt = sim.runtime();
    trigger.Arm("x", 2, [&] { woke = true; });
    std::unique_ptr<Thread> worker = rt->StartThread("worker", [&] {
      for (int i = 0; i < 4; i++) {
        rt->YieldPoint("y");
        rt->YieldPoint("x");
        passed++;
      }
    });
    while (!trigger.fired()) rt->SleepForMicroseconds(1);
    // The worker is parked at its second "x" and never moves again.
    for (int i = 0; i < 10; i++) rt->SleepForMicroseconds(1);
    CHECK(passed == 1);
    CHECK(woke);
    CHECK(trigger.points_seen() == 4);  // y, x, y, x
    (void)worker.release();
    sim.Crash();
  });
  REQUIRE(s.ok());
}

TEST_CASE("a counting crash trigger counts points and never fires", "[scenario]") {
  sim::SimulationOptions options;
  sim::Simulation sim(options);
  CrashTrigger trigger(&sim);
  const Status s = sim.Run([&] {
    trigger.Count();
    for (int i = 0; i < 5; i++) sim.runtime()->YieldPoint("p");
    trigger.Disarm();
    sim.runtime()->YieldPoint("p");
  });
  REQUIRE(s.ok());
  CHECK_FALSE(trigger.fired());
  CHECK(trigger.points_seen() == 5);
}
