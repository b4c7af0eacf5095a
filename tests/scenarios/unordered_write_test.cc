// The unordered-write scenario holds each write mode to exactly its
// promises: kept ones never fail on the correct engine, dropped ones are
// observed within a bounded number of seeds, and a planted bug that breaks
// a kept promise is caught and replays.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "common/scenario_checks.h"
#include "scenarios/unordered_write/unordered_write.h"
#include "shale/options.h"

using namespace shale::scenario;

namespace {
RunResult RunSeed(uint64_t seed, uint64_t bugs = 0) {
  RunConfig config;
  config.scenario = "unordered-write";
  config.seed = seed;
  config.ops = 300;
  config.planted_bugs = bugs;
  return UnorderedWriteScenario()->Run(config);
}
}  // namespace

TEST_CASE("unordered-write: every mode keeps its promises on the correct engine",
          "[scenario][unordered-write]") {
  std::map<std::string, int> modes;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    const RunResult r = RunSeed(seed);
    INFO("seed " << seed << ": " << r.failure.property << " key " << r.failure.key << " -- "
                 << r.failure.message);
    REQUIRE(r.passed);
    REQUIRE(r.ops > 0);
    modes[r.options_drawn.at("write_mode")]++;
  }
  REQUIRE(modes.size() == 4);
}

TEST_CASE("unordered-write: every dropped promise is observed within 150 seeds",
          "[scenario][unordered-write]") {
  std::map<std::string, uint64_t> first_seen;  // "mode/promise" -> seed
  std::map<std::string, bool> dropped;
  for (const Scenario::PromiseRow& row : UnorderedWriteScenario()->promises()) {
    if (!row.kept) dropped[row.mode + "/" + row.promise] = true;
  }
  REQUIRE(dropped.size() == 2);
  for (uint64_t seed = 1; seed <= 150 && first_seen.size() < dropped.size(); seed++) {
    const RunResult r = RunSeed(seed);
    REQUIRE(r.passed);
    for (const auto& [promise, n] : r.observed) {
      const std::string key = r.options_drawn.at("write_mode") + "/" + promise;
      REQUIRE(dropped.count(key) == 1);  // only dropped promises are merely observed
      if (n > 0 && first_seen.count(key) == 0) first_seen[key] = seed;
    }
  }
  for (const auto& [key, unused] : dropped) {
    INFO("never observed: " << key << " (the scheduler is not exploring)");
    REQUIRE(first_seen.count(key) == 1);
  }
}

TEST_CASE("unordered-write is deterministic per seed", "[scenario][unordered-write]") {
  for (uint64_t seed : {2u, 9u}) {
    const RunResult a = RunSeed(seed);
    const RunResult b = RunSeed(seed);
    REQUIRE(a.trace_hash == b.trace_hash);
    REQUIRE(a.observed == b.observed);
    REQUIRE(a.steps == b.steps);
  }
}

// The checker bites: publishing before the memtable insert in vanilla or
// pipelined mode breaks atomic reads or immutable snapshots.
TEST_CASE("unordered-write catches a vanilla group published before its inserts",
          "[scenario][unordered-write][bugs]") {
  uint64_t found_at = 0;
  RunResult failure;
  for (uint64_t seed = 1; seed <= 200 && found_at == 0; seed++) {
    RunResult r = RunSeed(seed, shale::kBugPublishBeforeMemtableInsert);
    if (!r.passed) {
      found_at = seed;
      failure = r;
    }
  }
  REQUIRE(found_at != 0);
  REQUIRE((failure.failure.property == "atomic reads" ||
           failure.failure.property == "immutable snapshots"));
  REQUIRE(failure.options_drawn.at("write_mode") != "unordered");
  const RunResult again = RunSeed(found_at, shale::kBugPublishBeforeMemtableInsert);
  shale_test::RequireSameFailure(failure, again);
}

// The checker bites for the fourth mode too: a WritePrepared write that the
// main queue publishes (instead of preparing it and committing through the
// second queue) shows unordered_write through, and atomic reads or
// immutable snapshots fail in the mode that promises them.
TEST_CASE("unordered-write catches WritePrepared writes published unprepared",
          "[scenario][unordered-write][bugs]") {
  const uint64_t bug = shale::kBugWritePreparedPublishesUnprepared;
  uint64_t found_at = 0;
  RunResult failure;
  for (uint64_t seed = 1; seed <= 300 && found_at == 0; seed++) {
    RunResult r = RunSeed(seed, bug);
    if (!r.passed) {
      found_at = seed;
      failure = r;
    }
  }
  REQUIRE(found_at != 0);
  INFO(failure.failure.property << ": " << failure.failure.message);
  REQUIRE((failure.failure.property == "atomic reads" ||
           failure.failure.property == "immutable snapshots"));
  REQUIRE(failure.options_drawn.at("write_mode") == "unordered+WritePrepared+two_write_queues");
  const RunResult again = RunSeed(found_at, bug);
  shale_test::RequireSameFailure(failure, again);
}
