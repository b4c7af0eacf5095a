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
// Jobs come from next_job one at a time, as a worker slot frees, so the
// pool's memory is the running workers' (at most `jobs` of them, each with
// its RunConfig and at most ~2 MiB of buffered output) whatever the number
// of jobs.
//
// Thread safety: REQUIRES a single-threaded process; RunWorkers blocks until next_job has no
// more jobs and every started one is done, and calls on_done on the calling thread, in
// completion order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "scenarios/scenario.h"

namespace shale::cli {

struct PoolConfig {
  int jobs = 1;           // concurrent workers, >= 1
  int64_t timeout_ms = 120'000;
};

struct WorkerOutcome {
  scenario::RunResult result;     // scenario and seed are the job's
  bool trace_hash_known = true;   // false when the worker crashed or timed out
  uint64_t wall_ms = 0;
};

// Sets *job to the next job and returns true, or returns false when there
// are no more (it is not called again after that).
using NextJobFn = std::function<bool(scenario::RunConfig* job)>;
using OutcomeFn = std::function<void(const WorkerOutcome&)>;

void RunWorkers(const PoolConfig& config, const NextJobFn& next_job, const OutcomeFn& on_done);

}  // namespace shale::cli
