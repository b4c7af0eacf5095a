// WorkerPool: runs each job in its own worker process, at most `jobs` at a
// time, and turns whatever each one does into a RunResult.
//
// A worker is a fork of this process (no exec: no dynamic linking or
// start-up per seed) that runs the job's scenario and writes its RunResult
// as one JSON line (report/run_json.h) to its stdout, then _exits 0. So
// scenarios must be registered before RunWorkers, and the calling process
// must be single-threaded (fork copies only the calling thread).
//
// A worker that prints its JSON line and exits 0 yields its RunResult. One
// that dies by a signal, exits otherwise, or prints no parsable line yields
// a failed RunResult with property "worker crashed" (observed: the signal or
// exit code; message: the last line of its stderr). One that outlives
// timeout_ms of wall clock is killed (SIGKILL) and yields "worker timeout".
// Either way the campaign goes on.
//
// Workers' stdout and stderr are pipes read by the pool (stderr keeps only
// its last few KiB), so worker noise never tears the progress bar. On Linux
// each worker gets PR_SET_PDEATHSIG=SIGKILL: if the parent dies, so do they.
//
// Thread safety: REQUIRES a single-threaded process; RunWorkers blocks until every job is done
// and calls on_done on the calling thread, in completion order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace shale::cli {

struct PoolConfig {
  int jobs = 1;           // concurrent workers, >= 1
  int64_t timeout_ms = 120'000;
};

struct WorkerOutcome {
  size_t index = 0;               // into the jobs vector
  scenario::RunResult result;
  bool trace_hash_known = true;   // false when the worker crashed or timed out
  uint64_t wall_ms = 0;
};

using OutcomeFn = std::function<void(const WorkerOutcome&)>;

void RunWorkers(const PoolConfig& config, const std::vector<scenario::RunConfig>& jobs,
                const OutcomeFn& on_done);

}  // namespace shale::cli
