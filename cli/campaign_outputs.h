// The files a campaign writes into its output directory DIR, each seed's
// share written as the seed finishes:
//   DIR/report.json   streamed in place (report/report_stream.h): whole
//                     JSON after every seed, "complete": true once Finish
//                     has run
//   DIR/failures/<scenario>-<seed>.json
//                     one per failed seed (report/failure_file.h), written
//                     whole (temporary + rename) when the failure arrives
//   DIR/junit.xml     report/junit_stream.h: testcases gathered in part
//                     files as seeds finish, junit.xml written whole by
//                     Finish (a killed campaign leaves none)
//   DIR/table-cache.md, DIR/table-cache.svg
//                     the table-cache study's table and plot, written
//                     whole by Finish when table-cache seeds ran
// Every seed is also folded into a CampaignTally (aggregates and the first
// kMaxListedFailures failures), which is all that stays in memory.
//
// Thread safety: none; one thread. Ownership: borrows options (must
// outlive this); owns its files.
#pragma once

#include <cstdint>
#include <string>

#include "report/campaign_tally.h"
#include "report/junit_stream.h"
#include "report/report.h"
#include "report/report_stream.h"
#include "run_flags.h"

namespace shale::cli {

class CampaignOutputs {
 public:
  explicit CampaignOutputs(const RunOptions& options);

  // Starts report.json (no entries yet) and junit.xml's parts.
  // REQUIRES: DIR/failures exists. False with one line in *error.
  [[nodiscard]] bool Open(std::string* error);
  // Writes the seed's failure file (if failed), report entry and testcase,
  // and tallies it. False with one line in *error.
  [[nodiscard]] bool Add(const report::SeedEntry& entry, std::string* error);
  // Sets the campaign's wall time, writes junit.xml, then marks report.json
  // complete (so "complete": true means every output is written). False
  // with one line in *error.
  [[nodiscard]] bool Finish(uint64_t wall_ms, std::string* error);

  const report::CampaignTally& tally() const { return tally_; }

 private:
  [[nodiscard]] bool WriteFailureFile(const report::SeedEntry& entry, std::string* error);
  // DIR/table-cache.md and DIR/table-cache.svg, when table-cache runs
  // reported figures (report/table_cache_study.h).
  [[nodiscard]] bool WriteStudies(std::string* error);

  const RunOptions& options_;
  report::CampaignTally tally_;
  report::ReportStream report_;
  report::JunitStream junit_;
  size_t wall_ms_offset_ = 0;  // of the campaign's wall_ms field in report.json
};

std::string ReportPath(const std::string& out_dir);
// "build/shale replay DIR/failures/<scenario>-<seed>.json".
std::string ReplayCommand(const std::string& out_dir, const std::string& scenario, uint64_t seed);

}  // namespace shale::cli
