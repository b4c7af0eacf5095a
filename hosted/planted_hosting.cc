// The hosting layer's planted bugs: see planted_hosting.h.
#include "hosted/planted_hosting.h"

namespace shale::hosted {

Status RenameWithPlantedBugs(FileSystem* fs, const std::string& src, const std::string& target,
                             uint64_t planted_bugs) {
  if ((planted_bugs & kBugHostedRenameNotAtomic) != 0 && fs->FileExists(target).ok()) {
    const Status removed = fs->DeleteFile(target);
    if (!removed.ok()) return removed;
  }
  return fs->RenameFile(src, target);
}

}  // namespace shale::hosted
