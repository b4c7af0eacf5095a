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
// common/row_tests.h); the test below keeps this list complete. A
// table-cache seed costs about ten of the others', so it runs fewer.
struct PctRow {
  const char* name;
  uint64_t seeds;
};
const PctRow kSimulatedScenarios[] = {
    {"crash-recovery", 12}, {"diff-options", 12},    {"open-channel", 12}, {"snapshot", 12},
    {"table-cache", 4},     {"unordered-write", 12}, {"windows", 12},
};

void CheckChangePointsFire(const PctRow& row) {
  RegisterBuiltinScenarios();
  const Scenario* scenario = FindScenario(row.name);
  REQUIRE(scenario != nullptr);
  REQUIRE(scenario->simulated());
  const uint64_t seeds = row.seeds;
  uint64_t fired = 0;
  for (uint64_t seed = 1; seed <= seeds; seed++) {
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
  INFO(scenario->name() << ": " << fired << " change points fired over " << seeds << " runs");
  REQUIRE(fired * 2 >= 3 * seeds);
  RunConfig random_config;
  random_config.scenario = scenario->name();
  random_config.strategy = "random";
  const RunResult r = scenario->Run(random_config);
  REQUIRE(r.scheduler == "random");
  REQUIRE(r.pct_change_points == 0);
}

[[maybe_unused]] const bool kPctTestsRegistered = shale_test::RegisterRowTests(
    kSimulatedScenarios,
    [](const PctRow& row) {
      return "pct change points fire inside default-size runs of " + std::string(row.name);
    },
    CheckChangePointsFire, "[scenario][pct]");

}  // namespace

TEST_CASE("the pct tests cover every simulated scenario", "[scenario][pct]") {
  RegisterBuiltinScenarios();
  std::set<std::string> simulated;
  for (const Scenario* scenario : AllScenarios()) {
    if (scenario->simulated()) simulated.insert(scenario->name());
  }
  std::set<std::string> listed;
  for (const PctRow& row : kSimulatedScenarios) listed.insert(row.name);
  REQUIRE(listed == simulated);
}
