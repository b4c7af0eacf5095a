// The end-of-campaign summary `shale run` prints on stdout:
//   shale run: 1000 seeds, 998 passed, 2 FAILED
//     wall 12.3 s  81.3 seeds/s  162000 simulated ops/s  simulated time 5012.4 s
//     faults injected: eio=120 power_loss=400 ...
//     failures by property: durability=2
//     FAILED crash-recovery seed 77: durability key 'k' expected 'v' observed ''
//       replay: build/shale replay out/.../failures/crash-recovery-77.json
//   report: out/.../report.json
// The first kMaxListedFailures failed seeds are listed one by one.
//
// Thread safety: stateless.
#pragma once

#include <ostream>
#include <string>

#include "report/report.h"

namespace shale::cli {

inline constexpr size_t kMaxListedFailures = 20;

void PrintRunSummary(const report::Report& report, const std::string& report_path,
                     std::ostream& out);

}  // namespace shale::cli
