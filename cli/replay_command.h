// `shale replay FILE [--trace]` or
// `shale replay --scenario S --seed N [--ops N] [--crashes N] [--strategy T] [--trace]`:
// re-runs one seed in this process and prints its verdict, trace_hash, the
// failure (if any) and, with --trace, the event trace.
//
// FILE is a failure file (report/failure_file.h). If it records a
// trace_hash and the replay's differs, that is NONDETERMINISM (the same
// seed took a different path): said loudly, exit 1.
// Exit codes: 0 the seed passed (and the hash matched), 1 it failed or the
// hash differed, 2 bad usage, unknown scenario, or an unreadable/malformed FILE.
//
// Thread safety: call from one thread (runs the scenario in-process).
#pragma once

#include <ostream>
#include <span>
#include <string>

namespace shale::cli {

int RunReplayCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);
std::string ReplayUsage();

}  // namespace shale::cli
