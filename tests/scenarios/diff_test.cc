// The differential oracle: logs are valid, the shrinker keeps a difference
// while cutting the log, a correct engine answers alike under every option
// set, and planted engine bugs are reported as differences.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "scenarios/diff/diff_log.h"
#include "scenarios/diff/diff_shrink.h"
#include "scenarios/scenario.h"
#include "shale/options.h"

namespace shale::scenario {
namespace {

TEST_CASE("a generated log names only live snapshots", "[diff]") {
  for (uint64_t seed = 1; seed <= 50; seed++) {
    sim::ChoiceTape tape(seed);
    const std::vector<DiffOp> ops = GenerateDiffLog(&tape, 500);
    REQUIRE(ValidSubLog(ops).size() == ops.size());
    std::set<DiffOp::Kind> kinds;
    for (const DiffOp& op : ops) kinds.insert(op.kind);
    if (seed == 1) CHECK(kinds.size() == 10);  // every kind appears in a long log
  }
}

TEST_CASE("ValidSubLog drops ops whose snapshot is gone", "[diff]") {
  DiffOp take, get, reopen;
  take.kind = DiffOp::Kind::kSnapshot;
  take.snapshot = 0;
  get.kind = DiffOp::Kind::kGet;
  get.snapshot = 0;
  reopen.kind = DiffOp::Kind::kReopen;
  CHECK(ValidSubLog({take, get}).size() == 2);
  CHECK(ValidSubLog({get}).empty());
  CHECK(ValidSubLog({take, reopen, get}).size() == 2);
}

TEST_CASE("the shrinker keeps the difference and drops the rest", "[diff]") {
  sim::ChoiceTape tape(7);
  std::vector<DiffOp> ops = GenerateDiffLog(&tape, 300);
  DiffOp a, b;
  a.kind = b.kind = DiffOp::Kind::kPut;
  a.key = "needle-a";
  b.key = "needle-b";
  ops.insert(ops.begin() + 40, a);
  ops.insert(ops.begin() + 200, b);
  // "Differs" when both needles are present, a before b.
  const auto differs = [](const std::vector<DiffOp>& log) {
    int seen = 0;
    for (const DiffOp& op : log) {
      if (op.key == "needle-a" && seen == 0) seen = 1;
      if (op.key == "needle-b" && seen == 1) seen = 2;
    }
    return seen == 2;
  };
  const std::vector<DiffOp> shrunk = ShrinkDiffLog(ops, differs, 10000);
  REQUIRE(shrunk.size() == 2);
  CHECK(shrunk[0].key == "needle-a");
  CHECK(shrunk[1].key == "needle-b");
}

RunResult RunDiff(uint64_t seed, uint64_t bugs) {
  RegisterBuiltinScenarios();
  RunConfig config;
  config.scenario = "diff-options";
  config.seed = seed;
  config.planted_bugs = bugs;
  return FindScenario("diff-options")->Run(config);
}

TEST_CASE("diff-options: the correct engine answers alike under every option set", "[diff]") {
  for (uint64_t seed = 1; seed <= 40; seed++) {
    const RunResult r = RunDiff(seed, 0);
    INFO("seed " << seed << ": " << r.failure.message);
    REQUIRE(r.passed);
    CHECK(r.options_drawn.count("set3") == 1);
  }
  CHECK(RunDiff(5, 0).trace_hash == RunDiff(5, 0).trace_hash);
}

TEST_CASE("diff-options reports planted read-path bugs as a difference, with a short log",
          "[diff]") {
  for (const PlantedBug bug : {kBugSeekSkipsKeyAfterTombstone, kBugCompactionIgnoresSnapshots}) {
    INFO("bug " << bug);
    RunResult failure;
    for (uint64_t seed = 1; seed <= 300 && failure.passed; seed++) failure = RunDiff(seed, bug);
    REQUIRE_FALSE(failure.passed);
    CHECK(failure.failure.property == "same answers under every option set");
    CHECK(RunDiff(failure.seed, 0).passed);  // the bug's, not noise
    CHECK_FALSE(failure.recorded_history.empty());
    CHECK(failure.recorded_history.size() <= 20);  // cut down from a 600-op log
  }
}

}  // namespace
}  // namespace shale::scenario
