#include "report/report.h"

#include <algorithm>
#include <tuple>

#include "report/json_internal.h"
#include "report/promises.h"
#include "scenarios/crash_recovery/fault_figures.h"
#include "scenarios/crash_recovery/flash_figures.h"
#include "scenarios/table_cache/table_cache_figures.h"
#include "util/probes.h"

namespace shale::report {
namespace {

using internal::json;

json EntryToJson(const SeedEntry& e) {
  json j = internal::RunResultToJson(e.result, e.trace_hash_known);
  j.erase("history");  // in the seed's failure file; the report stays small
  j["wall_ms"] = e.wall_ms;
  if (!e.result.passed) j["replay"] = e.replay;
  if (e.rechecked) j["rechecked"] = true;
  if (e.finished_ms != 0) j["finished_ms"] = e.finished_ms;
  return j;
}

SeedEntry EntryFromJson(const json& j) {
  SeedEntry e;
  e.result = internal::RunResultFromJson(j, &e.trace_hash_known);
  e.wall_ms = j.value("wall_ms", uint64_t{0});
  e.replay = j.value("replay", "");
  e.rechecked = j.value("rechecked", false);
  e.finished_ms = j.value("finished_ms", uint64_t{0});
  return e;
}

constexpr int kVersion = 2;
constexpr size_t kWallMsWidth = 20;  // digits of UINT64_MAX

// Every field but wall_ms, which the head writes last and fixed-width.
json CampaignToJson(const CampaignInfo& c) {
  return json{{"scenarios", c.scenarios},
              {"seeds", c.seeds},
              {"shard", c.shard},
              {"ops", c.ops},
              {"crashes", c.crashes},
              {"strategy", c.strategy},
              {"faults", c.faults},
              {"engine", c.engine},
              {"engine_version", c.engine_version},
              {"planted_bugs", c.planted_bugs},
              {"pins", c.pins},
              {"jobs", c.jobs},
              {"max_failures", c.max_failures},
              {"merged_from", c.merged_from}};
}

CampaignInfo CampaignFromJson(const json& j) {
  CampaignInfo c;
  c.scenarios = j.at("scenarios").get<std::vector<std::string>>();
  c.seeds = j.value("seeds", "");
  c.shard = j.value("shard", "");
  c.ops = j.value("ops", int64_t{0});
  c.crashes = j.value("crashes", int64_t{0});
  c.strategy = j.value("strategy", "");
  c.faults = j.value("faults", "");
  c.engine = j.value("engine", "shale");
  c.engine_version = j.value("engine_version", "");
  c.planted_bugs = j.value("planted_bugs", uint64_t{0});
  if (j.contains("pins")) c.pins = j.at("pins").get<std::map<std::string, std::string>>();
  c.jobs = j.value("jobs", int64_t{0});
  c.max_failures = j.value("max_failures", uint64_t{0});
  c.wall_ms = j.value("wall_ms", uint64_t{0});
  if (j.contains("merged_from")) {
    c.merged_from = j.at("merged_from").get<std::vector<std::string>>();
  }
  return c;
}

json FlashToJson(const Totals::Flash& f) {
  if (f.seeds == 0) return json(nullptr);
  return json{{"seeds", f.seeds},
              {"bytes_written", f.bytes_written},
              {"bytes_programmed", f.bytes_programmed},
              {"resets", f.resets},
              {"chunks", f.chunks},
              {"chunks_offline", f.chunks_offline},
              {"max_wear", f.max_wear}};
}

json FaultsOnToJson(const Totals::FaultsOn& f) {
  if (f.seeds == 0) return json(nullptr);
  return json{{"seeds", f.seeds},
              {"writes_acknowledged", f.writes_acked},
              {"writes_failed", f.writes_failed},
              {"median_failed_write_permille", MedianFailedWritePermille(f)},
              {"keys_at_crash_checks", f.keys_at_checks},
              {"keys_read_at_crash_checks", f.keys_read_at_checks},
              {"narrowed_checks", f.narrowed_checks},
              {"largest_share_a_check_left_out_permille", f.worst_check_permille},
              {"crashes_after_a_failed_write", f.dead_db_crashes},
              {"accepted_errors_by_proof", f.accepted_errors}};
}

json TotalsToJson(const Totals& t) {
  return json{{"seeds", t.seeds},
              {"passed", t.passed},
              {"failed", t.failed},
              {"ops", t.ops},
              {"engine_ops", t.engine_ops},
              {"crashes", t.crashes},
              {"steps", t.steps},
              {"sim_time_ns", t.sim_time_ns},
              {"faults", t.faults_by_kind},
              {"failures_by_property", t.failures_by_property},
              {"ended_early", t.ended_early},
              {"pct_runs", t.pct_runs},
              {"pct_change_points", t.pct_change_points},
              {"flash", FlashToJson(t.flash)},
              {"faults_on", FaultsOnToJson(t.faults_on)},
              {"table_cache", t.table_cache},
              {"rechecked", t.rechecked},
              {"probes", json{{"counted_seeds", t.probe_counted_seeds},
                              {"seeds_by_probe", t.probe_seeds},
                              {"never_hit", ProbesNeverHit(t)}}}};
}

json PromisesToJson(const std::vector<PromiseVerdict>& verdicts) {
  json rows = json::array();
  for (const PromiseVerdict& v : verdicts) {
    rows.push_back({{"scenario", v.scenario},
                    {"mode", v.mode},
                    {"promise", v.promise},
                    {"kept", v.kept},
                    {"seeds", v.seeds},
                    {"first_observed_seed",
                     v.first_observed_seed ? json(*v.first_observed_seed) : json(nullptr)},
                    {"verdict", DescribeVerdict(v)}});
  }
  return rows;
}

bool SameSeed(const SeedEntry& a, const SeedEntry& b) {
  return a.result.scenario == b.result.scenario && a.result.seed == b.result.seed;
}

}  // namespace

std::string EngineDescription(const CampaignInfo& c) {
  return c.engine_version.empty() ? c.engine : c.engine + " " + c.engine_version;
}

namespace {

// r.observed[name], or 0.
uint64_t Observed(const scenario::RunResult& r, const char* name) {
  const auto it = r.observed.find(name);
  return it == r.observed.end() ? uint64_t{0} : it->second;
}

void AddFlashFigures(const scenario::RunResult& r, Totals::Flash* f) {
  namespace names = scenario::flash_figures;
  const auto figure = [&r](const char* name) { return Observed(r, name); };
  if (r.observed.count(names::kChunks) == 0) return;
  ++f->seeds;
  f->bytes_written += figure(names::kBytesWritten);
  f->bytes_programmed += figure(names::kBytesProgrammed);
  f->resets += figure(names::kResets);
  f->chunks += figure(names::kChunks);
  f->chunks_offline += figure(names::kChunksOffline);
  f->max_wear = std::max(f->max_wear, figure(names::kMaxWear));
}

void AddFaultFigures(const scenario::RunResult& r, Totals::FaultsOn* f) {
  namespace names = scenario::fault_figures;
  const auto figure = [&r](const char* name) { return Observed(r, name); };
  if (r.observed.count(names::kWritesAcked) == 0) return;
  ++f->seeds;
  const uint64_t acked = figure(names::kWritesAcked), failed = figure(names::kWritesFailed);
  f->writes_acked += acked;
  f->writes_failed += failed;
  ++f->seeds_by_failed_write_permille[acked + failed == 0 ? 0 : failed * 1000 / (acked + failed)];
  f->keys_at_checks += figure(names::kKeysAtChecks);
  f->keys_read_at_checks += figure(names::kKeysReadAtChecks);
  f->narrowed_checks += figure(names::kNarrowedChecks);
  f->worst_check_permille = std::max(f->worst_check_permille, figure(names::kWorstCheckPermille));
  f->dead_db_crashes += figure(names::kDeadDbCrashes);
  const std::string prefix = names::kAcceptedErrorsPrefix;
  for (auto it = r.observed.lower_bound(prefix);
       it != r.observed.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    f->accepted_errors[it->first.substr(prefix.size())] += it->second;
  }
}

}  // namespace

uint64_t MedianFailedWritePermille(const Totals::FaultsOn& f) {
  uint64_t passed = 0;
  for (const auto& [permille, seeds] : f.seeds_by_failed_write_permille) {
    passed += seeds;
    if (passed * 2 >= f.seeds) return permille;
  }
  return 0;
}

void AddToTotals(const SeedEntry& e, Totals* t) {
  const scenario::RunResult& r = e.result;
  ++t->seeds;
  ++(r.passed ? t->passed : t->failed);
  t->ops += r.ops;
  t->engine_ops += r.engine_ops;
  t->crashes += r.crashes;
  t->steps += r.steps;
  t->sim_time_ns += r.sim_time_ns;
  for (const auto& [kind, n] : r.faults_by_kind) t->faults_by_kind[kind] += n;
  if (!r.passed) ++t->failures_by_property[r.failure.property];
  if (!r.ended_early.empty()) ++t->ended_early[r.ended_early];
  if (r.scheduler == "pct") {
    ++t->pct_runs;
    t->pct_change_points += r.pct_change_points;
  }
  AddFlashFigures(r, &t->flash);
  AddFaultFigures(r, &t->faults_on);
  for (const auto& [name, n] : r.observed) {
    if (name.rfind(scenario::table_cache_figures::kPrefix, 0) == 0) t->table_cache[name] += n;
  }
  if (e.rechecked) ++t->rechecked;
  if (t->probe_seeds.empty()) {
    for (std::string_view name : probes::kNames) t->probe_seeds[std::string(name)] = 0;
  }
  if (!r.probes_counted) return;
  ++t->probe_counted_seeds;
  for (const auto& [name, hits] : r.probe_hits) {
    if (hits > 0) ++t->probe_seeds[name];
  }
}

std::vector<std::string> ProbesNeverHit(const Totals& t) {
  std::vector<std::string> never;
  if (t.probe_counted_seeds == 0) return never;
  for (const auto& [name, seeds] : t.probe_seeds) {
    if (seeds == 0) never.push_back(name);
  }
  return never;
}

Totals ComputeTotals(const std::vector<SeedEntry>& entries) {
  Totals t;
  for (const SeedEntry& e : entries) AddToTotals(e, &t);
  return t;
}

void SortEntries(std::vector<SeedEntry>* entries) {
  std::stable_sort(entries->begin(), entries->end(), [](const SeedEntry& a, const SeedEntry& b) {
    return std::tie(a.result.scenario, a.result.seed) < std::tie(b.result.scenario, b.result.seed);
  });
}

std::string EncodeWallMsField(uint64_t wall_ms) {
  std::string field = std::to_string(wall_ms);
  field.resize(kWallMsWidth, ' ');
  return field;
}

std::string EncodeReportHead(const CampaignInfo& campaign, size_t* wall_ms_offset) {
  std::string head = "{\"format\": \"shale-report\", \"version\": " + std::to_string(kVersion) +
                     ", \"campaign\": " + internal::JsonText(CampaignToJson(campaign));
  head.pop_back();  // the campaign's closing brace
  head += ", \"wall_ms\": ";
  if (wall_ms_offset != nullptr) *wall_ms_offset = head.size();
  return head + EncodeWallMsField(campaign.wall_ms) + "}, \"entries\": [";
}

std::string EncodeEntryLine(const SeedEntry& e) { return internal::JsonText(EntryToJson(e)); }

std::string EncodeReportTail(const Totals& totals, const std::vector<PromiseVerdict>& promises,
                             bool complete) {
  return "\n], \"totals\": " + internal::JsonText(TotalsToJson(totals)) +
         ", \"promises\": " + internal::JsonText(PromisesToJson(promises)) +
         ", \"complete\": " + (complete ? "true" : "false") + "}\n";
}

std::string EncodeReport(const Report& report) {
  std::string text = EncodeReportHead(report.campaign);
  for (size_t i = 0; i < report.entries.size(); ++i) {
    text += (i == 0 ? "\n" : ",\n") + EncodeEntryLine(report.entries[i]);
  }
  return text + EncodeReportTail(ComputeTotals(report.entries), ComputePromises(report.entries),
                                 report.complete);
}

bool DecodeEntryLine(std::string_view line, SeedEntry* entry, std::string* error) {
  json j;
  if (!internal::ParseObject(line, "report entry", &j, error)) return false;
  return internal::Guarded("report entry", error, [&] { *entry = EntryFromJson(j); });
}

bool DecodeReport(std::string_view text, Report* report, std::string* error) {
  json j;
  if (!internal::ParseObject(text, "report", &j, error)) return false;
  if (!internal::StringFieldIs(j, "format", "shale-report")) {
    *error = "report: not a shale report (\"format\" is not \"shale-report\")";
    return false;
  }
  Report decoded;
  const bool ok = internal::Guarded("report", error, [&] {
    decoded.campaign = CampaignFromJson(j.at("campaign"));
    decoded.complete = j.value("complete", true);
    for (const json& e : j.at("entries")) decoded.entries.push_back(EntryFromJson(e));
  });
  if (ok) *report = std::move(decoded);
  return ok;
}

CampaignInfo MergeCampaigns(const std::vector<CampaignInfo>& inputs,
                            const std::vector<std::string>& names) {
  CampaignInfo out = inputs[0];
  out.shard = "";
  out.wall_ms = 0;
  out.merged_from = names;
  for (const CampaignInfo& in : inputs) {
    out.wall_ms = std::max(out.wall_ms, in.wall_ms);
    if (in.seeds != out.seeds && out.seeds.find(in.seeds) == std::string::npos) {
      out.seeds += "," + in.seeds;  // shards of different ranges
    }
    for (const std::string& s : in.scenarios) {
      if (std::find(out.scenarios.begin(), out.scenarios.end(), s) == out.scenarios.end()) {
        out.scenarios.push_back(s);
      }
    }
  }
  std::sort(out.scenarios.begin(), out.scenarios.end());
  return out;
}

std::string OverlapError(const std::string& scenario, uint64_t seed) {
  return "seed " + std::to_string(seed) + " of scenario '" + scenario +
         "' appears in two inputs (overlapping shards?)";
}

bool MergeReports(const std::vector<Report>& inputs, const std::vector<std::string>& names,
                  Report* merged, std::string* error) {
  if (inputs.empty()) {
    *error = "merge needs at least one input report";
    return false;
  }
  std::vector<CampaignInfo> campaigns;
  Report out;
  for (const Report& in : inputs) {
    campaigns.push_back(in.campaign);
    out.complete = out.complete && in.complete;
    out.entries.insert(out.entries.end(), in.entries.begin(), in.entries.end());
  }
  out.campaign = MergeCampaigns(campaigns, names);
  SortEntries(&out.entries);
  for (size_t i = 1; i < out.entries.size(); ++i) {
    if (SameSeed(out.entries[i - 1], out.entries[i])) {
      *error = OverlapError(out.entries[i].result.scenario, out.entries[i].result.seed);
      return false;
    }
  }
  *merged = std::move(out);
  return true;
}

}  // namespace shale::report
