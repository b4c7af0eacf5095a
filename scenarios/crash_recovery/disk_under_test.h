// DiskUnderTest: the simulated disk a crash-recovery run puts the engine on.
// The POSIX disk is a SimDisk; the Windows disk is a WindowsDisk over one
// (sim/disk/windows_disk.h). Either way the SimDisk below holds the data,
// takes the fault hooks and reports what a power loss kept.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: owns both disks; borrows the context, which must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "shale/env.h"
#include "shale/options.h"
#include "sim/disk/sim_disk.h"
#include "sim/disk/windows_disk.h"
#include "sim/disk_context.h"

namespace shale::scenario {

enum class DiskModel : uint8_t { kPosix, kWindows };

class DiskUnderTest {
 public:
  // Draws the Windows disk's options (if model is kWindows) from a stream
  // of its own (the seed, salted) and records them in *described.
  DiskUnderTest(DiskModel model, uint64_t seed, sim::DiskContext* context,
                const sim::LatencyProfile& latency, std::map<std::string, std::string>* described);

  // What the engine opens its files through.
  FileSystem* fs();
  // The SimDisk holding the data (fault hooks, power-loss reports).
  sim::SimDisk* base() { return base_.get(); }
  // The Windows layer, or nullptr on the POSIX disk.
  sim::WindowsDisk* windows() { return windows_.get(); }

  void ProcessCrash();
  void PowerLoss(uint64_t survive_one_in);

 private:
  std::unique_ptr<sim::SimDisk> base_;
  std::unique_ptr<sim::WindowsDisk> windows_;
};

// Direct I/O for tables, drawn from a stream of its own (the seed, salted):
// half the runs read and write their tables with it (on Windows:
// unbuffered, aligned to the drawn sector size), and on the Windows disk
// half of those share no delete on open (the engine must then close a file
// before it deletes it). Records the draws in *described.
void DrawFileOptions(DiskModel model, uint64_t seed, Options* options,
                     std::map<std::string, std::string>* described);

}  // namespace shale::scenario
