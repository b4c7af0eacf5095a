// A reference model of one directory on a SimDisk, for the property test.
// It knows what MUST survive a power loss (every synced byte under a durable
// name) and what MAY (only bytes that were at that offset at some time, zeros
// of holes, or anything inside a sector the disk reports as garbage-filled).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/disk/sim_disk.h"

namespace shale_test {

struct ModelFile {
  std::string visible;
  std::string synced;
  std::vector<std::set<char>> ever;        // per offset: every value it held
  std::vector<std::set<char>> since_sync;  // per offset: values since last sync

  // Records the current visible bytes as "seen".
  void Observe() {
    if (ever.size() < visible.size()) ever.resize(visible.size());
    if (since_sync.size() < visible.size()) since_sync.resize(visible.size());
    for (size_t i = 0; i < visible.size(); ++i) {
      ever[i].insert(visible[i]);
      since_sync[i].insert(visible[i]);
    }
  }
  void Synced() {
    synced = visible;
    since_sync.clear();
  }
  void SyncFailed() {
    visible = synced;
    since_sync.clear();
  }
};

class DiskModel {
 public:
  std::map<int, ModelFile> files;
  std::map<std::string, int> visible_names;  // name in the directory -> file id
  std::map<std::string, int> durable_names;

  int NewFile() {
    files[next_id_];
    return next_id_++;
  }

  // Checks a recovered file against the model after a power loss; returns
  // "" or what is wrong.
  static std::string CheckRecovered(const ModelFile& f, const std::string& got,
                                    const std::set<uint64_t>& garbage_sectors) {
    if (got.size() < f.synced.size()) return "lost synced size";
    for (size_t i = 0; i < got.size(); ++i) {
      if (garbage_sectors.count(i / shale::sim::SimDisk::kSectorBytes) != 0) continue;
      const char c = got[i];
      const bool seen = i < f.ever.size() && f.ever[i].count(c) != 0;
      if (!seen && c != '\0') return "byte from nowhere at " + std::to_string(i);
      if (i < f.synced.size() && c != f.synced[i] &&
          (i >= f.since_sync.size() || f.since_sync[i].count(c) == 0)) {
        return "synced byte lost at " + std::to_string(i);
      }
    }
    return "";
  }

  // After a power loss: names revert to the durable table; every surviving
  // file restarts from its recovered bytes (all of them now "written").
  void Recover(const std::map<std::string, std::string>& recovered) {
    visible_names = durable_names;
    std::map<int, ModelFile> kept;
    for (const auto& [name, id] : durable_names) {
      ModelFile& f = kept[id];
      f.visible = recovered.at(name);
      f.ever.clear();
      f.Observe();
      f.Synced();
    }
    files = std::move(kept);
  }

 private:
  int next_id_ = 1;
};

}  // namespace shale_test
