// A failure file: DIR/failures/<scenario>-<seed>.json, everything needed to
// replay one failed seed bit-for-bit (`shale replay FILE`).
//
// Format (JSON, "format": "shale-failure", "version": 1): scenario, seed,
// ops, crashes, strategy, planted_bugs (the RunConfig), trace_hash (the hash
// the failing run produced, "0x"+16 hex digits; null when the worker died
// before reporting one), failure (run_json.h's failure object), options
// (drawn by the seed; informational), replay (the command line), and,
// when known, the choice tape the run read: tape_bytes and tape
// (tape_codec.h). A file with a tape replays from the tape (config.tape);
// one without, from the seed. "ops" is the workload operations the failing
// run did (a shrunk file's size); the run's limit is "ops_limit" (0: the
// scenario's default).
//
// Thread safety: stateless functions. No exceptions escape.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"

namespace shale::report {

struct FailureFile {
  scenario::RunConfig config;          // trace is not stored (always false)
  uint64_t ops_done = 0;               // workload operations of the failing run
  std::optional<uint64_t> trace_hash;  // expected on replay
  scenario::Failure failure;
  std::map<std::string, std::string> options_drawn;
  std::string replay;
  // A real (not simulated) run's record of what it did
  // (RunResult::recorded_history): "history", when not empty.
  std::vector<std::string> history;
};

std::string EncodeFailureFile(const FailureFile& file);
[[nodiscard]] bool DecodeFailureFile(std::string_view text, FailureFile* file, std::string* error);

// "<scenario>-<seed>.json".
std::string FailureFileName(const std::string& scenario, uint64_t seed);

}  // namespace shale::report
