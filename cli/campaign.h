// A `shale run` campaign: every (scenario, seed) of RunOptions run in worker
// processes (worker_pool.h), gathered into a report::Report, and written to
// the output directory.
//
// Output (all files written whole via temp file + rename; report.json last,
// so its presence means the rest is complete):
//   DIR/failures/<scenario>-<seed>.json  one per failed seed (failure_file.h)
//   DIR/junit.xml                        report/junit.h
//   DIR/report.json                      report/report.h
//
// Thread safety: single-threaded. Ownership: borrows the streams.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "report/report.h"
#include "run_flags.h"

namespace shale::cli {

struct CampaignEnv {
  bool terminal = false;   // progress bar in place (isatty(2)) or plain lines
};

// Runs the campaign; progress goes to err. Returns the sorted report, with
// campaign.wall_ms set.
report::Report RunCampaign(const RunOptions& options, const CampaignEnv& env, std::ostream& err);

// "build/shale replay DIR/failures/<scenario>-<seed>.json".
std::string ReplayCommand(const std::string& out_dir, const std::string& scenario, uint64_t seed);

// Writes the failure files, junit.xml and report.json under options.out_dir.
// REQUIRES: DIR/failures exists. False with one line in *error.
[[nodiscard]] bool WriteCampaignOutputs(const RunOptions& options, const report::Report& report,
                                        std::string* error);

std::string ReportPath(const std::string& out_dir);

}  // namespace shale::cli
