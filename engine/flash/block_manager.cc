#include "flash/block_manager.h"

#include <cassert>

#include "shale/options.h"

namespace shale::flash {

BlockManager::BlockManager(const FlashGeometry& geometry,
                           const std::vector<ChunkDescriptor>& report, uint64_t planted_bugs)
    : geometry_(geometry),
      free_(geometry.parallel_units()),
      wear_(geometry.chunks(), 0),
      planted_bugs_(planted_bugs) {
  const bool bad_is_free = (planted_bugs & kBugFlashAllocateBadChunk) != 0;
  for (uint32_t chunk = 0; chunk < report.size() && chunk < geometry.chunks(); chunk++) {
    const ChunkDescriptor& d = report[chunk];
    wear_[chunk] = d.wear;
    if (d.state == ChunkState::kFree || (bad_is_free && d.state == ChunkState::kOffline)) {
      free_[geometry.UnitOf(chunk)].insert({d.wear, chunk});
    } else if (d.state == ChunkState::kOffline) {
      bad_.insert(chunk);
    }
  }
}

bool BlockManager::Allocate(uint32_t previous, uint32_t* chunk) {
  const uint32_t units = geometry_.parallel_units();
  uint32_t unit = previous == kNoChunk ? next_unit_ : (geometry_.UnitOf(previous) + 1) % units;
  if (previous == kNoChunk) next_unit_ = (next_unit_ + 1) % units;
  for (uint32_t tried = 0; tried < units; tried++, unit = (unit + 1) % units) {
    auto& free = free_[unit];
    if (free.empty()) continue;
    *chunk = free.begin()->second;
    free.erase(free.begin());
    return true;
  }
  return false;
}

void BlockManager::Release(uint32_t chunk) {
  free_[geometry_.UnitOf(chunk)].insert({wear_[chunk], chunk});
}

void BlockManager::MarkGrownBad(uint32_t chunk) { grown_bad_.insert(chunk); }

void BlockManager::QueueReset(uint32_t chunk) {
  if ((planted_bugs_ & kBugFlashReuseWithoutReset) != 0 && grown_bad_.count(chunk) == 0) {
    Release(chunk);
    return;
  }
  reset_queue_.push_back(chunk);
}

bool BlockManager::TakeReset(uint32_t* chunk) {
  if (reset_queue_.empty()) return false;
  *chunk = reset_queue_.front();
  reset_queue_.pop_front();
  return true;
}

void BlockManager::ResetDone(uint32_t chunk, bool ok) {
  wear_[chunk]++;
  if (ok && grown_bad_.count(chunk) == 0) {
    Release(chunk);
  } else {
    grown_bad_.erase(chunk);
    bad_.insert(chunk);
  }
}

}  // namespace shale::flash
