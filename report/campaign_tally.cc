#include "report/campaign_tally.h"

#include <algorithm>
#include <tuple>

namespace shale::report {
namespace {

bool SeedOrder(const SeedEntry& a, const SeedEntry& b) {
  return std::tie(a.result.scenario, a.result.seed) < std::tie(b.result.scenario, b.result.seed);
}

}  // namespace

CampaignTally::CampaignTally(size_t max_kept_failures) : max_kept_failures_(max_kept_failures) {}

void CampaignTally::Add(const SeedEntry& e) {
  AddToTotals(e, &totals_);
  promises_.Add(e.result);
  SuiteTally& suite = suites_[e.result.scenario];
  ++suite.seeds;
  suite.failed += e.result.passed ? 0 : 1;
  suite.wall_ms += e.wall_ms;
  worker_ms_ += e.wall_ms;
  if (!e.result.passed) KeepFailure(e);
}

void CampaignTally::KeepFailure(const SeedEntry& e) {
  if (max_kept_failures_ == 0) return;
  if (kept_failures_.size() == max_kept_failures_ && !SeedOrder(e, kept_failures_.back())) return;
  const auto at = std::upper_bound(kept_failures_.begin(), kept_failures_.end(), e, SeedOrder);
  kept_failures_.insert(at, e);
  if (kept_failures_.size() > max_kept_failures_) kept_failures_.pop_back();
}

}  // namespace shale::report
