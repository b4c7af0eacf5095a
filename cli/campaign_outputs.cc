#include "campaign_outputs.h"

#include "report/failure_file.h"
#include "report/file_io.h"
#include "report/table_cache_study.h"
#include "report/tape_codec.h"
#include "run_summary.h"
#include "scenarios/engine/hosted_engine.h"
#include "sim/choice_tape.h"

namespace shale::cli {
namespace {

report::CampaignInfo Info(const RunOptions& o) {
  report::CampaignInfo c;
  c.scenarios = o.scenarios;
  c.seeds = o.seeds_text;
  c.shard = o.shard_text;
  c.ops = o.ops;
  c.crashes = o.crashes;
  c.strategy = o.strategy;
  c.faults = o.faults;
  c.engine = o.engine;
  if (const scenario::HostedEngine* hosted = scenario::FindHostedEngine(o.engine)) {
    c.engine_version = hosted->version();
  }
  c.planted_bugs = o.planted_bugs;
  c.pins = o.pins;
  c.jobs = o.jobs;
  c.max_failures = o.max_failures;
  return c;
}

std::string FailurePath(const std::string& out_dir, const std::string& scenario, uint64_t seed) {
  return out_dir + "/failures/" + report::FailureFileName(scenario, seed);
}

}  // namespace

std::string ReportPath(const std::string& out_dir) { return out_dir + "/report.json"; }

std::string ReplayCommand(const std::string& out_dir, const std::string& scenario, uint64_t seed) {
  return "build/shale replay " + FailurePath(out_dir, scenario, seed);
}

CampaignOutputs::CampaignOutputs(const RunOptions& options)
    : options_(options), tally_(kMaxListedFailures) {}

bool CampaignOutputs::Open(std::string* error) {
  const std::string tail = report::EncodeReportTail(tally_.totals(), tally_.promises(), false);
  return report_.Open(ReportPath(options_.out_dir),
                      report::EncodeReportHead(Info(options_), &wall_ms_offset_), tail, error) &&
         junit_.Open(options_.out_dir + "/junit.xml", report::EngineDescription(Info(options_)),
                     error);
}

bool CampaignOutputs::Add(const report::SeedEntry& e, std::string* error) {
  tally_.Add(e);
  if (!e.result.passed && !WriteFailureFile(e, error)) return false;
  const std::string tail = report::EncodeReportTail(tally_.totals(), tally_.promises(), false);
  return report_.Add(report::EncodeEntryLine(e), tail, error) && junit_.Add(e, error);
}

bool CampaignOutputs::Finish(uint64_t wall_ms, std::string* error) {
  const std::string tail = report::EncodeReportTail(tally_.totals(), tally_.promises(), true);
  return report_.Overwrite(wall_ms_offset_, report::EncodeWallMsField(wall_ms), error) &&
         junit_.Finish(tally_.suites(), error) && WriteStudies(error) &&
         report_.Finish(tail, error);
}

bool CampaignOutputs::WriteStudies(std::string* error) {
  const report::TableCacheStudy study = report::ComputeTableCacheStudy(tally_.totals().table_cache);
  if (study.rows.empty()) return true;
  const std::string base = options_.out_dir + "/table-cache";
  return report::WriteFileAtomically(base + ".md", report::TableCacheMarkdown(study), error) &&
         report::WriteFileAtomically(base + ".svg", report::TableCacheSvg(study), error);
}

bool CampaignOutputs::WriteFailureFile(const report::SeedEntry& e, std::string* error) {
  report::FailureFile f;
  f.config = ConfigFor(options_, e.result.scenario, e.result.seed);
  f.ops_done = e.result.ops;
  // The seed's tape, as far as the run read it (a worker that died
  // reported no length: the file then replays from the seed alone).
  if (e.result.tape_bytes > 0 && e.result.tape_bytes <= report::kMaxTapeBytes) {
    f.config.tape = sim::ChoiceTape(e.result.seed).Prefix(e.result.tape_bytes);
  }
  if (e.trace_hash_known) f.trace_hash = e.result.trace_hash;
  f.failure = e.result.failure;
  f.options_drawn = e.result.options_drawn;
  f.history = e.result.recorded_history;
  f.replay = e.replay;
  return report::WriteFileAtomically(
      FailurePath(options_.out_dir, e.result.scenario, e.result.seed), report::EncodeFailureFile(f),
      error);
}

}  // namespace shale::cli
