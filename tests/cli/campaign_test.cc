// `shale run`, `shale replay` and `shale report merge` end to end, with the
// scenario doubles of test_scenarios.h; workers are this test binary itself.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "campaign_support.h"
#include "command_table.h"
#include "recheck.h"
#include "replay_command.h"
#include "report/failure_file.h"
#include "report/file_io.h"
#include "report/report.h"
#include "run_command.h"
#include "test_scenarios.h"
#include "util/probes.h"
#include "worker_pool.h"

using namespace shale;
using namespace shale::cli;
namespace fs = std::filesystem;

namespace {

using testing::CliRun;
using testing::LoadReport;
using testing::TempDir;

CliRun Run(std::vector<std::string> args) { return testing::RunCampaignCli(std::move(args)); }

CliRun Replay(std::vector<std::string> args) {
  testing::RegisterTestScenarios();
  std::ostringstream out, err;
  const int code = RunReplayCommand(args, out, err);
  return {code, out.str(), err.str()};
}

CliRun Merge(std::vector<std::string> args) {
  std::ostringstream out, err;
  args.insert(args.begin(), "merge");
  const int code = RunReportCommand(args, out, err);
  return {code, out.str(), err.str()};
}

CliRun ReportHtml(std::vector<std::string> args) {
  std::ostringstream out, err;
  args.insert(args.begin(), "html");
  const int code = RunReportCommand(args, out, err);
  return {code, out.str(), err.str()};
}

// Exit 2 and one line on stderr ("shale <command>: ...") containing needle.
void RequireCommandError(const CliRun& run, const std::string& needle) {
  INFO("stderr: " << run.err << "stdout: " << run.out);
  REQUIRE(run.exit_code == kExitUsage);
  REQUIRE(std::count(run.err.begin(), run.err.end(), '\n') == 1);
  REQUIRE(run.err.find(needle) != std::string::npos);
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("run finds the failing seeds and writes report and failures and junit", "[cli][run]") {
  const TempDir temp("fail7");
  const std::string& dir = temp.path;
  const CliRun run =
      Run({"--scenario=test-fail-on-7", "--seeds=1..15", "--jobs=3", "--ops=50", "--out=" + dir});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == kExitFailure);
  REQUIRE(run.out.find("15 seeds, 13 passed, 2 FAILED") != std::string::npos);
  REQUIRE(run.out.find("failures by property: durability=2") != std::string::npos);
  REQUIRE(run.out.find("faults injected: eio=30 power_loss=15") != std::string::npos);
  REQUIRE(run.out.find("FAILED test-fail-on-7 seed 14: durability key 'k7'") != std::string::npos);
  REQUIRE(run.out.find("build/shale replay " + dir + "/failures/test-fail-on-7-7.json") !=
          std::string::npos);
  const report::Report r = LoadReport(dir + "/report.json");
  REQUIRE(r.entries.size() == 15);
  REQUIRE(r.entries[6].result.seed == 7);
  REQUIRE_FALSE(r.entries[6].result.passed);
  REQUIRE(r.entries[6].result.ops == 50);
  REQUIRE(r.entries[6].result.trace_hash == 7 * 0x9e3779b97f4a7c15ull);
  REQUIRE(fs::exists(dir + "/failures/test-fail-on-7-14.json"));
  REQUIRE(!fs::exists(dir + "/failures/test-fail-on-7-13.json"));
  REQUIRE(r.complete);
  std::string xml, error;
  REQUIRE(report::ReadWholeFile(dir + "/junit.xml", &xml, &error));
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = xml.find(needle); at != std::string::npos; at = xml.find(needle, at + 1)) ++n;
    return n;
  };
  REQUIRE(count("<testcase ") == 15);
  REQUIRE(count("<failure ") == 2);
  REQUIRE(xml.find("<testsuite name=\"test-fail-on-7\" tests=\"15\" failures=\"2\"") !=
          std::string::npos);
  REQUIRE(xml.find("name=\"seed 14\"") != std::string::npos);
  for (const auto& file : fs::directory_iterator(dir)) {
    REQUIRE(file.path().extension() != ".part");  // junit's parts are gone
  }
}

TEST_CASE("a crashing or hanging worker is one failed seed and not a dead campaign", "[cli][run]") {
  const TempDir temp("crash");
  const std::string& dir = temp.path;
  const CliRun run =
      Run({"--scenario=test-crash", "--seeds=1..6", "--jobs=6", "--timeout_s=1", "--out=" + dir});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == kExitFailure);
  REQUIRE(run.out.find("6 seeds, 4 passed, 2 FAILED") != std::string::npos);
  const report::Report r = LoadReport(dir + "/report.json");
  REQUIRE(r.entries[2].result.failure.property == "worker crashed");
  REQUIRE(r.entries[2].result.failure.observed.find("signal 6") != std::string::npos);
  REQUIRE_FALSE(r.entries[2].trace_hash_known);
  REQUIRE(r.entries[3].result.failure.property == "worker timeout");
  REQUIRE(r.entries[3].result.failure.observed.find("SIGKILL") != std::string::npos);
  REQUIRE(r.entries[3].wall_ms >= 1000);
  std::string text, error;
  report::FailureFile f;
  REQUIRE(report::ReadWholeFile(dir + "/failures/test-crash-4.json", &text, &error));
  REQUIRE(report::DecodeFailureFile(text, &f, &error));
  REQUIRE_FALSE(f.trace_hash.has_value());
}

// One worker runs several seeds in turn; a crash or hang among them costs
// only that seed, and the seeds after it run in a new worker.
TEST_CASE("a worker runs seeds in turn and a crash among them costs one seed", "[cli][run]") {
  REQUIRE(SeedsPerWorker(6, 6) == 1);
  REQUIRE(SeedsPerWorker(40, 1) == 8);
  REQUIRE(SeedsPerWorker(100000, 2) == kMaxSeedsPerWorker);
  REQUIRE(SeedsPerWorker(0, 0) == 1);
  const TempDir temp("batch");
  const std::string& dir = temp.path;
  const CliRun run =
      Run({"--scenario=test-crash", "--seeds=1..40", "--jobs=1", "--timeout_s=1", "--out=" + dir});
  INFO(run.out << run.err);
  REQUIRE(run.out.find("40 seeds, 38 passed, 2 FAILED") != std::string::npos);
  const report::Report r = LoadReport(dir + "/report.json");
  REQUIRE(r.entries.size() == 40);
  for (const report::SeedEntry& e : r.entries) {
    INFO("seed " << e.result.seed);
    REQUIRE(e.result.passed == (e.result.seed != 3 && e.result.seed != 4));
  }
}

// --max_failures N starts no seed after the Nth failure, so a sweep for a
// bug ends at the first seed that finds it.
TEST_CASE("run stops starting seeds at --max_failures", "[cli][run]") {
  const TempDir temp("maxfail");
  const std::string& dir = temp.path;
  const CliRun run = Run({"--scenario=test-fail-on-7", "--seeds=1..100", "--jobs=1",
                          "--max_failures=2", "--out=" + dir});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == kExitFailure);
  REQUIRE(run.out.find("14 seeds, 12 passed, 2 FAILED") != std::string::npos);
  REQUIRE(run.out.find("stopped at --max_failures 2: 14 of 100 seeds run") != std::string::npos);
  const report::Report r = LoadReport(dir + "/report.json");
  REQUIRE(r.entries.size() == 14);
  REQUIRE(r.campaign.max_failures == 2);
  REQUIRE(r.complete);
  const CliRun all = Run({"--scenario=test-fail-on-7", "--seeds=1..20", "--jobs=2",
                          "--max_failures=5", "--out=" + dir + "/all"});
  REQUIRE(all.out.find("20 seeds, 18 passed, 2 FAILED") != std::string::npos);
  REQUIRE(all.out.find("stopped at") == std::string::npos);
}

TEST_CASE("shards split a campaign and merge joins them", "[cli][run][merge]") {
  const TempDir temp("shards");
  const std::string& dir = temp.path;
  for (const char* shard : {"1/2", "2/2"}) {
    const CliRun run =
        Run({"--scenario=test-fail-on-7", "--seeds=5..12", "--jobs=2",
             std::string("--shard=") + shard, "--out=" + dir + "/s" + std::string(1, shard[0])});
    REQUIRE(run.exit_code == (shard[0] == '1' ? kExitOk : kExitFailure));  // 7 is odd: shard 2/2
  }
  const CliRun merge = Merge({dir + "/all.json", dir + "/s2/report.json", dir + "/s1/report.json"});
  INFO(merge.err);
  REQUIRE(merge.exit_code == kExitOk);
  const report::Report m = LoadReport(dir + "/all.json");
  REQUIRE(m.entries.size() == 8);
  for (size_t i = 0; i < m.entries.size(); ++i) REQUIRE(m.entries[i].result.seed == 5 + i);
  REQUIRE(report::ComputeTotals(m.entries).failed == 1);
  RequireCommandError(Merge({dir + "/x.json", dir + "/s1/report.json", dir + "/s1/report.json"}),
                      "appears in two inputs");
  RequireCommandError(Merge({dir + "/x.json", dir + "/missing.json"}), "cannot read");
  WriteText(dir + "/bad.json", "{ not json");
  RequireCommandError(Merge({dir + "/x.json", dir + "/bad.json"}), "not valid JSON");
  RequireCommandError(Merge({dir + "/x.json"}), "needs OUT.json");
  REQUIRE(!fs::exists(dir + "/x.json"));
  // The merged report renders as a page; bad input is one line, no page.
  const CliRun page = ReportHtml({dir + "/all.json", "--out", dir + "/all.html"});
  INFO(page.err);
  REQUIRE(page.exit_code == kExitOk);
  REQUIRE(fs::exists(dir + "/all.html"));
  RequireCommandError(ReportHtml({}), "want 'report html REPORT.json");
  RequireCommandError(ReportHtml({dir + "/all.json", dir + "/s1/report.json"}),
                      "want 'report html REPORT.json");
  RequireCommandError(ReportHtml({dir + "/all.json", "--out"}), "out");
  RequireCommandError(ReportHtml({dir + "/all.json", "--colour", "--out", dir + "/y.html"}),
                      "colour");
  RequireCommandError(ReportHtml({dir + "/bad.json", "--out", dir + "/y.html"}), "not valid JSON");
  REQUIRE(!fs::exists(dir + "/y.html"));
}

TEST_CASE("replay re-runs a failure file and checks its trace hash", "[cli][replay]") {
  const TempDir temp("replay");
  const std::string& dir = temp.path;
  REQUIRE(Run({"--scenario=test-fail-on-7", "--seeds=7..7", "--out=" + dir}).exit_code ==
          kExitFailure);
  const std::string file = dir + "/failures/test-fail-on-7-7.json";
  const CliRun replay = Replay({file, "--trace"});
  INFO(replay.out << replay.err);
  REQUIRE(replay.exit_code == kExitFailure);
  REQUIRE(replay.out.find("verdict: FAIL") != std::string::npos);
  REQUIRE(replay.out.find("trace_hash matches the failure file") != std::string::npos);
  REQUIRE(replay.out.find("step 2: crash") != std::string::npos);
  const CliRun pass = Replay({"--scenario=test-fail-on-7", "--seed=8"});
  REQUIRE(pass.exit_code == kExitOk);
  REQUIRE(pass.out.find("verdict: PASS") != std::string::npos);

  std::string text, error;
  REQUIRE(report::ReadWholeFile(file, &text, &error));
  const std::string hash = "\"trace_hash\": \"0x";
  text.replace(text.find(hash) + hash.size(), 16, "0000000000000001");
  WriteText(dir + "/tampered.json", text);
  const CliRun nondet = Replay({dir + "/tampered.json"});
  REQUIRE(nondet.exit_code == kExitFailure);
  REQUIRE(nondet.out.find("NONDETERMINISM") != std::string::npos);
}

TEST_CASE("bad run input exits 2 with one line and writes nothing", "[cli][run]") {
  const TempDir temp("bad");
  const std::string& dir = temp.path;
  const std::string out = "--out=" + dir + "/o";
  RequireCommandError(Run({"--scenario=nope", "--seeds=1..2", out}), "unknown scenario 'nope'");
  RequireCommandError(Run({"--seeds=1..2", out}), "--scenario is required");
  RequireCommandError(Run({"--scenario=test-crash", out}), "--seeds A..B is required");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=2..1", out}), "malformed seed range");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1-2", out}), "malformed seed range");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1..2", "--shard=3/2", out}),
                      "malformed shard");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1..1", "--shard=1/2", out}),
                      "keeps no seed");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1..2", "--strategy=dfs", out}),
                      "unknown strategy");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1..2", "--jobs=x", out}),
                      "bad value for --jobs");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=0..18446744073709551615", out}),
                      "too many seeds");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1..2", "--bogus", out}),
                      "unknown flag --bogus");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1..2",
                           "--planted_bugs=rollback_keeps_data,nope", out}),
                      "unknown planted bug 'nope'");
  RequireCommandError(Run({"--scenario=test-crash", "--seeds=1..2", "--planted_bugs=1", out}),
                      "unknown planted bug '1'");
  REQUIRE(!fs::exists(dir + "/o"));
  WriteText(dir + "/file", "");
  RequireCommandError(Run({"--scenario=test-fail-on-7", "--seeds=1..2", "--out=" + dir + "/file"}),
                      "cannot create directory");
}

TEST_CASE("bad replay input exits 2 with one line", "[cli][replay]") {
  const TempDir temp("badreplay");
  const std::string& dir = temp.path;
  RequireCommandError(Replay({dir + "/missing.json"}), "cannot read");
  RequireCommandError(Replay({dir}), "not a regular file");
  WriteText(dir + "/garbage.json", "garbage");
  RequireCommandError(Replay({dir + "/garbage.json"}), "not valid JSON");
  WriteText(dir + "/other.json", "{\"format\":\"shale-report\"}");
  RequireCommandError(Replay({dir + "/other.json"}), "not a shale failure file");
  WriteText(dir + "/short.json", "{\"format\":\"shale-failure\",\"scenario\":\"test-crash\"}");
  RequireCommandError(Replay({dir + "/short.json"}), "failure file:");
  RequireCommandError(Replay({"--scenario=nope", "--seed=1"}), "unknown scenario 'nope'");
  RequireCommandError(Replay({"--scenario=test-crash", "--seed=-1"}), "bad value for --seed");
  RequireCommandError(Replay({}), "give a failure FILE");
  RequireCommandError(Replay({"--scenario=test-crash", "--seed=1", "--planted_bugs=,"}),
                      "unknown planted bug ''");
  RequireCommandError(Replay({"a.json", "b.json"}), "unexpected argument");
}

TEST_CASE("a campaign counts the seeds reaching each probe and lists those none reached",
          "[cli][run][probes]") {
  const TempDir temp("probes");
  const std::string& dir = temp.path;
  const CliRun run = Run({"--scenario=test-fail-on-7", "--seeds=1..6", "--jobs=2", "--out=" + dir,
                          "--require_probes=compaction.trivial_move,write.slowdown"});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == kExitOk);
  REQUIRE(run.out.find("coverage probes: 2 of " + std::to_string(probes::kCount) +
                       " reached in 6 simulated seeds; never hit: cache.block_evicted") !=
          std::string::npos);
  REQUIRE(run.out.find("--require_probes") == std::string::npos);
  const report::Totals t = report::ComputeTotals(LoadReport(dir + "/report.json").entries);
  REQUIRE(t.probe_counted_seeds == 6);
  REQUIRE(t.probe_seeds.size() == probes::kCount);
  REQUIRE(t.probe_seeds.at("write.slowdown") == 3);
  REQUIRE(t.probe_seeds.at("compaction.trivial_move") == 2);
  REQUIRE(t.probe_seeds.at("write.stop_level0") == 0);
  const std::vector<std::string> never = report::ProbesNeverHit(t);
  REQUIRE(never.size() == probes::kCount - 2);
  REQUIRE(std::find(never.begin(), never.end(), "write.slowdown") == never.end());
  std::string text, error;
  REQUIRE(report::ReadWholeFile(dir + "/report.json", &text, &error));
  REQUIRE(text.find("\"never_hit\":[\"cache.block_evicted\"") != std::string::npos);
}

TEST_CASE("a required probe that no seed reached fails a green campaign (require_probes)",
          "[cli][run][probes]") {
  const TempDir temp("probes_required");
  const CliRun run =
      Run({"--scenario=test-fail-on-7", "--seeds=1..6", "--jobs=2", "--out=" + temp.path,
           "--require_probes=write.slowdown,write.stop_level0"});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == kExitFailure);
  REQUIRE(run.out.find("6 seeds, 6 passed") != std::string::npos);
  REQUIRE(run.out.find("FAILED --require_probes: 1 required probe never hit (only simulated "
                       "seeds count them): write.stop_level0") != std::string::npos);
  const CliRun all = Run({"--scenario=test-fail-on-7", "--seeds=1..2", "--jobs=1",
                          "--out=" + temp.path + "/all", "--require_probes=all"});
  REQUIRE(all.exit_code == kExitFailure);
  REQUIRE(all.out.find(std::to_string(probes::kCount - 1) + " required probes never hit") !=
          std::string::npos);
}

TEST_CASE("an unknown probe in --require_probes exits 2", "[cli][run][probes]") {
  const TempDir temp("probes_unknown");
  RequireCommandError(Run({"--scenario=test-fail-on-7", "--seeds=1..2", "--out=" + temp.path,
                           "--require_probes=write.slowdown,no.such_probe"}),
                      "unknown probe 'no.such_probe'");
  REQUIRE_FALSE(fs::exists(temp.path + "/report.json"));
}

TEST_CASE("recheck catches a planted nondeterminism: a scenario that reads a pointer",
          "[cli][run][recheck]") {
  const TempDir temp("recheck_pointer");
  const std::string& dir = temp.path;
  const CliRun run = Run({"--scenario=test-reads-a-pointer", "--seeds=1..3", "--jobs=2",
                          "--recheck=100", "--out=" + dir});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == kExitFailure);
  REQUIRE(run.out.find("3 seeds, 0 passed, 3 FAILED") != std::string::npos);
  REQUIRE(run.out.find("failures by property: nondeterminism=3") != std::string::npos);
  REQUIRE(run.out.find("determinism recheck: 3 of 3 seeds re-run in another worker, 3 ran "
                       "differently") != std::string::npos);
  const report::Report r = LoadReport(dir + "/report.json");
  REQUIRE(r.entries.size() == 3);
  for (const report::SeedEntry& e : r.entries) {
    INFO(e.result.failure.message);
    REQUIRE(e.rechecked);
    REQUIRE(e.result.failure.property == "nondeterminism");
    REQUIRE(e.result.failure.expected.find("the first run's: trace hash 0x") == 0);
    REQUIRE(e.result.failure.observed.find("a re-run in another worker: trace hash 0x") == 0);
    // The two re-runs' traces part at the map's address (event 2), unless
    // their workers happened to see the same one.
    const std::string& m = e.result.failure.message;
    REQUIRE((m.find("the first event the two re-runs differ on is #2: 'step 2: map at ") !=
                 std::string::npos ||
             m.find("the two re-runs agree on all 3 events") != std::string::npos));
    const std::string stem =
        dir + "/failures/test-reads-a-pointer-" + std::to_string(e.result.seed) + ".rerun-";
    REQUIRE(fs::exists(stem + "1.trace"));
    REQUIRE(fs::exists(stem + "2.trace"));
    REQUIRE(fs::exists(dir + "/failures/test-reads-a-pointer-" + std::to_string(e.result.seed) +
                       ".json"));
  }
}

TEST_CASE("recheck re-runs its share of a deterministic campaign and passes it",
          "[cli][run][recheck]") {
  const TempDir temp("recheck_share");
  const std::string& dir = temp.path;
  const CliRun run = Run(
      {"--scenario=test-fail-on-7", "--seeds=1..40", "--jobs=2", "--recheck=50%", "--out=" + dir});
  INFO(run.out << run.err);
  uint64_t chosen = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) chosen += RecheckChosen("test-fail-on-7", seed, 5000);
  REQUIRE(chosen > 5);
  REQUIRE(chosen < 35);
  REQUIRE(run.exit_code == kExitFailure);  // the multiples of 7, as without a recheck
  REQUIRE(run.out.find("failures by property: durability=5\n") != std::string::npos);
  REQUIRE(run.out.find("determinism recheck: " + std::to_string(chosen) +
                       " of 40 seeds re-run in another worker, 0 ran differently") !=
          std::string::npos);
  const report::Report r = LoadReport(dir + "/report.json");
  REQUIRE(r.entries.size() == 40);
  for (const report::SeedEntry& e : r.entries) {
    REQUIRE(e.rechecked == RecheckChosen("test-fail-on-7", e.result.seed, 5000));
  }
  REQUIRE(report::ComputeTotals(r.entries).rechecked == chosen);
  const CliRun none =
      Run({"--scenario=test-fail-on-7", "--seeds=1..6", "--recheck=0", "--out=" + dir + "/none"});
  REQUIRE(none.out.find("determinism recheck") == std::string::npos);
}

TEST_CASE("a bad --recheck share exits 2", "[cli][run][recheck]") {
  const TempDir temp("recheck_bad");
  for (const char* bad : {"101", "abc", "1.234", "-1", "5%%", ".5", "5."}) {
    RequireCommandError(Run({"--scenario=test-fail-on-7", "--seeds=1..2", "--out=" + temp.path,
                             std::string("--recheck=") + bad}),
                        "bad --recheck");
  }
}

TEST_CASE("recheck's choice is a fixed share, and traces part at their first differing event",
          "[cli][recheck]") {
  uint64_t chosen = 0;
  for (uint64_t seed = 1; seed <= 100000; seed++)
    chosen += RecheckChosen("crash-recovery", seed, 500);
  REQUIRE(chosen > 4500);
  REQUIRE(chosen < 5500);
  REQUIRE_FALSE(RecheckChosen("crash-recovery", 12345, 0));
  REQUIRE(RecheckChosen("crash-recovery", 12345, 10000));
  REQUIRE(FirstDivergence("a\nb\nc\n", "a\nb\nc\n") == "the two re-runs agree on all 3 events");
  REQUIRE(FirstDivergence("a\nb\nc\n", "a\nx\nc\n") ==
          "the first event the two re-runs differ on is #2: 'b' in one, 'x' in the other");
  REQUIRE(FirstDivergence("a\nb\n", "a\nb\nc\n") ==
          "the first event the two re-runs differ on is #3: the end of its trace in one, 'c' in "
          "the other");
}
