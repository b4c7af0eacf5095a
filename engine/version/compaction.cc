// Compaction (see compaction.h).
#include "version/compaction.h"

#include "util/check.h"
#include "version/version.h"
#include "version/version_set.h"

namespace shale {

namespace {

uint64_t TotalFileSize(const std::vector<FileMetaData*>& files) {
  uint64_t sum = 0;
  for (const FileMetaData* f : files) sum += f->file_size;
  return sum;
}

}  // namespace

Compaction::Compaction(VersionSet* vset, Version* input_version, int level, int output_level,
                       bool is_manual)
    : vset_(vset),
      input_version_(input_version),
      level_(level),
      output_level_(output_level),
      is_manual_(is_manual),
      max_output_file_size_bytes_(vset->options_->target_file_size_base),
      max_grandparent_overlap_bytes_(
          static_cast<uint64_t>(vset->options_->max_grandparent_overlap_factor) *
          vset->options_->target_file_size_base),
      released_(true) {  // nothing marked until VersionSet marks the inputs
  input_version_->Ref();
}

Compaction::~Compaction() {
  ReleaseInputs();
  input_version_->Unref();
}

uint64_t Compaction::TotalInputBytes() const {
  return TotalFileSize(inputs_[0]) + TotalFileSize(inputs_[1]);
}

bool Compaction::IsTrivialMove() const {
  return output_level_ != level_ && num_input_files(0) == 1 && num_input_files(1) == 0 &&
         TotalFileSize(grandparents_) <= max_grandparent_overlap_bytes_;
}

void Compaction::AddInputDeletions(VersionEdit* edit) const {
  for (const FileMetaData* f : inputs_[0]) edit->RemoveFile(level_, f->number);
  for (const FileMetaData* f : inputs_[1]) edit->RemoveFile(output_level_, f->number);
}

bool Compaction::IsBaseLevelForKey(const Slice& user_key) const {
  const Comparator* ucmp = vset_->icmp_->user_comparator();
  for (int level = output_level_ + 1; level < input_version_->NumLevels(); level++) {
    for (const FileMetaData* f : input_version_->files(level)) {
      if (ucmp->Compare(user_key, f->smallest.user_key()) < 0) break;  // sorted by smallest
      if (ucmp->Compare(user_key, f->largest.user_key()) <= 0) return false;
    }
  }
  return true;
}

bool Compaction::ComputeBottommostLevel() const {
  const Comparator* ucmp = vset_->icmp_->user_comparator();
  const Slice lo = output_smallest_.user_key();
  const Slice hi = output_largest_.user_key();
  for (int level = output_level_ + 1; level < input_version_->NumLevels(); level++) {
    for (const FileMetaData* f : input_version_->files(level)) {
      if (ucmp->Compare(f->smallest.user_key(), hi) > 0) break;  // sorted by smallest
      if (ucmp->Compare(f->largest.user_key(), lo) >= 0) return false;
    }
  }
  return true;
}

bool Compaction::ShouldStopBefore(const Slice& internal_key) {
  const InternalKeyComparator* icmp = vset_->icmp_;
  const Slice user_key = ExtractUserKey(internal_key);
  const bool same_user_key =
      seen_key_ && icmp->user_comparator()->Compare(user_key, last_user_key_) == 0;
  while (grandparent_index_ < grandparents_.size() &&
         icmp->Compare(internal_key, grandparents_[grandparent_index_]->largest.Encode()) > 0) {
    if (seen_key_) overlapped_bytes_ += grandparents_[grandparent_index_]->file_size;
    grandparent_index_++;
  }
  seen_key_ = true;
  last_user_key_.assign(user_key.data(), user_key.size());
  if (!same_user_key && overlapped_bytes_ > max_grandparent_overlap_bytes_) {
    overlapped_bytes_ = 0;
    return true;
  }
  return false;
}

void Compaction::ReleaseInputs() {
  if (released_) return;
  released_ = true;
  vset_->ForgetRunning(this);
  for (auto& which : inputs_) {
    for (FileMetaData* f : which) {
      SHALE_CHECK(f->being_compacted);
      f->being_compacted = false;
    }
  }
}

}  // namespace shale
