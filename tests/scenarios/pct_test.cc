// PCT's change points land inside the runs they are drawn for: with depth
// 3 (two change points), default-size runs of every scenario average at
// least 1.5 fired change points (a horizon far past the run's length would
// leave most PCT runs with none, i.e. plain priority scheduling).
#include <catch2/catch.hpp>

#include "scenarios/scenario.h"

using namespace shale::scenario;

TEST_CASE("pct change points fire inside default-size runs of every scenario", "[scenario][pct]") {
  RegisterBuiltinScenarios();
  constexpr int kSeeds = 12;
  for (const Scenario* scenario : AllScenarios()) {
    if (!scenario->simulated()) continue;  // real threads: no scheduler to choose
    uint64_t fired = 0;
    for (uint64_t seed = 1; seed <= kSeeds; seed++) {
      RunConfig config;
      config.scenario = scenario->name();
      config.seed = seed;
      config.crashes = -1;
      config.strategy = "pct";
      const RunResult r = scenario->Run(config);
      REQUIRE(r.scheduler == "pct");
      REQUIRE(r.pct_change_points <= 2);
      fired += r.pct_change_points;
    }
    INFO(scenario->name() << ": " << fired << " change points fired over " << kSeeds << " runs");
    REQUIRE(fired * 2 >= 3 * kSeeds);
    RunConfig random_config;
    random_config.scenario = scenario->name();
    random_config.strategy = "random";
    const RunResult r = scenario->Run(random_config);
    REQUIRE(r.scheduler == "random");
    REQUIRE(r.pct_change_points == 0);
  }
}
