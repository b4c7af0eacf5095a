// `shale diff [--against options|rocksdb] --seeds A..B [run flags]`: the
// differential scenarios (scenarios/diff/diff_scenarios.h) as a campaign.
// It is `shale run --scenario diff-<against>` with the same flags, report,
// failure files and exit codes; --against defaults to options.
//
// Thread safety: one thread (as RunRunCommand).
#pragma once

#include <ostream>
#include <span>
#include <string>

namespace shale::cli {

int RunDiffCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);
std::string DiffUsage();

}  // namespace shale::cli
