// The table-cache scenario reproduces the Get-cost study's shape: opens per
// Get collapse as max_open_files falls below the file count, and are zero
// after the warm-up at -1; RocksDB 5.9's open path makes each of those
// opens far dearer than Shale's.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/scenario.h"
#include "scenarios/table_cache/table_cache_figures.h"

namespace shale::scenario {
namespace {

namespace fig = table_cache_figures;

double PerGet(const RunResult& r, const char* env, const char* setting, const char* counter) {
  const double gets = static_cast<double>(r.observed.at(fig::FigureName(env, setting, fig::kGets)));
  return static_cast<double>(r.observed.at(fig::FigureName(env, setting, counter))) / gets;
}

double GetsPerSecond(const RunResult& r, const char* env, const char* setting) {
  return 1e9 / PerGet(r, env, setting, fig::kSimNs);
}

TEST_CASE("table-cache: opens per Get fall as max_open_files grows, and are 0 at -1",
          "[table_cache]") {
  RegisterBuiltinScenarios();
  const Scenario* scenario = FindScenario("table-cache");
  REQUIRE(scenario != nullptr);
  for (uint64_t seed : {1, 2}) {
    RunConfig config;
    config.scenario = "table-cache";
    config.seed = seed;
    const RunResult r = scenario->Run(config);
    INFO("seed " << seed << ": " << r.failure.property << " " << r.failure.message);
    REQUIRE(r.passed);
    REQUIRE(r.observed.at(fig::kFiles) >= 400);  // 5% is then above the floor of 20
    for (const char* env : fig::kEnvs) {
      INFO(env);
      double previous = 1e9;
      for (const char* setting : fig::kSettings) {
        INFO(setting);
        const double opens = PerGet(r, env, setting, fig::kOpens);
        if (std::string(setting) == "-1") {
          CHECK(opens == 0.0);
        } else {
          CHECK(opens < previous);
        }
        previous = opens;
      }
      // Below the file count the churn costs throughput.
      CHECK(GetsPerSecond(r, env, "5%") < 0.5 * GetsPerSecond(r, env, "-1"));
    }
    // The same churn costs RocksDB 5.9's open path several times what it
    // costs Shale's: 22 system calls per open (5 of them preads) against 3.
    CHECK(GetsPerSecond(r, "rocksdb-5.9", "5%") * 3 < GetsPerSecond(r, "shale", "5%"));
    CHECK(PerGet(r, "rocksdb-5.9", "5%", fig::kSyscalls) >
          3 * PerGet(r, "shale", "5%", fig::kSyscalls));
  }
}

}  // namespace
}  // namespace shale::scenario
