// SyncedSizes: what the flash backend promises to keep of each file across
// any crash (shale/flash_file_system.h): every byte synced through its
// handles, less what a later truncate cut. Checked after every mount, so
// a backend that drops synced data (a mount that ends a file early) is
// caught at the file system, whatever the engine above makes of it.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: the wrapped handles share their records with this object, so
// either may go first.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shale/env.h"

namespace shale::scenario {

class SyncedSizes {
 public:
  // Wraps a handle of path: created (a new file, replacing any of that
  // name), or reopened when it held size bytes.
  std::unique_ptr<WritableFile> Track(const std::string& path, bool created, uint64_t size,
                                      std::unique_ptr<WritableFile> file);
  // path's name is gone: nothing is promised of it any more (a delete a
  // crash undoes brings back a file whose size was promised before).
  void Deleted(const std::string& path);

  struct Loss {
    std::string path;
    uint64_t synced_bytes = 0;
    uint64_t size_bytes = 0;
  };
  // The files fs holds with fewer bytes than were synced, by path.
  std::vector<Loss> Check(FileSystem* fs) const;

  // A file's size as its handles left it, and the bytes it must keep.
  struct Record {
    uint64_t size_bytes = 0;
    uint64_t synced_bytes = 0;
  };

 private:
  std::map<std::string, std::shared_ptr<Record>> records_;
};

}  // namespace shale::scenario
