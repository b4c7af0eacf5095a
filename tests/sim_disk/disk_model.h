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

// One uncommitted metadata operation, as the disk journals it.
struct ModelRecord {
  enum class Kind { kLink, kUnlink, kRename, kTruncate } kind = Kind::kLink;
  std::string name;   // kLink, kUnlink, kRename (from)
  std::string to;     // kRename
  int id = 0;         // kLink, kRename, kTruncate
  uint64_t size = 0;  // kTruncate
  bool Names(int file) const { return kind != Kind::kUnlink && id == file; }
};

class DiskModel {
 public:
  std::map<int, ModelFile> files;
  std::map<std::string, int> visible_names;  // name in the directory -> file id
  std::map<std::string, int> durable_names;
  std::vector<ModelRecord> journal;  // uncommitted, oldest first
  bool fsync_commits_metadata = false;

  int NewFile() {
    files[next_id_];
    return next_id_++;
  }

  // Makes journal[0, count) durable and drops them.
  void Commit(size_t count) {
    for (size_t i = 0; i < count; ++i) Apply(journal[i]);
    journal.erase(journal.begin(), journal.begin() + static_cast<ptrdiff_t>(count));
  }
  // SyncDir of the model's one directory: up to its last name change.
  void SyncDir() {
    size_t end = 0;
    for (size_t i = 0; i < journal.size(); ++i) {
      if (journal[i].kind != ModelRecord::Kind::kTruncate) end = i + 1;
    }
    Commit(end);
  }
  // A successful file sync of file id.
  void FileSynced(int id) {
    if (fsync_commits_metadata) {
      size_t end = 0;
      for (size_t i = 0; i < journal.size(); ++i) {
        if (journal[i].Names(id)) end = i + 1;
      }
      Commit(end);
    }
    files[id].Synced();  // after the commit: the sync wrote the current size
    std::vector<ModelRecord> kept;
    for (const ModelRecord& r : journal) {
      if (r.kind != ModelRecord::Kind::kTruncate || r.id != id) kept.push_back(r);
    }
    journal = std::move(kept);
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

  // After a power loss (the journal prefix applied): names revert to the
  // durable table; every surviving
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
  void Apply(const ModelRecord& r) {
    switch (r.kind) {
      case ModelRecord::Kind::kLink:
        durable_names[r.name] = r.id;
        break;
      case ModelRecord::Kind::kUnlink:
        durable_names.erase(r.name);
        break;
      case ModelRecord::Kind::kRename:
        durable_names.erase(r.name);
        durable_names[r.to] = r.id;
        break;
      case ModelRecord::Kind::kTruncate:
        files[r.id].synced.resize(r.size, '\0');
        break;
    }
  }

  int next_id_ = 1;
};

}  // namespace shale_test
