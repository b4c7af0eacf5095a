#include "report/promises.h"

#include <map>

#include "scenarios/scenario.h"

namespace shale::report {

std::vector<PromiseVerdict> ComputePromises(const std::vector<SeedEntry>& entries) {
  std::vector<PromiseVerdict> out;
  std::map<std::string, bool> done;  // scenario -> rows emitted
  for (const SeedEntry& first : entries) {
    const std::string& name = first.result.scenario;
    if (done[name]) continue;
    done[name] = true;
    const scenario::Scenario* s = scenario::FindScenario(name);
    if (s == nullptr) continue;
    for (const scenario::Scenario::PromiseRow& row : s->promises()) {
      PromiseVerdict v{name, row.mode, row.promise, row.kept, 0, std::nullopt};
      for (const SeedEntry& e : entries) {
        const scenario::RunResult& r = e.result;
        const auto mode = r.options_drawn.find(s->mode_option());
        if (r.scenario != name || mode == r.options_drawn.end() || mode->second != row.mode) {
          continue;
        }
        v.seeds++;
        const auto seen = r.observed.find(row.promise);
        if (!row.kept && seen != r.observed.end() && seen->second > 0 &&
            (!v.first_observed_seed || r.seed < *v.first_observed_seed)) {
          v.first_observed_seed = r.seed;
        }
      }
      out.push_back(v);
    }
  }
  return out;
}

std::string DescribeVerdict(const PromiseVerdict& v) {
  const std::string seeds = std::to_string(v.seeds) + " seeds";
  if (v.kept) return "kept (" + seeds + ")";
  if (v.first_observed_seed) {
    return "dropped — first observed at seed " + std::to_string(*v.first_observed_seed) + " (" +
           seeds + ")";
  }
  return "dropped — NOT observed in " + seeds;
}

}  // namespace shale::report
