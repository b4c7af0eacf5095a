// One run named on the command line, as `shale replay` and `shale shrink`
// take it: a failure FILE, or --scenario with one of --seed N or
// --tape FILE (a raw choice tape, e.g. a fuzzer's crash input), plus
// --ops, --crashes, --strategy, --faults and --planted_bugs.
//
// Thread safety: stateless functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "flag_set.h"
#include "scenarios/scenario.h"

namespace shale::cli {

struct RunTargetFlags {
  std::string scenario, seed, tape, strategy, faults, planted_bugs, engine, pins;
  int64_t ops = 0, crashes = 3;
};

void DefineRunTargetFlags(FlagSet* f, RunTargetFlags* v);

struct RunTarget {
  scenario::RunConfig config;
  std::optional<uint64_t> expected_hash;         // a failure file's trace_hash
  std::optional<std::string> expected_property;  // a failure file's failure property
};

// From the positional arguments (at most one FILE) and the flags. A FILE
// replays from its tape unless from_seed. False with one line in *error
// (bad flags, an unreadable or malformed file, an unknown scenario).
[[nodiscard]] bool ResolveRunTarget(std::span<const std::string> positional,
                                    const RunTargetFlags& v, bool from_seed, RunTarget* target,
                                    std::string* error);

}  // namespace shale::cli
