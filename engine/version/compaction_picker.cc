// Leveled compaction picking: VersionSet::NeedsCompaction, PickCompaction,
// CompactRange (contracts in version_set.h).
//
// Concurrency: the compaction thread and manual CompactRange calls may each
// hold a Compaction. Every picked input (both levels) is marked
// being_compacted, and a pick that needs a marked file is abandoned, so two
// compactions never share a file. Disjoint inputs are not enough for
// disjoint outputs: a manual compaction's inputs may leave gaps in its
// level, a file can land in a gap while it runs and be compacted into the
// output level, and the manual compaction's outputs, spanning the gap, then
// overlap it. So each running compaction also reserves its output range
// (the span of all its inputs) in its output level, and a pick whose
// output range meets a reserved one at the same level is abandoned too, as
// RocksDB's picker checks output ranges against running compactions.
#include <algorithm>
#include <utility>

#include "util/check.h"
#include "util/probes.h"
#include "version/version_set.h"

namespace shale {

namespace {

// The smallest and largest internal keys of files (non-empty).
void GetRange(const InternalKeyComparator& icmp, const std::vector<FileMetaData*>& files,
              InternalKey* smallest, InternalKey* largest) {
  SHALE_CHECK(!files.empty());
  *smallest = files[0]->smallest;
  *largest = files[0]->largest;
  for (const FileMetaData* f : files) {
    if (icmp.Compare(f->smallest.Encode(), smallest->Encode()) < 0) *smallest = f->smallest;
    if (icmp.Compare(f->largest.Encode(), largest->Encode()) > 0) *largest = f->largest;
  }
}

}  // namespace

bool VersionSet::AnyBeingCompacted(const std::vector<FileMetaData*>& files) const {
  return std::any_of(files.begin(), files.end(),
                     [](const FileMetaData* f) { return f->being_compacted; });
}

double VersionSet::LevelScore(int level) const {
  if (level >= num_levels_ - 1) return 0;  // the last level compacts only manually
  uint64_t free_files = 0;
  uint64_t free_bytes = 0;
  for (const FileMetaData* f : current_->files(level)) {
    if (f->being_compacted) continue;
    free_files++;
    free_bytes += f->file_size;
  }
  if (level == 0) {
    const int trigger = std::max(1, options_->level0_file_num_compaction_trigger);
    return static_cast<double>(free_files) / trigger;
  }
  return static_cast<double>(free_bytes) / static_cast<double>(MaxBytesForLevel(level));
}

bool VersionSet::NeedsCompaction() const {
  for (int level = 0; level < num_levels_ - 1; level++) {
    if (LevelScore(level) >= 1) return true;
  }
  return SeekCompactionLevel() >= 0;
}

int VersionSet::SeekCompactionLevel() const {
  const FileMetaData* f = current_->file_to_compact();
  const int level = current_->file_to_compact_level();
  if (f == nullptr || level < 0 || level >= num_levels_ - 1 || f->being_compacted) return -1;
  return level;
}

bool VersionSet::PickInputsAround(int level, const FileMetaData* f, Compaction* c) {
  // A running L0 compaction blocks another one (their L1 inputs would
  // overlap). Every L0 file overlapping f goes too: an older one left
  // behind would shadow f's entries once they sit in level 1.
  if (level == 0 && AnyBeingCompacted(current_->files(0))) {
    SHALE_PROBE(env_->runtime(), "compaction.l0_blocked_by_running");
    return false;
  }
  current_->GetOverlappingInputs(level, &f->smallest, &f->largest, &c->inputs_[0]);
  if (AnyBeingCompacted(c->inputs_[0])) return false;
  return SetupOtherInputs(c);
}

bool VersionSet::SetupOtherInputs(Compaction* c) {
  InternalKey smallest, largest;
  GetRange(*icmp_, c->inputs_[0], &smallest, &largest);
  c->inputs_[1].clear();
  if (c->output_level_ != c->level_) {
    current_->GetOverlappingInputs(c->output_level_, &smallest, &largest, &c->inputs_[1]);
    if (AnyBeingCompacted(c->inputs_[1])) return false;
  }
  std::vector<FileMetaData*> all = c->inputs_[0];
  all.insert(all.end(), c->inputs_[1].begin(), c->inputs_[1].end());
  InternalKey all_start, all_limit;
  GetRange(*icmp_, all, &all_start, &all_limit);
  if (OutputRangeBusy(c->output_level_, all_start, all_limit)) return false;
  c->output_smallest_ = all_start;
  c->output_largest_ = all_limit;
  c->bottommost_level_ = c->ComputeBottommostLevel();
  c->grandparents_.clear();
  if (c->output_level_ + 1 < num_levels_) {
    current_->GetOverlappingInputs(c->output_level_ + 1, &all_start, &all_limit, &c->grandparents_);
  }
  // The next compaction of this level starts after this one (round robin).
  InternalKey level_largest;
  GetRange(*icmp_, c->inputs_[0], &smallest, &level_largest);
  compact_pointer_[c->level_] = level_largest.Encode().ToString();
  c->edit_.SetCompactPointer(c->level_, level_largest);
  return true;
}

bool VersionSet::PickLevelInputs(int level, Compaction* c) {
  const std::vector<FileMetaData*>& files = current_->files(level);
  if (files.empty()) return false;
  if (level == 0) return PickInputsAround(0, files.back(), c);  // newest first: oldest last
  size_t start = 0;
  if (!compact_pointer_[level].empty()) {
    start = FindFile(*icmp_, files, compact_pointer_[level]);
    // FindFile finds the first file whose largest is >= the pointer; the
    // pointer is a previous input's largest key, so skip past that file.
    if (start < files.size() &&
        icmp_->Compare(files[start]->largest.Encode(), compact_pointer_[level]) == 0) {
      start++;
    }
  }
  for (size_t k = 0; k < files.size(); k++) {
    const FileMetaData* f = files[(start + k) % files.size()];
    if (!f->being_compacted && PickInputsAround(level, f, c)) return true;
  }
  c->inputs_[0].clear();
  return false;
}

bool VersionSet::OutputRangeBusy(int output_level, const InternalKey& smallest,
                                 const InternalKey& largest) const {
  const Comparator* ucmp = icmp_->user_comparator();
  for (const Compaction* r : running_compactions_) {
    if (r->output_level_ != output_level) continue;
    if (ucmp->Compare(largest.user_key(), r->output_smallest_.user_key()) < 0) continue;
    if (ucmp->Compare(r->output_largest_.user_key(), smallest.user_key()) < 0) continue;
    return true;
  }
  return false;
}

void VersionSet::MarkRunning(Compaction* c) {
  for (int which = 0; which < 2; which++) {
    for (FileMetaData* f : c->inputs_[which]) {
      SHALE_CHECK(!f->being_compacted);
      f->being_compacted = true;
    }
  }
  c->released_ = false;
  running_compactions_.push_back(c);
}

void VersionSet::ForgetRunning(const Compaction* c) {
  const auto it = std::find(running_compactions_.begin(), running_compactions_.end(), c);
  SHALE_CHECK(it != running_compactions_.end());
  if (it != running_compactions_.end()) running_compactions_.erase(it);
}

Compaction* VersionSet::PickCompaction() {
  std::vector<std::pair<double, int>> scored;  // (score, level)
  for (int level = 0; level < num_levels_ - 1; level++) {
    const double score = LevelScore(level);
    if (score >= 1) scored.emplace_back(score, level);
  }
  // Highest score first; ties go to the lower level.
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [score, level] : scored) {
    auto* c = new Compaction(this, current_, level, level + 1, /*is_manual=*/false);
    if (PickLevelInputs(level, c)) {
      MarkRunning(c);
      return c;
    }
    delete c;
  }
  // Size comes first; then a file Gets keep consulting in vain.
  const int seek_level = SeekCompactionLevel();
  if (seek_level < 0) return nullptr;
  auto* c = new Compaction(this, current_, seek_level, seek_level + 1, /*is_manual=*/false);
  if (PickInputsAround(seek_level, current_->file_to_compact(), c)) {
    MarkRunning(c);
    SHALE_COUNT(stats_, seek_compactions, 1);
    SHALE_PROBE(env_->runtime(), "compaction.seek_compaction_picked");
    return c;
  }
  delete c;
  return nullptr;
}

Compaction* VersionSet::CompactRange(int level, const InternalKey* begin, const InternalKey* end,
                                     bool* busy) {
  SHALE_CHECK(level >= 0 && level < num_levels_);
  *busy = false;
  std::vector<FileMetaData*> inputs;
  current_->GetOverlappingInputs(level, begin, end, &inputs);
  if (inputs.empty()) return nullptr;
  const int output_level = level + 1 < num_levels_ ? level + 1 : level;
  auto* c = new Compaction(this, current_, level, output_level, /*is_manual=*/true);
  c->inputs_[0] = std::move(inputs);
  if (AnyBeingCompacted(c->inputs_[0]) || !SetupOtherInputs(c)) {
    *busy = true;
    delete c;
    return nullptr;
  }
  MarkRunning(c);
  return c;
}

}  // namespace shale
