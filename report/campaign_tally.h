// CampaignTally: everything a campaign's summary, report tail and JUnit
// counts need from the seeds done so far, kept as aggregates so the
// campaign's memory does not grow with the number of seeds.
//
// Memory bound: the totals (one counter per fault kind and per failed
// property), the promise table (one row per scenario, mode and promise),
// one SuiteTally per scenario, and at most max_kept_failures failed entries
// (each no larger than the worker's result line). Failures past the cap are
// counted in the totals but not kept.
//
// Thread safety: none; one thread. Ownership: copies what it keeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/promises.h"
#include "report/report.h"

namespace shale::report {

// The seeds of one scenario, for a JUnit <testsuite>.
struct SuiteTally {
  uint64_t seeds = 0;
  uint64_t failed = 0;
  uint64_t wall_ms = 0;  // summed worker wall time
};

class CampaignTally {
 public:
  explicit CampaignTally(size_t max_kept_failures);

  // Entries may come in any order.
  void Add(const SeedEntry& entry);

  const Totals& totals() const { return totals_; }
  std::vector<PromiseVerdict> promises() const { return promises_.Verdicts(); }
  const std::map<std::string, SuiteTally>& suites() const { return suites_; }
  // Summed wall time of every seed's worker.
  uint64_t worker_ms() const { return worker_ms_; }
  // The failed entries with the smallest (scenario, seed), sorted by it, at
  // most max_kept_failures of them.
  const std::vector<SeedEntry>& kept_failures() const { return kept_failures_; }

 private:
  void KeepFailure(const SeedEntry& entry);

  size_t max_kept_failures_;
  Totals totals_;
  PromiseTally promises_;
  std::map<std::string, SuiteTally> suites_;
  uint64_t worker_ms_ = 0;
  std::vector<SeedEntry> kept_failures_;
};

}  // namespace shale::report
