// shale shrink: the shrunk run fails the same property, is no larger than
// the original in the order the shrinker keeps edits by, replays exactly
// from its tape through the failure file, and tells a story ending in the
// failed check. Bad input exits 2 with one line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include "cli_test_support.h"
#include "command_table.h"
#include "common/temp_dir.h"
#include "report/failure_file.h"
#include "shale/options.h"
#include "shrink_command.h"
#include "shrinker.h"

using namespace shale;
using namespace shale::cli;

namespace {

// A small failing run: a scan skips a live key after a tombstone.
scenario::RunConfig FailingConfig() {
  scenario::RegisterBuiltinScenarios();
  scenario::RunConfig c;
  c.scenario = "crash-recovery";
  c.ops = 200;
  c.planted_bugs = kBugSeekSkipsKeyAfterTombstone;
  for (c.seed = 1; c.seed < 50; c.seed++) {
    if (!scenario::FindScenario(c.scenario)->Run(c).passed) return c;
  }
  FAIL("no failing seed in 1..49");
  return c;
}

// Exit 2 and exactly one "shale shrink: ..." line containing needle.
void RequireShrinkError(std::vector<std::string> args, const std::string& needle) {
  testing::RequireCommandError(RunShrinkCommand, std::move(args), "shale shrink: ", needle);
}

}  // namespace

TEST_CASE("a shrunk failure is smaller, fails the same way and replays from its tape", "[shrink]") {
  const scenario::RunConfig config = FailingConfig();
  ShrinkOptions options;
  options.max_seconds = 600;  // ends when a round keeps nothing, well before
  ShrinkOutcome o;
  std::string error;
  REQUIRE(Shrink(config, options, &o, &error));
  const scenario::RunResult& before = o.original_result;
  const scenario::RunResult& after = o.shrunk_result;
  CHECK(after.failure.property == before.failure.property);
  CHECK(after.ops <= before.ops);
  CHECK(after.ops < 20);
  // Smaller in the shrinker's order (operations, crashes, tape length): a
  // run with fewer operations may read more of its tape.
  CHECK(std::make_tuple(after.ops, after.crashes, o.shrunk.tape->size()) <=
        std::make_tuple(before.ops, before.crashes, o.original.tape->size()));
  CHECK(o.shrunk.tape->size() == after.tape_bytes);  // cut to what the run read
  // The shrunk config alone replays the run: same hash, same failure.
  const scenario::RunResult again = scenario::FindScenario(config.scenario)->Run(o.shrunk);
  CHECK(again.trace_hash == after.trace_hash);
  CHECK(again.failure.property == after.failure.property);
  CHECK(again.failure.key == after.failure.key);
  // The story names each operation and ends with the failed check.
  scenario::RunConfig traced = o.shrunk;
  traced.trace = true;
  const std::vector<std::string> story =
      StoryOf(scenario::FindScenario(config.scenario)->Run(traced));
  REQUIRE(!story.empty());
  CHECK(story.back().find("FAILED " + after.failure.property) != std::string::npos);
  // Every completed operation has its line; so may one a crash cut short
  // (a transaction is told before its commit), at most one per client
  // (at most 4) per crash.
  size_t op_lines = 0;
  for (const std::string& line : story) op_lines += line.find(" op ") != std::string::npos;
  CHECK(op_lines >= after.ops);
  CHECK(op_lines <= after.ops + 4 * after.crashes);
}

TEST_CASE("a diff failure shrinks on its log's tape, a whole op at a time", "[shrink][diff]") {
  scenario::RegisterBuiltinScenarios();
  scenario::RunConfig config;
  config.scenario = "diff-options";
  config.ops = 300;
  config.planted_bugs = kBugSeekSkipsKeyAfterTombstone;
  const scenario::Scenario* diff = scenario::FindScenario(config.scenario);
  scenario::RunResult first;
  for (config.seed = 1; config.seed <= 300 && first.passed; config.seed++)
    first = diff->Run(config);
  REQUIRE_FALSE(first.passed);
  config.seed = first.seed;
  // The log's draws are the tape, and each op's draws are marked (also a
  // drawn release with no live snapshot, which the log skips).
  CHECK(first.tape_bytes > 0);
  CHECK(first.operation_marks.size() >= first.ops);
  ShrinkOptions options;
  options.max_seconds = 15;
  ShrinkOutcome o;
  std::string error;
  REQUIRE(Shrink(config, options, &o, &error));
  CHECK(o.shrunk_result.failure.property == first.failure.property);
  // How far it gets in the time given varies with the machine: the option
  // sets are drawn after the log, so many edits redraw them too.
  CHECK(o.shrunk_result.ops <= first.ops);
  const scenario::RunResult again = diff->Run(o.shrunk);
  CHECK_FALSE(again.passed);
  CHECK(again.trace_hash == o.shrunk_result.trace_hash);
}

TEST_CASE("shale shrink writes a failure file that shale replay reproduces", "[shrink]") {
  const scenario::RunConfig config = FailingConfig();
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  report::FailureFile f;
  f.config = config;
  f.failure.property = "read consistency";
  const std::string in = dir.Child("f.json");
  std::ofstream(in) << report::EncodeFailureFile(f);
  std::ostringstream out, err;
  const std::vector<std::string> args = {in, "--max_seconds", "600"};
  REQUIRE(RunShrinkCommand(args, out, err) == kExitOk);
  CHECK(out.str().find("story:") != std::string::npos);
  std::ifstream shrunk_in(dir.Child("f.shrunk.json"));
  std::stringstream text;
  text << shrunk_in.rdbuf();
  report::FailureFile shrunk;
  std::string error;
  REQUIRE(report::DecodeFailureFile(text.str(), &shrunk, &error));
  REQUIRE(shrunk.config.tape.has_value());
  CHECK(shrunk.ops_done < 20);
  const scenario::RunResult r = scenario::FindScenario(config.scenario)->Run(shrunk.config);
  CHECK_FALSE(r.passed);
  CHECK(r.trace_hash == *shrunk.trace_hash);
  CHECK(r.ops == shrunk.ops_done);
}

TEST_CASE("shale shrink rejects bad input with one line", "[shrink][cli]") {
  RequireShrinkError({}, "give a failure FILE");
  RequireShrinkError({"/nonexistent/f.json"}, "/nonexistent/f.json");
  RequireShrinkError({"a.json", "--max_seconds", "0"}, "max_seconds");
  // A file whose run passes has nothing to shrink.
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  report::FailureFile f;
  f.config.scenario = "crash-recovery";
  f.config.seed = 1;
  f.config.ops = 20;
  std::ofstream(dir.Child("pass.json")) << report::EncodeFailureFile(f);
  RequireShrinkError({dir.Child("pass.json")}, "nothing to shrink");
}
