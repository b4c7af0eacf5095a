// The crash-recovery scenario passes on the correct engine and is
// deterministic: the same seed gives the same trace hash and result.
#include <catch2/catch.hpp>

#include "scenarios/crash_recovery/crash_recovery.h"
#include "shale/options.h"

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
    REQUIRE(r.crashes >= 1);
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

// The checker bites: each planted bug is found within a bounded number of
// seeds, and the failing seed replays to the same failure and trace hash.
TEST_CASE("crash-recovery finds every planted bug and the failure replays", "[scenario][bugs]") {
  const std::pair<uint64_t, const char*> bugs[] = {
      {shale::kBugAckSyncWriteBeforeWalSync, "ack before WAL sync"},
      {shale::kBugSkipDirSyncAfterCurrent, "no dir sync after CURRENT"},
      {shale::kBugDeleteWalBeforeManifest, "WAL deleted before MANIFEST"},
      {shale::kBugCompactionIgnoresSnapshots, "compaction ignores snapshots"},
      {shale::kBugRecoveryStopsAtCorruption, "recovery stops at corruption"},
  };
  for (const auto& [bug, name] : bugs) {
    uint64_t found_at = 0;
    RunResult failure;
    for (uint64_t seed = 1; seed <= 1500 && found_at == 0; seed++) {
      RunResult r = RunSeed(seed, 2000, 3, bug);
      if (!r.passed) {
        found_at = seed;
        failure = r;
      }
    }
    INFO("planted bug: " << name);
    REQUIRE(found_at != 0);
    const RunResult again = RunSeed(found_at, 2000, 3, bug);
    REQUIRE_FALSE(again.passed);
    REQUIRE(again.trace_hash == failure.trace_hash);
    REQUIRE(again.failure.property == failure.failure.property);
    REQUIRE(again.failure.key == failure.failure.key);
  }
}

// The drawn sizes keep the LSM tree deep: many files and >= 3 levels (a file
// at level 2 or deeper) in at least a quarter of default-size runs.
TEST_CASE("crash-recovery runs form three or more levels", "[scenario]") {
  int deep = 0;
  constexpr int kSeeds = 40;
  for (uint64_t seed = 1; seed <= kSeeds; seed++) {
    const RunResult r = RunSeed(seed, 2000, 3);
    REQUIRE(r.passed);
    REQUIRE(r.options_drawn.count("deepest_level") == 1);
    if (std::stoi(r.options_drawn.at("deepest_level")) >= 2) deep++;
  }
  INFO(deep << " of " << kSeeds << " runs reached level 2");
  REQUIRE(deep * 4 >= kSeeds);
}
