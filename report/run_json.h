// JSON forms of one scenario run (scenario::RunResult), shared by the
// worker protocol (`shale worker` prints one line) and the report files.
//
// A RunResult's JSON object: scenario, seed, verdict ("pass" | "fail"),
// trace_hash (hex string "0x" + 16 digits, or null when unknown: the worker
// died before reporting), ops, crashes, steps, tape_bytes, sim_time_ns,
// faults (kind -> count), options (name -> value), failure (object, or null
// when passed).
// The event trace is never encoded (replay --trace prints it instead).
//
// Thread safety: stateless functions. No exceptions escape: decoders return
// false with one line in *error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "scenarios/scenario.h"

namespace shale::report {

// "0x" followed by exactly 16 lowercase hex digits.
std::string TraceHashHex(uint64_t trace_hash);
[[nodiscard]] bool ParseTraceHashHex(std::string_view text, uint64_t* trace_hash);

// One line of JSON (no newline). trace_hash_known=false writes null.
std::string EncodeRunResultLine(const scenario::RunResult& result, bool trace_hash_known = true);
[[nodiscard]] bool DecodeRunResultLine(std::string_view line, scenario::RunResult* result,
                                       std::string* error);

// "property key 'k' expected 'e' observed 'o' at step N: message" (one line).
std::string DescribeFailure(const scenario::Failure& failure);

}  // namespace shale::report
