// Shared by the campaign tests: a scratch directory per test case, `shale
// run` called in-process (workers are forks of the test binary, so the
// doubles of test_scenarios.h run in them), and report loading.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "campaign.h"
#include "cli_test_support.h"
#include "report/file_io.h"
#include "report/report.h"
#include "run_command.h"
#include "test_scenarios.h"

namespace shale::cli::testing {

// A fresh, empty directory for one test case, removed at scope exit.
struct TempDir {
  explicit TempDir(const std::string& name)
      : path((std::filesystem::temp_directory_path() /
              ("shale-cli-test-" + std::to_string(::getpid()) + "-" + name))
                 .string()) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  const std::string path;
};

// `shale run ARGS` with plain progress lines (and env's hook, if any).
inline CliRun RunCampaignCli(std::vector<std::string> args, CampaignEnv env = {}) {
  RegisterTestScenarios();
  std::ostringstream out, err;
  env.terminal = false;
  const int code = RunRunCommandWith(args, env, out, err);
  return {code, out.str(), err.str()};
}

// Decodes a report and sorts its entries by (scenario, seed) (a campaign
// writes them in completion order).
inline report::Report LoadReport(const std::string& path) {
  std::string text, error;
  report::Report r;
  REQUIRE(report::ReadWholeFile(path, &text, &error));
  INFO(error);
  REQUIRE(report::DecodeReport(text, &r, &error));
  report::SortEntries(&r.entries);
  return r;
}

}  // namespace shale::cli::testing
