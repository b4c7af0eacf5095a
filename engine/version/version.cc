// Version: reads through one snapshot of the LSM shape (see version.h).
#include "version/version.h"

#include <cinttypes>
#include <cstdio>

#include "util/check.h"
#include "version/level_iterator.h"
#include "version/table_cache.h"
#include "version/version_set.h"

namespace shale {

size_t FindFile(const InternalKeyComparator& icmp, const std::vector<FileMetaData*>& files,
                const Slice& internal_key) {
  size_t left = 0;
  size_t right = files.size();
  while (left < right) {
    const size_t mid = left + (right - left) / 2;
    if (icmp.Compare(files[mid]->largest.Encode(), internal_key) < 0) {
      left = mid + 1;  // every file at or before mid ends before the key
    } else {
      right = mid;
    }
  }
  return right;
}

Version::Version(VersionSet* vset) : vset_(vset), files_(vset->num_levels_) {}

Version::~Version() {
  SHALE_CHECK(refs_ == 0);
  prev_->next_ = next_;
  next_->prev_ = prev_;
  for (auto& level_files : files_) {
    for (FileMetaData* f : level_files) {
      SHALE_CHECK(f->refs > 0);
      if (--f->refs == 0) delete f;
    }
  }
}

void Version::Ref() { ++refs_; }

void Version::Unref() {
  SHALE_CHECK(this != &vset_->dummy_versions_);
  SHALE_CHECK(refs_ >= 1);
  if (--refs_ == 0) delete this;
}

uint64_t Version::NumLevelBytes(int level) const {
  uint64_t sum = 0;
  for (const FileMetaData* f : files_[level]) sum += f->file_size;
  return sum;
}

bool Version::Get(const ReadOptions& options, const LookupKey& key, std::string* value, Status* s,
                  SeekCharge* seek) const {
  const InternalKeyComparator& icmp = *vset_->icmp_;
  const Comparator* ucmp = icmp.user_comparator();
  const Slice ikey = key.internal_key();
  const Slice user_key = key.user_key();
  *s = Status::OK();
  if (seek != nullptr) *seek = SeekCharge();
  SeekCharge first;  // the first file consulted
  int consulted = 0;

  // Probes one file of level; true if it decides the lookup.
  auto probe = [&](FileMetaData* f, int level) {
    if (++consulted == 1) first = SeekCharge{f, level};
    if (consulted == 2 && seek != nullptr) *seek = first;
    enum { kAbsent, kValue, kDeleted, kCorrupt } state = kAbsent;
    Status st =
        vset_->table_cache_->Get(options, *f, ikey, [&](const Slice& found_key, const Slice& v) {
          ParsedInternalKey parsed;
          if (!ParseInternalKey(found_key, &parsed)) {
            state = kCorrupt;
          } else if (ucmp->Compare(parsed.user_key, user_key) == 0) {
            state = parsed.type == kTypeValue ? kValue : kDeleted;
            if (state == kValue) value->assign(v.data(), v.size());
          }
        });
    if (!st.ok()) {
      *s = st;
      return true;
    }
    switch (state) {
      case kAbsent:
        return false;
      case kValue:
        return true;
      case kDeleted:
        *s = Status::NotFound();
        return true;
      case kCorrupt:
        *s = Status::Corruption("bad internal key in table", user_key.view());
        return true;
    }
    return false;
  };

  for (FileMetaData* f : files_[0]) {  // newest first
    if (ucmp->Compare(user_key, f->smallest.user_key()) >= 0 &&
        ucmp->Compare(user_key, f->largest.user_key()) <= 0 && probe(f, 0)) {
      return true;
    }
  }
  for (size_t level = 1; level < files_.size(); level++) {
    const std::vector<FileMetaData*>& files = files_[level];
    const size_t index = FindFile(icmp, files, ikey);
    if (index < files.size() && ucmp->Compare(user_key, files[index]->smallest.user_key()) >= 0 &&
        probe(files[index], static_cast<int>(level))) {
      return true;
    }
  }
  return false;
}

bool Version::ChargeSeek(const SeekCharge& seek) {
  FileMetaData* f = seek.file;
  if (f == nullptr) return false;
  SHALE_CHECK(f->refs > 0);
  SHALE_CHECK(seek.level >= 0 && static_cast<size_t>(seek.level) < files_.size());
  if (--f->allowed_seeks > 0 || file_to_compact_ != nullptr) return false;
  file_to_compact_ = f;
  file_to_compact_level_ = seek.level;
  return true;
}

void Version::AddIterators(const ReadOptions& options, std::vector<Iterator*>* iters) const {
  for (const FileMetaData* f : files_[0]) {
    iters->push_back(vset_->table_cache_->NewIterator(options, *f));
  }
  for (size_t level = 1; level < files_.size(); level++) {
    if (files_[level].empty()) continue;
    iters->push_back(NewLevelIterator(options, vset_->table_cache_, vset_->icmp_, &files_[level]));
  }
}

void Version::GetOverlappingInputs(int level, const InternalKey* begin, const InternalKey* end,
                                   std::vector<FileMetaData*>* inputs) const {
  SHALE_CHECK(level >= 0 && level < NumLevels());
  inputs->clear();
  const Comparator* ucmp = vset_->icmp_->user_comparator();
  std::string user_begin = begin != nullptr ? begin->user_key().ToString() : std::string();
  std::string user_end = end != nullptr ? end->user_key().ToString() : std::string();
  bool has_begin = begin != nullptr;
  bool has_end = end != nullptr;
  const std::vector<FileMetaData*>& files = files_[level];
  for (size_t i = 0; i < files.size();) {
    FileMetaData* f = files[i++];
    const Slice file_start = f->smallest.user_key();
    const Slice file_limit = f->largest.user_key();
    if (has_begin && ucmp->Compare(file_limit, user_begin) < 0) continue;  // before range
    if (has_end && ucmp->Compare(file_start, user_end) > 0) continue;      // after range
    inputs->push_back(f);
    // A file that widens the range may make earlier-skipped files overlap:
    // widen and start over.
    if (has_begin && ucmp->Compare(file_start, user_begin) < 0) {
      user_begin = file_start.ToString();
      inputs->clear();
      i = 0;
    } else if (has_end && ucmp->Compare(file_limit, user_end) > 0) {
      user_end = file_limit.ToString();
      inputs->clear();
      i = 0;
    }
  }
}

bool Version::OverlapInLevel(int level, const Slice* smallest_user_key,
                             const Slice* largest_user_key) const {
  const Comparator* ucmp = vset_->icmp_->user_comparator();
  for (const FileMetaData* f : files_[level]) {
    const bool after = smallest_user_key != nullptr &&
                       ucmp->Compare(*smallest_user_key, f->largest.user_key()) > 0;
    const bool before =
        largest_user_key != nullptr && ucmp->Compare(*largest_user_key, f->smallest.user_key()) < 0;
    if (!after && !before) return true;
  }
  return false;
}

std::string Version::LevelSummary() const {
  std::string r = "files[";
  char buf[32];
  for (const auto& level_files : files_) {
    std::snprintf(buf, sizeof(buf), " %zu", level_files.size());
    r += buf;
  }
  return r + " ]";
}

std::string Version::DebugString() const {
  std::string r;
  char buf[96];
  for (size_t level = 0; level < files_.size(); level++) {
    std::snprintf(buf, sizeof(buf), "--- level %zu ---\n", level);
    r += buf;
    for (const FileMetaData* f : files_[level]) {
      std::snprintf(buf, sizeof(buf), " %" PRIu64 ":%" PRIu64 "[", f->number, f->file_size);
      r += buf + f->smallest.DebugString() + " .. " + f->largest.DebugString() + "]\n";
    }
  }
  return r;
}

}  // namespace shale
