// The `shale` binary as this folder's tests drive it, in fresh processes:
// a command line, and the failed seeds of the campaign report it wrote.
// REQUIRES: SHALE_BINARY names the built `shale` (test_bugs defines it).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/run_binary.h"

namespace shale_test {

// Runs `shale ARGS` (stderr folded into the output).
inline CommandResult RunShale(const std::string& args) {
  return RunCommandLine(std::string(SHALE_BINARY) + " " + args);
}

// The failed seeds of a campaign's report.json, in seed order, with the
// property each failure names. REQUIRES: the file is a whole report.
std::vector<std::pair<uint64_t, std::string> > FailedSeeds(const std::string& report_path);

}  // namespace shale_test
