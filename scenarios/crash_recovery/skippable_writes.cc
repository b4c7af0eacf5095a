#include "scenarios/crash_recovery/skippable_writes.h"

#include <algorithm>

#include "scenarios/crash_recovery/fault_plan.h"

namespace shale::scenario {

void SkippableWrites::Learn(const std::string& log, const std::string& contents) {
  if (FirstSequenceFrom(contents, contents.size()) != 0) contents_[log] = contents;
}

void SkippableWrites::NoteDamagedWhole(const std::string& log) {
  const auto it = contents_.find(log);
  if (it == contents_.end()) return;  // no whole record ever seen: no write to lose
  noted_.push_back(SequenceRange{FirstSequenceFrom(it->second, 0),
                                 FirstSequenceFrom(it->second, it->second.size())});
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
