// `shale worker`: the hidden subcommand `shale run` re-executes itself as,
// one process per (scenario, seed), so a seed that crashes or hangs cannot
// take the campaign down.
//
// Protocol: `shale worker --scenario S --seed N --ops O --crashes C
// --strategy T --planted_bugs B` runs scenario S's Run(config) and writes
// the RunResult as ONE line of JSON (report/run_json.h) to stdout, last,
// then exits 0 (whether the seed passed or failed: the verdict is in the
// JSON). Bad arguments: one line on stderr, exit 2. Anything else (a signal,
// another exit code, no JSON line) is a crashed worker to the parent.
//
// Thread safety: call from one thread.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace shale::cli {

// args are the words after "worker".
int RunWorkerCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);

// The argv (after the binary path) that makes a worker run config.
std::vector<std::string> WorkerArgv(const scenario::RunConfig& config);

}  // namespace shale::cli
