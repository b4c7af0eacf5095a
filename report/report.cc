#include "report/report.h"

#include <algorithm>
#include <tuple>

#include "report/json_internal.h"
#include "report/promises.h"

namespace shale::report {
namespace {

using internal::json;

json EntryToJson(const SeedEntry& e) {
  json j = internal::RunResultToJson(e.result, e.trace_hash_known);
  j["wall_ms"] = e.wall_ms;
  if (!e.result.passed) j["replay"] = e.replay;
  return j;
}

SeedEntry EntryFromJson(const json& j) {
  SeedEntry e;
  e.result = internal::RunResultFromJson(j, &e.trace_hash_known);
  e.wall_ms = j.value("wall_ms", uint64_t{0});
  e.replay = j.value("replay", "");
  return e;
}

json CampaignToJson(const CampaignInfo& c) {
  return json{{"scenarios", c.scenarios}, {"seeds", c.seeds},
              {"shard", c.shard},         {"ops", c.ops},
              {"crashes", c.crashes},     {"strategy", c.strategy}, {"faults", c.faults},
              {"planted_bugs", c.planted_bugs}, {"jobs", c.jobs},
              {"wall_ms", c.wall_ms},     {"merged_from", c.merged_from}};
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
  c.planted_bugs = j.value("planted_bugs", uint64_t{0});
  c.jobs = j.value("jobs", int64_t{0});
  c.wall_ms = j.value("wall_ms", uint64_t{0});
  if (j.contains("merged_from")) {
    c.merged_from = j.at("merged_from").get<std::vector<std::string>>();
  }
  return c;
}

json TotalsToJson(const Totals& t) {
  return json{{"seeds", t.seeds},   {"passed", t.passed},   {"failed", t.failed},
              {"ops", t.ops},       {"engine_ops", t.engine_ops},
              {"crashes", t.crashes}, {"steps", t.steps},
              {"sim_time_ns", t.sim_time_ns}, {"faults", t.faults_by_kind},
              {"failures_by_property", t.failures_by_property}};
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

std::string EncodeReport(const Report& report) {
  json entries = json::array();
  for (const SeedEntry& e : report.entries) entries.push_back(EntryToJson(e));
  const json j = {{"format", "shale-report"},
                  {"version", 1},
                  {"campaign", CampaignToJson(report.campaign)},
                  {"totals", TotalsToJson(ComputeTotals(report.entries))},
                  {"promises", PromisesToJson(ComputePromises(report.entries))},
                  {"entries", std::move(entries)}};
  return j.dump(2) + "\n";
}

bool DecodeReport(std::string_view text, Report* report, std::string* error) {
  json j;
  if (!internal::ParseObject(text, "report", &j, error)) return false;
  if (j.value("format", "") != "shale-report") {
    *error = "report: not a shale report (\"format\" is not \"shale-report\")";
    return false;
  }
  Report decoded;
  const bool ok = internal::Guarded("report", error, [&] {
    decoded.campaign = CampaignFromJson(j.at("campaign"));
    for (const json& e : j.at("entries")) decoded.entries.push_back(EntryFromJson(e));
  });
  if (ok) *report = std::move(decoded);
  return ok;
}

bool MergeReports(const std::vector<Report>& inputs, const std::vector<std::string>& names,
                  Report* merged, std::string* error) {
  if (inputs.empty()) {
    *error = "merge needs at least one input report";
    return false;
  }
  Report out;
  out.campaign = inputs[0].campaign;
  out.campaign.shard = "";
  out.campaign.wall_ms = 0;
  out.campaign.merged_from = names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    out.campaign.wall_ms = std::max(out.campaign.wall_ms, inputs[i].campaign.wall_ms);
    if (inputs[i].campaign.seeds != out.campaign.seeds &&
        out.campaign.seeds.find(inputs[i].campaign.seeds) == std::string::npos) {
      out.campaign.seeds += "," + inputs[i].campaign.seeds;  // shards of different ranges
    }
    for (const SeedEntry& e : inputs[i].entries) out.entries.push_back(e);
    for (const std::string& s : inputs[i].campaign.scenarios) {
      auto& sc = out.campaign.scenarios;
      if (std::find(sc.begin(), sc.end(), s) == sc.end()) sc.push_back(s);
    }
  }
  std::sort(out.campaign.scenarios.begin(), out.campaign.scenarios.end());
  SortEntries(&out.entries);
  for (size_t i = 1; i < out.entries.size(); ++i) {
    if (SameSeed(out.entries[i - 1], out.entries[i])) {
      *error = "seed " + std::to_string(out.entries[i].result.seed) + " of scenario '" +
               out.entries[i].result.scenario + "' appears in two inputs (overlapping shards?)";
      return false;
    }
  }
  *merged = std::move(out);
  return true;
}

}  // namespace shale::report
