// RunIsolated: one scenario run in a forked child, for runs that must not
// share a process: a hosted engine's run leaves its abandoned threads
// asleep in the process that ran it (sim/thread_fiber.h), so a search that
// makes thousands of runs (shale shrink) makes each in a child of its own.
//
// The child runs the config and writes the result (report/run_json.h) and
// its operation marks to a pipe, then exits without destructors; the
// parent reads both and reaps it. With config.trace the child sends each
// trace line as the run makes it, so the result's trace survives the
// child's death. A child that dies first gives a failed result: "engine
// crash" if a hosted engine's code raised the signal (with the tape bytes
// its run had read), else "worker crashed" naming the signal or exit
// code (CrashedRunFailure).
//
// Thread safety: REQUIRES a single-threaded process (it forks).
#pragma once

#include "scenarios/scenario.h"

namespace shale::cli {

scenario::RunResult RunIsolated(const scenario::Scenario& scenario,
                                const scenario::RunConfig& config);

// One run for a command that makes runs one after another (replay, shrink):
// Shale's engine in this process, a hosted engine in a child (RunIsolated),
// since its run leaves threads behind and its crash must end only the child.
scenario::RunResult RunForCommand(const scenario::Scenario& scenario,
                                  const scenario::RunConfig& config);

}  // namespace shale::cli
