// The differential oracle: logs are valid, the shrinker keeps a difference
// while cutting the log, a correct engine answers alike under every option
// set, and planted engine bugs are reported as differences.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "scenarios/diff/diff_engine.h"
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

TEST_CASE("a long log reaches every seek, both directions, turns, odd keys and empty values",
          "[diff]") {
  sim::ChoiceTape tape(1);
  const std::vector<DiffOp> ops = GenerateDiffLog(&tape, 2000);
  std::set<int> seeks;
  std::set<std::pair<bool, bool>> directions;  // (forward, turns back)
  std::set<size_t> key_lengths;
  bool empty_value = false;
  for (const DiffOp& op : ops) {
    if (op.kind == DiffOp::Kind::kIterate) {
      seeks.insert(static_cast<int>(op.seek));
      if (op.steps > 0) directions.insert({op.forward, op.turn_after >= 0});
    }
    if (!op.key.empty()) key_lengths.insert(op.key.size());
    if (op.kind == DiffOp::Kind::kPut && op.value.empty()) empty_value = true;
  }
  CHECK(seeks.size() == 4);
  CHECK(directions.size() == 4);
  CHECK(key_lengths == std::set<size_t>{4, 5, 6, 7});  // k000, k0000, k0000a, k0000.z
  CHECK(empty_value);
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

// A map with no snapshots, whose Flush fails when told to.
class MapEngine final : public DiffEngine {
 public:
  explicit MapEngine(bool flush_fails) : flush_fails_(flush_fails) {}
  std::string name() const override { return "map"; }
  Status Open() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  Status Put(const Slice& key, const Slice& value) override {
    map_[key.ToString()] = value.ToString();
    return Status::OK();
  }
  Status Delete(const Slice& key) override {
    map_.erase(key.ToString());
    return Status::OK();
  }
  Status Write(const std::vector<DiffOp::BatchEntry>&) override { return Status::OK(); }
  void TakeSnapshot(int) override {}
  void ReleaseSnapshot(int) override {}
  Status Get(const Slice& key, int, std::string* value) override {
    const auto it = map_.find(key.ToString());
    if (it == map_.end()) return Status::NotFound();
    *value = it->second;
    return Status::OK();
  }
  std::unique_ptr<DiffCursor> NewCursor(int) override { return nullptr; }
  Status Flush() override { return flush_fails_ ? Status::IOError("flush") : Status::OK(); }
  Status CompactRange(const std::string&, const std::string&) override { return Status::OK(); }

 private:
  const bool flush_fails_;
  std::map<std::string, std::string> map_;
};

TEST_CASE("a failed call ends the log as an error, never as an answer", "[diff]") {
  std::vector<DiffOp> ops(4);
  ops[0].key = "a";
  ops[0].value = "1";
  ops[1].kind = DiffOp::Kind::kFlush;
  ops[2].kind = DiffOp::Kind::kGet;
  ops[2].key = "a";
  ops[3].kind = DiffOp::Kind::kGet;
  ops[3].key = "b";
  std::vector<std::string> answers;
  std::string where;
  MapEngine good(false);
  REQUIRE(RunDiffLog(ops, &good, &answers, &where).ok());
  CHECK(answers == std::vector<std::string>{"ok", "ok", "=1", "not found"});
  CHECK(where == "close");
  // An engine failing a call is an error of its own, even if every engine
  // fails it alike.
  MapEngine failing(true);
  const Status s = RunDiffLog(ops, &failing, &answers, &where);
  CHECK(s.IsIOError());
  CHECK(answers == std::vector<std::string>{"ok", "error"});
  CHECK(where.rfind("op 2 (flush", 0) == 0);
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
