// PCT's change points land inside the runs they are drawn for: with depth
// 3 (two change points), default-size runs of every scenario average at
// least 1.5 fired change points (a horizon far past the run's length would
// leave most PCT runs with none, i.e. plain priority scheduling).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "common/row_tests.h"
#include "scenarios/scenario.h"

using namespace shale::scenario;

namespace {

// Every scheduled (simulated) scenario, one test each (see
// common/row_tests.h); the test below keeps this list complete.
const char* const kSimulatedScenarios[] = {
    "crash-recovery", "diff-options",    "open-channel", "snapshot",
    "table-cache",    "unordered-write", "windows",
};

void CheckChangePointsFire(const char* const& name) {
  RegisterBuiltinScenarios();
  const Scenario* scenario = FindScenario(name);
  REQUIRE(scenario != nullptr);
  REQUIRE(scenario->simulated());
  constexpr int kSeeds = 12;
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

[[maybe_unused]] const bool kPctTestsRegistered = shale_test::RegisterRowTests(
    kSimulatedScenarios,
    [](const char* const& name) {
      return "pct change points fire inside default-size runs of " + std::string(name);
    },
    CheckChangePointsFire, "[scenario][pct]");

}  // namespace

TEST_CASE("the pct tests cover every simulated scenario", "[scenario][pct]") {
  RegisterBuiltinScenarios();
  std::set<std::string> simulated;
  for (const Scenario* scenario : AllScenarios()) {
    if (scenario->simulated()) simulated.insert(scenario->name());
  }
  const std::set<std::string> listed(std::begin(kSimulatedScenarios),
                                     std::end(kSimulatedScenarios));
  REQUIRE(listed == simulated);
}
