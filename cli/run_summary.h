// The end-of-campaign summary `shale run` prints on stdout:
//   shale run: 1000 seeds, 998 passed, 2 FAILED
//     wall 12.3 s  81.3 seeds/s  162000 workload ops/s  510000 engine ops/s  simulated time 5012.4 s
//     per worker second (one core): 40.6 seeds, 81000 workload ops, 255000 engine ops
//     faults injected: eio=120 power_loss=400 ...
//     failures by property: durability=2
//     coverage probes: 31 of 34 reached in 1000 simulated seeds; never hit: a b c
//     determinism recheck: 52 of 1000 seeds re-run in another worker, 0 ran differently
//     FAILED crash-recovery seed 77: durability key 'k' expected 'v' observed ''
//       replay: build/shale replay out/.../failures/crash-recovery-77.json
//   report: out/.../report.json
// Workload ops are the scenario's operations; engine ops count the engine
// calls they made as db_bench counts (RunResult::engine_ops). "Per worker
// second" divides by the summed wall time of the seeds' worker processes
// (fork to exit): the throughput of one core, whatever --jobs was.
// The kMaxListedFailures failed seeds first by (scenario, seed) are listed
// one by one (a campaign keeps just those: campaign.h).
//
// Thread safety: stateless.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/campaign_tally.h"

namespace shale::cli {

inline constexpr size_t kMaxListedFailures = 20;

// The required probes (sorted names) no seed reached: with a required
// list (--require_probes) the campaign fails unless this is empty.
std::vector<std::string> MissingProbes(const report::Totals& totals,
                                       const std::vector<std::string>& required);

// wall_ms: the campaign's wall time.
void PrintRunSummary(const report::CampaignTally& tally, uint64_t wall_ms,
                     const std::string& report_path, std::ostream& out);

}  // namespace shale::cli
