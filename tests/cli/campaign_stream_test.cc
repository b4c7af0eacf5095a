// A campaign's outputs as seeds finish: report.json whole JSON after every
// seed and after a kill, failure files written as failures arrive, and the
// parent keeping a bounded number of failures.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "campaign.h"
#include "campaign_support.h"
#include "command_table.h"
#include "report/failure_file.h"
#include "report/file_io.h"
#include "report/report.h"
#include "report/report_reader.h"
#include "run_flags.h"
#include "test_scenarios.h"

using namespace shale;
using namespace shale::cli;
namespace fs = std::filesystem;
using testing::CliRun;
using testing::LoadReport;
using testing::TempDir;

namespace {

std::string FailurePath(const std::string& dir, uint64_t seed) {
  return dir + "/failures/" + report::FailureFileName("test-fail-on-7", seed);
}

// How many entries the report at path holds now (0 if it is not there yet).
size_t EntriesNow(const std::string& path) {
  std::string text, error;
  if (!report::ReadWholeFile(path, &text, &error)) return 0;
  size_t n = 0;
  for (size_t at = text.find("\n{"); at != std::string::npos; at = text.find("\n{", at + 1)) ++n;
  return n;
}

// Starts `shale run` over many seeds in a child process, waits until its
// report holds at least `entries` entries, and kills it with sig.
void RunAndKill(const std::string& dir, size_t entries, int sig) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(sig, SIG_DFL);  // as in build/shale (the test framework catches SIGTERM)
    const CliRun run = testing::RunCampaignCli(
        {"--scenario=test-fail-on-7", "--seeds=1..1000000", "--jobs=2", "--out=" + dir});
    ::_exit(run.exit_code);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (EntriesNow(dir + "/report.json") < entries &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, sig);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == sig);
}

}  // namespace

TEST_CASE("report.json is whole JSON after every seed and failure files come as they fail",
          "[cli][run][stream]") {
  const TempDir temp("everyseed");
  const std::string& dir = temp.path;
  uint64_t checks = 0;
  CampaignEnv env;
  env.after_seed = [&](uint64_t done) {
    const report::Report r = LoadReport(dir + "/report.json");  // strict JSON
    REQUIRE(r.entries.size() == done);
    REQUIRE_FALSE(r.complete);
    for (const report::SeedEntry& e : r.entries) {
      REQUIRE(fs::exists(FailurePath(dir, e.result.seed)) == !e.result.passed);
    }
    REQUIRE_FALSE(fs::exists(dir + "/junit.xml"));
    ++checks;
  };
  const CliRun run = testing::RunCampaignCli(
      {"--scenario=test-fail-on-7", "--seeds=1..40", "--jobs=3", "--out=" + dir}, env);
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == kExitFailure);
  REQUIRE(checks == 40);
  const report::Report r = LoadReport(dir + "/report.json");
  REQUIRE((r.complete && r.entries.size() == 40 && r.campaign.wall_ms > 0));
  for (size_t i = 0; i < r.entries.size(); ++i) REQUIRE(r.entries[i].result.seed == i + 1);
  REQUIRE(fs::exists(dir + "/junit.xml"));
}

TEST_CASE("a campaign killed midway leaves report.json whole JSON", "[cli][run][kill]") {
  const TempDir temp("kill");
  for (const size_t entries : {1, 60, 150}) {
    // Catchable signals wait for the write in progress: the file is always whole JSON.
    const std::string dir = temp.path + "/term" + std::to_string(entries);
    RunAndKill(dir, entries, SIGTERM);
    const report::Report r = LoadReport(dir + "/report.json");
    REQUIRE(r.entries.size() >= entries);
    REQUIRE_FALSE(r.complete);
    REQUIRE(r.campaign.seeds == "1..1000000");
    std::set<uint64_t> seeds;
    for (const report::SeedEntry& e : r.entries) seeds.insert(e.result.seed);
    REQUIRE(seeds.size() == r.entries.size());
    REQUIRE_FALSE(fs::exists(dir + "/junit.xml"));
  }
  // SIGKILL can also cut a write at a page boundary; the reader still takes
  // every whole entry (report_stream.h).
  const std::string dir = temp.path + "/kill";
  RunAndKill(dir, 100, SIGKILL);
  report::ReportHeader header;
  std::set<uint64_t> seeds;
  std::string error;
  REQUIRE(report::ReadReportFile(
      dir + "/report.json", &header,
      [&](const report::SeedEntry& e, std::string_view, std::string*) {
        return seeds.insert(e.result.seed).second;
      },
      &error));
  REQUIRE(seeds.size() >= 99);
  REQUIRE_FALSE(header.complete);
}

TEST_CASE("the parent keeps at most the listed failures and still writes and counts all",
          "[cli][run][stream]") {
  testing::RegisterTestScenarios();
  const TempDir temp("manyfail");
  const std::string& dir = temp.path;
  const std::vector<std::string> args = {"--scenario=test-fail-on-7", "--seeds=1..300", "--jobs=2",
                                         "--out=" + dir};
  RunOptions options;
  std::string error;
  REQUIRE(ParseRunFlags(args, &options, &error) == RunParse::kRun);
  REQUIRE(report::MakeDirectories(dir + "/failures", &error));
  std::ostringstream progress;
  CampaignResult result;
  REQUIRE(RunCampaign(options, CampaignEnv{}, progress, &result, &error));
  REQUIRE(result.tally.totals().failed == 42);
  REQUIRE(result.tally.kept_failures().size() == 20);
  REQUIRE(result.tally.kept_failures().back().result.seed == 140);
  for (uint64_t seed = 7; seed <= 300; seed += 7) REQUIRE(fs::exists(FailurePath(dir, seed)));

  const CliRun run = testing::RunCampaignCli(args);
  REQUIRE(run.out.find("300 seeds, 258 passed, 42 FAILED") != std::string::npos);
  REQUIRE(run.out.find("FAILED test-fail-on-7 seed 140:") != std::string::npos);
  REQUIRE(run.out.find("seed 147:") == std::string::npos);
  REQUIRE(run.out.find("... and 22 more failed seeds") != std::string::npos);
}
