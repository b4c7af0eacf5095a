// VersionBuilder: applies a sequence of VersionEdits to a base Version and
// produces a new Version, checking that the result is a possible shape.
//
// Used by VersionSet::LogAndApply (one edit) and Recover (every MANIFEST
// record). Ownership: holds a Ref on base and on every file it holds;
// releases them when destroyed. REQUIRES: the DB mutex is held for its whole
// life (it touches refcounts), or the VersionSet is not yet shared (Recover).
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "shale/status.h"
#include "version/version.h"
#include "version/version_edit.h"

namespace shale {

class VersionBuilder {
 public:
  VersionBuilder(const InternalKeyComparator* icmp, int num_levels, Version* base);
  ~VersionBuilder();
  VersionBuilder(const VersionBuilder&) = delete;
  VersionBuilder& operator=(const VersionBuilder&) = delete;

  // Applies edit's deletions, then its additions. Corruption if it deletes a
  // file not in that level, adds a number already present, or names a level
  // >= num_levels. After an error the builder must not be used further.
  [[nodiscard]] Status Apply(const VersionEdit& edit);

  // Fills v's (empty) levels: L0 by descending number, L1+ by smallest key.
  // Corruption if a file has smallest > largest, a number appears twice, or
  // two files of a level >= 1 overlap.
  [[nodiscard]] Status SaveTo(Version* v) const;

 private:
  const InternalKeyComparator* const icmp_;
  const int num_levels_;
  Version* const base_;
  std::vector<std::map<uint64_t, FileMetaData*>> levels_;  // number -> file, Ref'd
};

}  // namespace shale
