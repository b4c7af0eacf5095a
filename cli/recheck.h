// The determinism recheck of `shale run --recheck P` (default 5%): a share
// of the campaign's seeds run a second time in another worker process, as
// FoundationDB re-runs a share of its simulations, and a seed whose re-run
// hashes differently fails with property "nondeterminism".
//
// Which seeds: those whose (scenario, seed) falls below P on a fixed hash
// (RecheckChosen), so a shard rechecks exactly the seeds a single run over
// the same range would. Only simulated runs (RunResult::deterministic)
// with a known trace hash are rechecked.
//
// The re-run is a job made when the first run's result arrives, so it goes
// to a worker forked after that one's batch was fixed: another process. It
// runs with its heap shifted (RunConfig::heap_shift), so a run that reads
// pointer values, or state an earlier seed left in its worker, hashes
// differently. When its trace hash (or verdict) differs from the first
// run's, it writes its trace to DIR/failures/<scenario>-<seed>.rerun-1.trace,
// and a third run, in a third worker with another shift, writes its own
// (.rerun-2.trace). The failure then names the first event at which those
// two traces part, or says they agree (only the first run differs).
//
// The first run's entry is held until its recheck ends, then handed on:
// marked rechecked, or failed. Held entries are at most the rechecks in
// flight, and those are served before any new seed.
//
// Thread safety: none; the campaign's one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/report.h"
#include "run_flags.h"

namespace shale::cli {

// Whether (scenario, seed) is one of the share of basis_points / 10000
// rechecked. A fixed hash: the same in every build and on every machine.
bool RecheckChosen(const std::string& scenario, uint64_t seed, uint32_t basis_points);

// The first event at which two traces part: "the first event the two
// re-runs differ on is #N: 'a' in one, 'b' in the other", or that they
// agree on all N events. Traces are one event per line.
std::string FirstDivergence(const std::string& trace_a, const std::string& trace_b);

class Recheck {
 public:
  // Borrows options, which must outlive it.
  explicit Recheck(const RunOptions& options) : options_(options) {}

  // A recheck's job, if one waits to run (before any new seed).
  bool NextJob(scenario::RunConfig* job);
  // A seed's first run was handed to a worker.
  void Started() { ++first_runs_running_; }
  // Whether a recheck's job may still come: an entry is held, or a first
  // run (which may be chosen) has not finished. Never with no share.
  bool waiting() const {
    return !held_.empty() || (options_.recheck_basis_points > 0 && first_runs_running_ > 0);
  }
  // Held entries whose first run failed (a --max_failures limit counts
  // them at once).
  uint64_t held_failed() const { return held_failed_; }

  // Takes the entry of any finished job (a first run, a re-run or a trace
  // run) and appends to *ready the first-run entries now final.
  void Take(const report::SeedEntry& entry, std::vector<report::SeedEntry>* ready);

 private:
  struct Held {
    report::SeedEntry first;
    report::SeedEntry rerun;  // set once the re-run differed
    bool rerun_differed = false;
  };
  using Key = std::pair<std::string, uint64_t>;

  bool Chosen(const report::SeedEntry& e) const;
  // The re-run (number 1) or trace run (number 2) of the held seed.
  scenario::RunConfig RerunJob(const Held& held, int number) const;
  std::string TracePath(const report::SeedEntry& e, int number) const;
  // The first run's entry, failed with property "nondeterminism".
  report::SeedEntry Failed(const Held& held, const report::SeedEntry& trace_run) const;

  const RunOptions& options_;
  std::map<Key, Held> held_;
  std::deque<scenario::RunConfig> pending_;
  uint64_t held_failed_ = 0;
  uint64_t first_runs_running_ = 0;
};

}  // namespace shale::cli
