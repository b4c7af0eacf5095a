// The hosting layer's planted bugs (shale::PlantedBug's kBugHosted* bits),
// shared by every hosted engine's adapters: checker self-tests that show a
// campaign finds a broken hosting layer whichever engine runs on it. Real
// runs pass 0 and get the plain calls.
//
// Thread safety: as the file system's.
#pragma once

#include <cstdint>
#include <string>

#include "shale/env.h"
#include "shale/options.h"

namespace shale::hosted {

// kBugHostedSyncSkipped: a writable file's Sync and Fsync acknowledge
// without syncing (what was written stays in the page cache).
inline bool SyncSkipped(uint64_t planted_bugs) {
  return (planted_bugs & kBugHostedSyncSkipped) != 0;
}

// rename(2) of src over target; with kBugHostedRenameNotAtomic, a target
// that exists is deleted first, so a crash between the two steps leaves no
// file under its name. REQUIRES: fs != nullptr.
[[nodiscard]] Status RenameWithPlantedBugs(FileSystem* fs, const std::string& src,
                                           const std::string& target, uint64_t planted_bugs);

}  // namespace shale::hosted
