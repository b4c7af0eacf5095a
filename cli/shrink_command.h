// `shale shrink FILE [--out SHRUNK.json] [--max_seconds N]`, or
// `shale shrink --scenario S --tape TAPE|--seed N [--planted_bugs B] ...`
// (run_target.h): cuts the failure in FILE (a failure file), or of the run
// the flags name (e.g. a fuzzer's crash input), down to a small run that
// fails the same property (shrinker.h), writes it as a new, self-contained
// failure file (default: FILE's or TAPE's name with .shrunk.json; --out is
// required with --seed), and prints it as a numbered
// story: each client's operations with their results, crashes, recovery
// checks, and the failed check with expected and observed values.
// A progress line goes to stderr about once a second.
// Exit codes: 0 shrunk and written; 2 bad usage, an unreadable or
// malformed FILE, a FILE whose run passes, or an unwritable output.
//
// Thread safety: call from one thread (runs the scenario in-process).
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace shale::cli {

int RunShrinkCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);
std::string ShrinkUsage();

// The story of a traced run (RunConfig::trace): its workload, crash,
// recovery and check events, numbered, then the failure (if any).
std::vector<std::string> StoryOf(const scenario::RunResult& traced);

}  // namespace shale::cli
