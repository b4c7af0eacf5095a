#include "campaign.h"

#include <chrono>

#include "progress.h"
#include "recheck.h"
#include "scenarios/engine/hosted_engine.h"
#include "worker_pool.h"

namespace shale::cli {
namespace {

// The campaign's (scenario, seed) pairs, scenario by scenario and seeds
// ascending, made one at a time.
class JobSource {
 public:
  explicit JobSource(const RunOptions& o) : o_(o), seeds_(o.seeds, o.shard) {}

  bool Next(scenario::RunConfig* job) {
    uint64_t seed = 0;
    while (scenario_ < o_.scenarios.size()) {
      if (seeds_.Next(&seed)) {
        *job = ConfigFor(o_, o_.scenarios[scenario_], seed);
        return true;
      }
      ++scenario_;
      seeds_ = ShardCursor(o_.seeds, o_.shard);
    }
    return false;
  }

 private:
  const RunOptions& o_;
  size_t scenario_ = 0;
  ShardCursor seeds_;
};

uint64_t MsSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now() - start)
                                   .count());
}

report::SeedEntry EntryFor(const RunOptions& options, const WorkerOutcome& o) {
  report::SeedEntry e;
  e.result = o.result;
  // A real run's hash is no fingerprint: the same seed may take another path.
  e.trace_hash_known = o.trace_hash_known && o.result.deterministic;
  e.wall_ms = o.wall_ms;
  if (!o.result.passed) e.replay = ReplayCommand(options.out_dir, o.result.scenario, o.result.seed);
  return e;
}

}  // namespace

bool RunCampaign(const RunOptions& options, const CampaignEnv& env, std::ostream& err,
                 CampaignResult* result, std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  CampaignOutputs outputs(options);
  if (!outputs.Open(error)) return false;
  JobSource jobs(options);
  Recheck recheck(options);
  const uint64_t total = ShardSeedCount(options.seeds, options.shard) * options.scenarios.size();
  Progress progress(err, env.terminal, total);
  uint64_t done = 0;
  bool ok = true;
  // A campaign that stops at its Nth failure hands out one seed at a time,
  // so no batch runs on past the failure that stops it; so does one on an
  // engine whose process-wide state must start fresh in every run.
  const scenario::HostedEngine* hosted = scenario::FindHostedEngine(options.engine);
  const bool one_per_worker =
      options.max_failures > 0 || (hosted != nullptr && hosted->one_run_per_process());
  const int per_worker = one_per_worker ? 1 : SeedsPerWorker(total, options.jobs);
  const PoolConfig pool{options.jobs, options.timeout_ms, per_worker};
  const auto may_start = [&] {
    return ok && (options.max_failures == 0 ||
                  outputs.tally().totals().failed + recheck.held_failed() < options.max_failures);
  };
  // A recheck's jobs go first: held entries wait for them.
  const auto next_job = [&](scenario::RunConfig* job) {
    if (recheck.NextJob(job)) return NextJob::kJob;
    if (may_start() && jobs.Next(job)) {
      recheck.Started();
      return NextJob::kJob;
    }
    return recheck.waiting() ? NextJob::kLater : NextJob::kNoMore;
  };
  std::vector<report::SeedEntry> ready;
  RunWorkers(pool, next_job, [&](const WorkerOutcome& o) {
    ready.clear();
    recheck.Take(EntryFor(options, o), &ready);
    for (report::SeedEntry& entry : ready) {
      entry.finished_ms = MsSince(start);
      ok = ok && outputs.Add(entry, error);
      progress.Update(++done, outputs.tally().totals().failed);
      if (env.after_seed) env.after_seed(done);
    }
  });
  progress.Finish();
  result->wall_ms = MsSince(start);
  ok = ok && outputs.Finish(result->wall_ms, error);
  result->tally = outputs.tally();
  return ok;
}

}  // namespace shale::cli
