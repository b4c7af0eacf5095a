// The crash-recovery scenario passes on the correct engine and is
// deterministic: the same seed gives the same trace hash and result.
#include <catch2/catch.hpp>

#include "scenarios/crash_recovery/crash_recovery.h"

using namespace shale::scenario;

namespace {
RunResult RunSeed(uint64_t seed, int ops = 400, int crashes = 2, uint64_t bugs = 0) {
  RunConfig config;
  config.scenario = "crash-recovery";
  config.seed = seed;
  config.ops = ops;
  config.crashes = crashes;
  config.planted_bugs = bugs;
  return CrashRecoveryScenario()->Run(config);
}
}  // namespace

TEST_CASE("crash-recovery passes on the correct engine", "[scenario]") {
  for (uint64_t seed = 1; seed <= 20; seed++) {
    const RunResult r = RunSeed(seed);
    INFO("seed " << seed << ": " << r.failure.property << " key " << r.failure.key << " expected "
                 << r.failure.expected << " observed " << r.failure.observed << " -- "
                 << r.failure.message);
    REQUIRE(r.passed);
    REQUIRE(r.crashes == 2);
    REQUIRE(r.ops > 0);
  }
}

TEST_CASE("crash-recovery is deterministic per seed", "[scenario]") {
  for (uint64_t seed : {3u, 17u}) {
    const RunResult a = RunSeed(seed);
    const RunResult b = RunSeed(seed);
    REQUIRE(a.trace_hash == b.trace_hash);
    REQUIRE(a.ops == b.ops);
    REQUIRE(a.steps == b.steps);
    REQUIRE(a.sim_time_ns == b.sim_time_ns);
  }
  REQUIRE(RunSeed(3).trace_hash != RunSeed(4).trace_hash);
}
