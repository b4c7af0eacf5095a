#include "report/promises.h"

#include "scenarios/scenario.h"

namespace shale::report {

void PromiseTally::Add(const scenario::RunResult& r) {
  auto it = by_scenario_.find(r.scenario);
  if (it == by_scenario_.end()) {
    ScenarioRows fresh;
    if (const scenario::Scenario* s = scenario::FindScenario(r.scenario)) {
      fresh.mode_option = s->mode_option();
      for (const scenario::Scenario::PromiseRow& row : s->promises()) {
        fresh.rows.push_back({r.scenario, row.mode, row.promise, row.kept, 0, std::nullopt});
      }
    }
    it = by_scenario_.emplace(r.scenario, std::move(fresh)).first;
  }
  if (it->second.rows.empty()) return;
  const auto mode = r.options_drawn.find(it->second.mode_option);
  if (mode == r.options_drawn.end()) return;
  for (PromiseVerdict& v : it->second.rows) {
    if (v.mode != mode->second) continue;
    v.seeds++;
    const auto seen = r.observed.find(v.promise);
    if (!v.kept && seen != r.observed.end() && seen->second > 0 &&
        (!v.first_observed_seed || r.seed < *v.first_observed_seed)) {
      v.first_observed_seed = r.seed;
    }
  }
}

std::vector<PromiseVerdict> PromiseTally::Verdicts() const {
  std::vector<PromiseVerdict> out;
  for (const auto& [name, scenario_rows] : by_scenario_) {
    out.insert(out.end(), scenario_rows.rows.begin(), scenario_rows.rows.end());
  }
  return out;
}

std::vector<PromiseVerdict> ComputePromises(const std::vector<SeedEntry>& entries) {
  PromiseTally tally;
  for (const SeedEntry& e : entries) tally.Add(e.result);
  return tally.Verdicts();
}

std::string DescribeVerdict(const PromiseVerdict& v) {
  // A mode no seed drew (one its engine does not offer, or a short campaign)
  // proves nothing either way.
  if (v.seeds == 0) return "not run (no seed drew this mode)";
  const std::string seeds = std::to_string(v.seeds) + " seeds";
  if (v.kept) return "kept (" + seeds + ")";
  if (v.first_observed_seed) {
    return "dropped — first observed at seed " + std::to_string(*v.first_observed_seed) + " (" +
           seeds + ")";
  }
  return "dropped — NOT observed in " + seeds;
}

}  // namespace shale::report
