// The planted-bug check of a real-backend row. The real-backend scenario
// runs real files and threads, so a seed does not replay bit for bit, and
// a planted bug may kill or hang the process that checks it: the row is
// checked through the `shale` binary, each step in fresh processes.
//   * Campaigns of consecutive seeds (1.., in batches) with the bug, and
//     with shape_flags (`shale run` flags such as " --ops 100 --crashes
//     16": the campaign's shape) run
//     until a seed fails naming one of `properties`; with
//     `pass_over_others`, failures naming another property are passed
//     over (the bug breaks that one too), else the first failure must name
//     one of them. Up to seed_limit seeds.
//   * The control: that seed, in the same shape, passes without the bug.
//   * `shale replay FILE --tries N` brings the failure back, on the same
//     property, within kRealReplayTries tries.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace shale_test {

// The most tries a real-backend replay may take. A failure that needs a
// narrow window (a deadlock between two threads, a power loss right after
// a rename) comes back within a few dozen tries of its seed; a try that
// does not reproduce takes under a second.
inline constexpr int kRealReplayTries = 300;

// REQUIRES: SHALE_BINARY names the built `shale`; bug is a planted bug's
// name; properties are real-backend's.
void CheckRealBackendRow(const char* bug, const std::string& shape_flags,
                         const std::set<std::string>& properties, uint64_t seed_limit,
                         bool pass_over_others);

}  // namespace shale_test
