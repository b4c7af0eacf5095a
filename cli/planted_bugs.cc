#include "planted_bugs.h"

#include <cstdio>

#include "shale/options.h"

namespace shale::cli {

const std::vector<PlantedBugInfo>& AllPlantedBugs() {
  static const std::vector<PlantedBugInfo> kBugs = {
      {kBugAckSyncWriteBeforeWalSync, "ack_sync_write_before_wal_sync",
       "a sync write is acknowledged without fsyncing the WAL"},
      {kBugSkipDirSyncAfterCurrent, "skip_dir_sync_after_current",
       "CURRENT is renamed into place but its directory is never synced"},
      {kBugDeleteWalBeforeManifest, "delete_wal_before_manifest",
       "a flushed memtable's WAL is deleted before its table is in the MANIFEST"},
      {kBugCompactionIgnoresSnapshots, "compaction_ignores_snapshots",
       "compaction keeps only the newest version, ignoring live snapshots"},
      {kBugRecoveryStopsAtCorruption, "recovery_stops_at_corruption",
       "WAL recovery silently stops at a corrupt record, whatever the recovery mode"},
      {kBugPublishBeforeMemtableInsert, "publish_before_memtable_insert",
       "write groups publish their sequence before their memtable inserts"},
      {kBugWritePreparedPublishesUnprepared, "write_prepared_publishes_unprepared",
       "WritePrepared with two queues publishes a write without preparing it"},
      {kBugRecoveryCommitsPrepared, "recovery_commits_prepared",
       "recovery replays a prepared section as committed data"},
      {kBugRollbackKeepsData, "rollback_keeps_data",
       "a WritePrepared rollback leaves the rolled-back data visible"},
      {kBugRetireSectionWalAtFinish, "retire_section_wal_at_finish",
       "a prepared section's WAL is retired while its commit marker is unsynced"},
  };
  return kBugs;
}

namespace {

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

std::string KnownNames() {
  std::string known;
  for (const PlantedBugInfo& b : AllPlantedBugs()) known += (known.empty() ? "" : ", ") + std::string(b.name);
  return known;
}

}  // namespace

bool ParsePlantedBugs(const std::string& text, uint64_t* bits, std::string* error) {
  *bits = 0;
  if (text.empty() || text == "none") return true;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    const std::string name = text.substr(start, end - start);
    const PlantedBugInfo* found = nullptr;
    for (const PlantedBugInfo& b : AllPlantedBugs()) {
      if (name == b.name) found = &b;
    }
    if (found == nullptr) {
      return Fail(error, "unknown planted bug '" + name + "' (known: " + KnownNames() + ")");
    }
    *bits |= found->bit;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

std::string PlantedBugNames(uint64_t bits) {
  std::string names;
  for (const PlantedBugInfo& b : AllPlantedBugs()) {
    if ((bits & b.bit) == 0) continue;
    names += (names.empty() ? "" : ",") + std::string(b.name);
    bits &= ~uint64_t{b.bit};
  }
  if (bits != 0) {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%llx", static_cast<unsigned long long>(bits));
    names += (names.empty() ? "" : ",") + std::string(hex);
  }
  return names;
}

std::string PlantedBugsUsage() {
  std::string out =
      "\nchecker self-test: --planted_bugs NAME[,NAME] runs an engine that carries these real\n"
      "bugs, to watch which checker reports each (never for testing your own engine):\n";
  for (const PlantedBugInfo& b : AllPlantedBugs()) {
    out += "  " + std::string(b.name) + "\n      " + b.summary + "\n";
  }
  return out;
}

}  // namespace shale::cli
