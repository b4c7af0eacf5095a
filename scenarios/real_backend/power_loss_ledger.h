// PowerLossLedger: the parent's record of what a child's PowerLossFs
// reported (power_loss_fs.h), and the power loss it then carries out on
// the real directory once the child is dead.
//
// A power loss, as the simulated disk makes one (sim/disk/sim_disk.h):
//  * Names: the name events no SyncDir of their directory covered are an
//    ordered journal, of which a drawn prefix survives (none, some, or
//    all); the rest are undone newest first: a create removed, a delete
//    brought back from the trash, a rename reversed (and the file it
//    replaced brought back).
//  * Data: each file keeps the size its last reported sync made durable.
//    Of the bytes past it, per file: all are lost (half the time), or a
//    drawn prefix survives, whole or with its last 512-byte sector torn
//    (the rest of that sector garbage).
// A log file that kept any unsynced byte is named in torn_logs(): its tail
// may end mid-record.
//
// Thread safety: none (the parent's one thread).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "shale/status.h"
#include "sim/choice_tape.h"

namespace shale::scenario {

class PowerLossLedger {
 public:
  // A new process starts reporting: its DirSynced counts name events from
  // here (each process counts its own from zero).
  void StartProcess() { process_base_ = events_.size(); }
  void WillCreate(const std::string& path);
  void WillDelete(const std::string& path, const std::string& trash);
  void WillRename(const std::string& src, const std::string& dst, const std::string& dst_trash);
  void DirSynced(const std::string& dir, uint64_t name_events);
  // A file created with inode: a freed inode the file system handed out
  // again carries no durable bytes from its former file.
  void FileCreated(uint64_t inode) { durable_size_.erase(inode); }
  void FileSynced(uint64_t inode, uint64_t size_bytes);

  // Carries out the power loss on dir (the DB's directory), drawing every
  // choice from tape; what is left is then all durable (no name event is
  // pending, every file's size is synced). REQUIRES: no process that
  // reports here is running.
  [[nodiscard]] Status PowerLoss(const std::string& dir, sim::ChoiceTape* tape);

  const std::set<std::string>& torn_logs() const { return torn_logs_; }
  // What the last PowerLoss did, for the run's report.
  struct Figures {
    uint64_t name_events_uncommitted = 0;
    uint64_t name_events_undone = 0;
    uint64_t files_cut = 0;        // lost every unsynced byte
    uint64_t files_kept_part = 0;  // kept a prefix of them
    uint64_t files_torn = 0;       // ... with a torn last sector
  };
  const Figures& figures() const { return figures_; }

 private:
  struct NameEvent {
    enum class Kind : uint8_t { kCreate, kDelete, kRename } kind;
    std::string path;   // created, deleted, or the rename's source
    std::string dst;    // the rename's target
    std::string trash;  // delete: the file's link; rename: the replaced file's ("" if none)
    bool durable = false;
  };
  [[nodiscard]] Status Undo(const NameEvent& e);
  [[nodiscard]] Status CutData(const std::string& dir, sim::ChoiceTape* tape);

  // Marks everything in dir durable, as a power loss leaves it.
  [[nodiscard]] Status SettleAfterPowerLoss(const std::string& dir);

  std::vector<NameEvent> events_;
  size_t process_base_ = 0;                    // events_ before the reporting process began
  std::map<uint64_t, uint64_t> durable_size_;  // inode -> bytes a sync made durable
  std::set<std::string> torn_logs_;
  Figures figures_;
};

}  // namespace shale::scenario
