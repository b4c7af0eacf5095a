// WorkerPool: runs jobs in worker processes, at most `jobs` workers at a
// time, and turns whatever each job does into a RunResult.
//
// A worker is a fork of this process (no exec: no dynamic linking or
// start-up per seed) that runs seeds_per_worker jobs one after another,
// writing each RunResult as one JSON line (report/run_json.h) to its
// stdout, then _exits 0. Scenario runs share no state, so a seed's result
// does not depend on the seeds run before it in the same worker. So
// scenarios must be registered before RunWorkers, and the calling process
// must be single-threaded (fork copies only the calling thread).
//
// Each JSON line yields its job's RunResult. A worker that dies by a
// signal, exits otherwise, or ends without a parsable line for the job it
// was running yields, for that job, a failed RunResult with property
// "worker crashed" (observed: the signal or exit code; message: the last
// line of its stderr). A job that runs longer than timeout_ms of wall
// clock gets its worker killed (SIGKILL) and yields "worker timeout".
// Either way the jobs after it go to a new worker, and the campaign goes
// on.
//
// Workers' stdout and stderr are pipes read by the pool (stderr keeps only
// its last few KiB), so worker noise never tears the progress bar. On Linux
// each worker gets PR_SET_PDEATHSIG=SIGKILL: if the parent dies, so do they.
//
// Jobs come from next_job a worker's batch at a time, as a worker slot
// frees, so the pool's memory is the running workers' (at most `jobs` of
// them, each with its RunConfigs and at most ~2 MiB of buffered output)
// whatever the number of jobs.
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
  int jobs = 1;  // concurrent workers, >= 1
  int64_t timeout_ms = 120'000;
  int seeds_per_worker = 1;  // jobs one worker runs, 1..kMaxSeedsPerWorker
};

// A fork, its page faults and its exit cost about a millisecond, a tenth
// of a default seed, so a worker runs several. Few enough that the memory
// a crashed run abandons stays small.
constexpr int kMaxSeedsPerWorker = 8;
// Seeds per worker for a campaign of total jobs on `jobs` workers: as many
// as keep each worker busy for at least 4 batches (so all finish
// together), 1..kMaxSeedsPerWorker.
int SeedsPerWorker(uint64_t total, int jobs);

// Writes all of text to fd, retrying short writes and EINTR; false on an
// error (a child's pipe to its parent: the parent reads what arrived).
bool WriteAll(int fd, const std::string& text);

// How a child process ended, from waitpid's status ("signal 11
// (Segmentation fault)", "exit 3 without a result").
std::string DescribeStatus(int status);

// The failure of config's seed whose process died (observed: how, e.g.
// "signal 11 (Segmentation fault)") before writing its result, given what
// it wrote to stderr: "engine crash" when a hosted engine's code raised the
// signal (hosted/hosted_code.h prints that line; its tape_bytes is what the
// run had read), else "worker crashed".
scenario::RunResult CrashedRunFailure(const scenario::RunConfig& config,
                                      const std::string& observed, const std::string& stderr_text);

struct WorkerOutcome {
  scenario::RunResult result;    // scenario and seed are the job's
  bool trace_hash_known = true;  // false when the worker crashed or timed out
  uint64_t wall_ms = 0;
};

// What a NextJobFn had: a job (in *job); none yet, but more may come once
// a running job ends (asked again after the next outcome); or no more (it
// is not called again). kLater while no job runs means kNoMore.
enum class NextJob { kJob, kLater, kNoMore };
using NextJobFn = std::function<NextJob(scenario::RunConfig* job)>;
using OutcomeFn = std::function<void(const WorkerOutcome&)>;

void RunWorkers(const PoolConfig& config, const NextJobFn& next_job, const OutcomeFn& on_done);

}  // namespace shale::cli
