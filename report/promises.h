// The per-mode promise table of a campaign (Scenario::promises): for each
// scenario in the report that draws a mode, each (mode, promise) row with
// the seeds run in that mode and, for a dropped promise, the first seed
// where its violation was observed.
//
// A kept promise's violation fails its seed, so it needs no column here.
// A dropped promise that no seed of its mode showed is "not observed": the
// scheduler did not explore enough (tests and the summary flag it).
//
// Thread safety: PromiseTally is not thread-safe; the functions are pure.
// Scenarios must be registered.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace shale::report {

struct PromiseVerdict {
  std::string scenario;
  std::string mode;
  std::string promise;
  bool kept = true;
  uint64_t seeds = 0;                           // seeds run in this mode
  std::optional<uint64_t> first_observed_seed;  // dropped promises only
};

// The table built one result at a time, in any order. Memory: one row per
// (scenario, mode, promise) seen, whatever the number of results.
class PromiseTally {
 public:
  void Add(const scenario::RunResult& result);
  // Rows by scenario name, then in the scenario's promises() order.
  std::vector<PromiseVerdict> Verdicts() const;

 private:
  struct ScenarioRows {
    std::string mode_option;
    std::vector<PromiseVerdict> rows;
  };
  std::map<std::string, ScenarioRows> by_scenario_;
};

std::vector<PromiseVerdict> ComputePromises(const std::vector<SeedEntry>& entries);

// "kept (412 seeds)", "dropped — first observed at seed 3 (97 seeds)",
// "dropped — NOT observed in 97 seeds", or "not run (no seed drew this
// mode)".
std::string DescribeVerdict(const PromiseVerdict& v);

}  // namespace shale::report
