// `shale report merge`: joins report files (shards of one campaign, or of
// several) into one, without holding their entries in memory.
//
// The output is written whole (temporary + rename) in report.h's format:
// entries sorted by (scenario, seed), campaign as MergeCampaigns, totals
// and promises recomputed from the entries, complete if every input is. A
// (scenario, seed) present twice is an error (overlapping shards), and
// then nothing is written.
//
// Memory: 24 bytes of index per entry plus one entry line; the entry lines
// themselves pass through a temporary file next to the output (unlinked as
// soon as it is opened, so it never outlives the process).
//
// Thread safety: stateless. No exceptions escape.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"

namespace shale::report {

// REQUIRES: !inputs.empty(). inputs also label the output's merged_from.
// On success *totals (may be null) are the output's totals. False with one
// line in *error.
[[nodiscard]] bool MergeReportFiles(const std::vector<std::string>& inputs,
                                    const std::string& out_path, Totals* totals,
                                    std::string* error);

}  // namespace shale::report
