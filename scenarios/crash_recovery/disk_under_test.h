// DiskUnderTest: the simulated disk a crash-recovery run puts the engine on.
// The POSIX disk is a SimDisk; the Windows disk is a WindowsDisk over one
// (sim/disk/windows_disk.h). Either way the SimDisk below holds the data
// and reports what a power loss kept, and the engine reaches the disk
// through a FaultInjectingFs (faults/fault_injecting_fs.h) worn on top.
// The open-channel disk keeps the engine's WAL, tables and MANIFEST on a
// simulated open-channel SSD through the flash backend (FlashUnderTest),
// and its small files on the SimDisk, through the fault decorator.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: owns both disks; borrows the context, which must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "faults/fault_injecting_fs.h"
#include "scenarios/crash_recovery/flash_under_test.h"
#include "shale/env.h"
#include "shale/options.h"
#include "sim/disk/sim_disk.h"
#include "sim/disk/windows_disk.h"
#include "sim/disk_context.h"

namespace shale::scenario {

enum class DiskModel : uint8_t { kPosix, kWindows, kOpenChannel };

class DiskUnderTest {
 public:
  // Draws the Windows disk's options (if model is kWindows) or the flash
  // device (kOpenChannel) from context's tape and records them in
  // *described. planted_bugs: Options::planted_bugs.
  DiskUnderTest(DiskModel model, sim::DiskContext* context, const sim::LatencyProfile& latency,
                uint64_t planted_bugs, std::map<std::string, std::string>* described);

  // What the engine opens its files through: the fault decorator over
  // the disk, or the flash backend over it.
  FileSystem* fs() { return flash_ != nullptr ? flash_->fs() : faulty_.get(); }
  // Faults for every call through fs() (nullptr: none).
  // REQUIRES: policy outlives this or is replaced first.
  void set_fault_policy(faults::FaultPolicy* policy) { faulty_->set_policy(policy); }
  // The disk's media, for crash-time damage.
  sim::DiskMedia* media();
  // Whether path names a file now: on the open-channel SSD, through the
  // mounted backend (false while none is), else on the SimDisk.
  bool NameVisible(const std::string& path);
  // The SimDisk holding the data (power-loss reports).
  sim::SimDisk* base() { return base_.get(); }
  // The Windows layer, or nullptr on the POSIX disk.
  sim::WindowsDisk* windows() { return windows_.get(); }
  // The open-channel SSD, or nullptr.
  FlashUnderTest* flash() { return flash_.get(); }

  // REQUIRES: the process's tasks are gone (Simulation::Crash).
  void ProcessCrash();
  void PowerLoss(uint64_t survive_one_in);

 private:
  std::unique_ptr<sim::SimDisk> base_;
  std::unique_ptr<sim::WindowsDisk> windows_;
  std::unique_ptr<faults::FaultInjectingFs> faulty_;
  std::unique_ptr<FlashUnderTest> flash_;
};

// Direct I/O for tables, drawn from tape:
// half the runs read and write their tables with it (on Windows:
// unbuffered, aligned to the drawn sector size), half of those write their
// WAL with it too, and on the Windows disk
// half of those share no delete on open (the engine must then close a file
// before it deletes it). Records the draws in *described.
void DrawFileOptions(DiskModel model, sim::ChoiceTape* tape, Options* options,
                     std::map<std::string, std::string>* described);

}  // namespace shale::scenario
