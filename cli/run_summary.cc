#include "run_summary.h"

#include "absl/strings/str_format.h"

#include "report/promises.h"
#include "report/run_json.h"
#include "report/table_cache_study.h"

namespace shale::cli {
namespace {

std::string Fixed(double value, int decimals) { return absl::StrFormat("%.*f", decimals, value); }

std::string JoinCounts(const std::map<std::string, uint64_t>& counts) {
  if (counts.empty()) return "none";
  std::string s;
  for (const auto& [name, n] : counts) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(n);
  return s;
}

void PrintFailures(const report::CampaignTally& tally, std::ostream& out) {
  size_t listed = 0;
  for (const report::SeedEntry& e : tally.kept_failures()) {
    if (++listed > kMaxListedFailures) break;
    out << "  FAILED " << e.result.scenario << " seed " << e.result.seed << ": "
        << report::DescribeFailure(e.result.failure) << "\n"
        << "    replay: " << e.replay << "\n";
  }
  const uint64_t failed = tally.totals().failed;
  if (failed > listed) out << "  ... and " << failed - listed << " more failed seeds\n";
}

// The open-channel runs' wear and write amplification over the campaign.
void PrintFlashFigures(const report::Totals::Flash& f, std::ostream& out) {
  const auto ratio = [](uint64_t a, uint64_t b) {
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
  };
  out << "  flash (" << f.seeds << " seeds): write amplification "
      << Fixed(ratio(f.bytes_programmed, f.bytes_written), 2) << " (" << f.bytes_programmed
      << " bytes programmed / " << f.bytes_written << " written by the engine), "
      << Fixed(ratio(f.resets, f.chunks), 3) << " resets per chunk, max wear " << f.max_wear << ", "
      << f.chunks_offline << " chunks offline\n";
}

// What the runs with I/O faults on checked: their writes, their crash
// checks' reach, and the proof behind every error they accepted.
void PrintFaultsOnFigures(const report::Totals::FaultsOn& f, std::ostream& out) {
  const auto percent = [](uint64_t a, uint64_t b) {
    return b == 0 ? std::string("-")
                  : Fixed(100.0 * static_cast<double>(a) / static_cast<double>(b), 1) + "%";
  };
  out << "  faults on (" << f.seeds << " seeds): writes failed " << f.writes_failed << " of "
      << f.writes_acked + f.writes_failed << " (median per seed "
      << Fixed(static_cast<double>(report::MedianFailedWritePermille(f)) / 10.0, 1)
      << "%), crash checks read " << percent(f.keys_read_at_checks, f.keys_at_checks)
      << " of their keys (" << f.narrowed_checks << " narrowed, at most "
      << Fixed(static_cast<double>(f.worst_check_permille) / 10.0, 1) << "% left out), "
      << f.dead_db_crashes << " crashes after a failed write; accepted errors by proof: "
      << JoinCounts(f.accepted_errors) << "\n";
}

// How many probes the simulated seeds reached, and which none did.
void PrintProbes(const report::Totals& t, std::ostream& out) {
  if (t.probe_counted_seeds == 0) return;
  const std::vector<std::string> never = report::ProbesNeverHit(t);
  out << "  coverage probes: " << t.probe_seeds.size() - never.size() << " of "
      << t.probe_seeds.size() << " reached in " << t.probe_counted_seeds << " simulated seeds";
  std::string list;
  for (const std::string& name : never) list += (list.empty() ? "" : " ") + name;
  out << (never.empty() ? "" : "; never hit: " + list) << "\n";
}

}  // namespace

std::vector<std::string> MissingProbes(const report::Totals& totals,
                                       const std::vector<std::string>& required) {
  std::vector<std::string> missing;
  for (const std::string& name : required) {
    const auto it = totals.probe_seeds.find(name);
    if (it == totals.probe_seeds.end() || it->second == 0) missing.push_back(name);
  }
  return missing;
}

void PrintRunSummary(const report::CampaignTally& tally, uint64_t wall_ms,
                     const std::string& report_path, std::ostream& out) {
  const report::Totals& t = tally.totals();
  const double wall_s = static_cast<double>(wall_ms) / 1000.0;
  const double per_s = wall_s > 0 ? 1.0 / wall_s : 0.0;
  out << "shale run: " << t.seeds << " seeds, " << t.passed << " passed, " << t.failed
      << (t.failed ? " FAILED" : " failed") << "\n";
  out << "  wall " << Fixed(wall_s, 1) << " s  " << Fixed(static_cast<double>(t.seeds) * per_s, 1)
      << " seeds/s  " << Fixed(static_cast<double>(t.ops) * per_s, 0) << " workload ops/s  "
      << Fixed(static_cast<double>(t.engine_ops) * per_s, 0) << " engine ops/s"
      << "  simulated time " << Fixed(static_cast<double>(t.sim_time_ns) / 1e9, 3) << " s\n";
  const uint64_t worker_ms = tally.worker_ms();
  const double per_worker_s = worker_ms > 0 ? 1000.0 / static_cast<double>(worker_ms) : 0.0;
  out << "  per worker second (one core): " << Fixed(static_cast<double>(t.seeds) * per_worker_s, 1)
      << " seeds, " << Fixed(static_cast<double>(t.ops) * per_worker_s, 0) << " workload ops, "
      << Fixed(static_cast<double>(t.engine_ops) * per_worker_s, 0) << " engine ops\n";
  out << "  faults injected: " << JoinCounts(t.faults_by_kind) << "\n";
  out << "  failures by property: " << JoinCounts(t.failures_by_property) << "\n";
  PrintProbes(t, out);
  if (t.rechecked > 0) {
    const auto differed = t.failures_by_property.find("nondeterminism");
    out << "  determinism recheck: " << t.rechecked << " of " << t.seeds
        << " seeds re-run in another worker, "
        << (differed == t.failures_by_property.end() ? 0 : differed->second)
        << " ran differently\n";
  }
  uint64_t ended_early = 0;
  for (const auto& [reason, n] : t.ended_early) ended_early += n;
  out << "  runs ending before their last phase: " << ended_early << " of " << t.seeds
      << (ended_early ? " (" + JoinCounts(t.ended_early) + ")" : "") << "\n";
  if (t.flash.seeds > 0) PrintFlashFigures(t.flash, out);
  if (t.faults_on.seeds > 0) PrintFaultsOnFigures(t.faults_on, out);
  const std::string study =
      report::TableCacheMarkdown(report::ComputeTableCacheStudy(t.table_cache));
  if (!study.empty()) out << "\n" << study << "\n";
  if (t.pct_runs > 0) {
    out << "  pct: " << t.pct_runs << " runs, "
        << Fixed(static_cast<double>(t.pct_change_points) / static_cast<double>(t.pct_runs), 2)
        << " change points fired per run\n";
  }
  for (const report::PromiseVerdict& v : tally.promises()) {
    out << "  " << v.scenario << " " << v.mode << ": " << v.promise << " "
        << report::DescribeVerdict(v) << "\n";
  }
  PrintFailures(tally, out);
  out << "report: " << report_path << "\n";
}

}  // namespace shale::cli
