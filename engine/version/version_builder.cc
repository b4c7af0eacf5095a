// VersionBuilder (see version_builder.h).
#include "version/version_builder.h"
#include "util/check.h"

#include <algorithm>
#include <set>
#include <string>

namespace shale {

namespace {

void UnrefFile(FileMetaData* f) {
  SHALE_CHECK(f->refs > 0);
  if (--f->refs == 0) delete f;
}

}  // namespace

VersionBuilder::VersionBuilder(const InternalKeyComparator* icmp, int num_levels, Version* base)
    : icmp_(icmp), num_levels_(num_levels), base_(base), levels_(num_levels) {
  base_->Ref();
  for (int level = 0; level < base_->NumLevels() && level < num_levels_; level++) {
    for (FileMetaData* f : base_->files(level)) {
      f->refs++;
      levels_[level].emplace(f->number, f);
    }
  }
}

VersionBuilder::~VersionBuilder() {
  for (auto& level : levels_) {
    for (auto& [number, f] : level) UnrefFile(f);
  }
  base_->Unref();
}

Status VersionBuilder::Apply(const VersionEdit& edit) {
  for (const auto& [level, number] : edit.deleted_files()) {
    if (level >= num_levels_) return Status::Corruption("VersionEdit deletes from a bad level");
    auto it = levels_[level].find(number);
    if (it == levels_[level].end()) {
      return Status::Corruption("VersionEdit deletes a file not in its level",
                                std::to_string(number));
    }
    UnrefFile(it->second);
    levels_[level].erase(it);
  }
  for (const auto& [level, meta] : edit.new_files()) {
    if (level >= num_levels_) return Status::Corruption("VersionEdit adds to a bad level");
    auto* f = new FileMetaData(meta);
    f->refs = 1;
    f->being_compacted = false;
    f->allowed_seeks = InitialAllowedSeeks(f->file_size);
    auto [it, inserted] = levels_[level].emplace(f->number, f);
    if (!inserted) {
      UnrefFile(f);
      return Status::Corruption("VersionEdit adds a file twice", std::to_string(meta.number));
    }
  }
  return Status::OK();
}

Status VersionBuilder::SaveTo(Version* v) const {
  SHALE_CHECK(v->NumLevels() == num_levels_);
  std::set<uint64_t> numbers;
  for (int level = 0; level < num_levels_; level++) {
    std::vector<FileMetaData*>& out = v->files_[level];
    SHALE_CHECK(out.empty());
    for (const auto& [number, f] : levels_[level]) {
      if (!numbers.insert(number).second) {
        return Status::Corruption("file in two levels", std::to_string(number));
      }
      if (icmp_->Compare(f->smallest.Encode(), f->largest.Encode()) > 0) {
        return Status::Corruption("file with smallest > largest", std::to_string(number));
      }
      out.push_back(f);
    }
    if (level == 0) {
      std::sort(out.begin(), out.end(),
                [](const FileMetaData* a, const FileMetaData* b) { return a->number > b->number; });
    } else {
      std::sort(out.begin(), out.end(), [this](const FileMetaData* a, const FileMetaData* b) {
        const int r = icmp_->Compare(a->smallest.Encode(), b->smallest.Encode());
        return r != 0 ? r < 0 : a->number < b->number;
      });
      for (size_t i = 1; i < out.size(); i++) {
        if (icmp_->Compare(out[i - 1]->largest.Encode(), out[i]->smallest.Encode()) >= 0) {
          const std::string names =
              std::to_string(out[i - 1]->number) + " and " + std::to_string(out[i]->number);
          out.clear();  // this level's files hold no refs from v yet
          return Status::Corruption("overlapping files in level " + std::to_string(level), names);
        }
      }
    }
    for (FileMetaData* f : out) f->refs++;
  }
  return Status::OK();
}

}  // namespace shale
