// A `shale run` campaign: every (scenario, seed) of RunOptions run in worker
// processes (worker_pool.h), each seed's outputs written as it finishes
// (campaign_outputs.h says which files, and how each survives a kill).
//
// Memory (the parent's, whatever the number of seeds): jobs are made one
// at a time as worker slots free (never the list of seeds); of the results
// only a report::CampaignTally is kept (counters by fault kind, failed
// property and scenario, the promise table, and at most kMaxListedFailures
// failed entries; failures past that are written to their failure files
// and counted, not kept); plus what the worker pool holds for its at most
// --jobs running workers (each <= ~2 MiB of output). Nothing done per seed
// scans or grows anything sized by the seeds done, so the last seeds run
// as fast as the first.
//
// Thread safety: single-threaded (the pool forks). Ownership: borrows the
// streams.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "campaign_outputs.h"
#include "report/campaign_tally.h"
#include "run_flags.h"

namespace shale::cli {

struct CampaignEnv {
  bool terminal = false;  // progress bar in place (isatty(2)) or plain lines
  // The command a usage error names ("shale run: ...", "shale diff: ...").
  const char* command = "run";
  // If set, called after each seed's outputs are written, with the number
  // of seeds done (tests read the outputs mid-campaign through it).
  std::function<void(uint64_t seeds_done)> after_seed;
};

struct CampaignResult {
  report::CampaignTally tally{0};
  uint64_t wall_ms = 0;
};

// Runs the campaign; progress goes to err. REQUIRES: DIR/failures exists.
// False with one line in *error when an output cannot be written: the
// campaign then starts no more seeds and returns once the running ones end.
[[nodiscard]] bool RunCampaign(const RunOptions& options, const CampaignEnv& env, std::ostream& err,
                               CampaignResult* result, std::string* error);

}  // namespace shale::cli
