#include "campaign.h"

#include <chrono>

#include "progress.h"
#include "report/failure_file.h"
#include "report/file_io.h"
#include "report/junit.h"
#include "worker_pool.h"

namespace shale::cli {
namespace {

// The one place a campaign's options become a seed's RunConfig (jobs and
// failure files must agree, or a failure would not replay).
scenario::RunConfig ConfigFor(const RunOptions& o, const std::string& scenario, uint64_t seed) {
  scenario::RunConfig c;
  c.scenario = scenario;
  c.seed = seed;
  c.ops = o.ops;
  c.crashes = o.crashes;
  c.strategy = o.strategy;
  c.faults = o.faults;
  c.planted_bugs = o.planted_bugs;
  return c;
}

std::vector<scenario::RunConfig> BuildJobs(const RunOptions& o) {
  const std::vector<uint64_t> seeds = ShardSeeds(o.seeds, o.shard);
  std::vector<scenario::RunConfig> jobs;
  jobs.reserve(seeds.size() * o.scenarios.size());
  for (const std::string& name : o.scenarios) {
    for (uint64_t seed : seeds) {
      jobs.push_back(ConfigFor(o, name, seed));
    }
  }
  return jobs;
}

report::CampaignInfo Info(const RunOptions& o) {
  report::CampaignInfo c;
  c.scenarios = o.scenarios;
  c.seeds = o.seeds_text;
  c.shard = o.shard_text;
  c.ops = o.ops;
  c.crashes = o.crashes;
  c.strategy = o.strategy;
  c.faults = o.faults;
  c.planted_bugs = o.planted_bugs;
  c.jobs = o.jobs;
  return c;
}

report::FailureFile ToFailureFile(const RunOptions& o, const report::SeedEntry& e) {
  report::FailureFile f;
  f.config = ConfigFor(o, e.result.scenario, e.result.seed);
  if (e.trace_hash_known) f.trace_hash = e.result.trace_hash;
  f.failure = e.result.failure;
  f.options_drawn = e.result.options_drawn;
  f.replay = e.replay;
  return f;
}

}  // namespace

std::string ReplayCommand(const std::string& out_dir, const std::string& scenario, uint64_t seed) {
  return "build/shale replay " + out_dir + "/failures/" + report::FailureFileName(scenario, seed);
}

std::string ReportPath(const std::string& out_dir) { return out_dir + "/report.json"; }

report::Report RunCampaign(const RunOptions& options, const CampaignEnv& env, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<scenario::RunConfig> jobs = BuildJobs(options);
  report::Report report;
  report.campaign = Info(options);
  report.entries.resize(jobs.size());
  Progress progress(err, env.terminal, jobs.size());
  uint64_t done = 0, failed = 0;
  const PoolConfig pool{options.jobs, options.timeout_ms};
  RunWorkers(pool, jobs, [&](const WorkerOutcome& o) {
    report::SeedEntry& e = report.entries[o.index];
    e.result = o.result;
    e.trace_hash_known = o.trace_hash_known;
    e.wall_ms = o.wall_ms;
    if (!o.result.passed) {
      e.replay = ReplayCommand(options.out_dir, o.result.scenario, o.result.seed);
      ++failed;
    }
    progress.Update(++done, failed);
  });
  progress.Finish();
  report::SortEntries(&report.entries);
  report.campaign.wall_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
          .count());
  return report;
}

bool WriteCampaignOutputs(const RunOptions& options, const report::Report& report,
                          std::string* error) {
  for (const report::SeedEntry& e : report.entries) {
    if (e.result.passed) continue;
    const std::string path = options.out_dir + "/failures/" +
                             report::FailureFileName(e.result.scenario, e.result.seed);
    if (!report::WriteFileAtomically(path, report::EncodeFailureFile(ToFailureFile(options, e)),
                                     error)) {
      return false;
    }
  }
  return report::WriteFileAtomically(options.out_dir + "/junit.xml", report::EncodeJunit(report),
                                     error) &&
         report::WriteFileAtomically(ReportPath(options.out_dir), report::EncodeReport(report),
                                     error);
}

}  // namespace shale::cli
