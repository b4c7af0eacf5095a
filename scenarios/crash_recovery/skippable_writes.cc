#include "scenarios/crash_recovery/skippable_writes.h"

#include <algorithm>

#include "scenarios/crash_recovery/fault_plan.h"

namespace shale::scenario {

void SkippableWrites::Learn(const std::string& log, const std::string& contents) {
  const uint64_t past_last = FirstSequenceFrom(contents, contents.size());
  if (past_last == 0) return;  // no whole record yet
  contents_[log] = contents;
  const uint64_t first = FirstSequenceFrom(contents, 0);
  const auto [it, added] = learned_.emplace(log, SequenceRange{first, past_last});
  if (added) return;
  it->second.begin = std::min(it->second.begin, first);
  it->second.end = std::max(it->second.end, past_last);
}

void SkippableWrites::NoteDamagedWhole(const std::string& log) {
  const auto it = learned_.find(log);
  if (it != learned_.end()) noted_.push_back(it->second);
}

void SkippableWrites::NoteDamaged(const std::string& log, const std::vector<uint64_t>& flipped_at) {
  const auto it = contents_.find(log);
  if (it == contents_.end()) return;  // no whole record ever seen: no write to lose
  for (uint64_t offset : flipped_at) {
    const SequenceRange r = SkippedByDamageAt(it->second, offset);
    if (r.begin < r.end) noted_.push_back(r);
  }
}

std::vector<SequenceRange> SkippableWrites::Take() {
  std::vector<SequenceRange> taken;
  taken.swap(noted_);
  return taken;
}

}  // namespace shale::scenario
