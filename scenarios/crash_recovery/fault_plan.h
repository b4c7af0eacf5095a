// FaultPlan: how the crash-recovery scenario injects I/O faults.
//
// The swarm draw (faults/swarm.h) is split by what the engine must do:
//   * SURVIVE (every file): EIO on read/write/sync/open/rename/delete,
//     ENOSPC, fsync failures that drop pages, slow I/O, and engine fault
//     points. An operation that fails is indeterminate; nothing acknowledged
//     may be lost (a sync failure can drop unsynced pages, so after any fault
//     the next recovery check uses power-loss rules).
//   * DETECT (SST files only, for now): bit flips in durable data, sticky
//     unreadable sectors, misdirected writes. They must surface as
//     Corruption/IOError, never as data; once one has been injected, a
//     Corruption/IOError from a scan or an Open ends the run as detected.
//     Bit flips reach WAL files only in runs whose recovery mode must report
//     WAL damage (tolerate-tail, absolute): point-in-time recovery stops at
//     such damage silently, by design. MANIFEST damage is not injected yet
//     (a flipped last record reads as a torn tail and is dropped).
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <memory>
#include <string>

#include "faults/disk_fault_injector.h"
#include "faults/swarm.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::scenario {

class FaultPlan final : public sim::DiskFaultHooks {
 public:
  // Draws the swarm config from sim's PRNG; installs the fault-point hook.
  FaultPlan(sim::Simulation* sim, bool enabled);

  Decision Decide(const Request& request) override;
  // After a crash: with bit flips on, 1 in 1..8 crashes (drawn per run)
  // flips one bit of one durable table file (or WAL, when allowed).
  void AfterCrash(sim::SimDisk* disk);

  bool enabled() const { return enabled_; }
  // Lets bit flips reach WAL files too (for recovery modes that must report
  // WAL damage rather than stop at it).
  void set_wal_damage_allowed(bool allowed) { wal_damage_allowed_ = allowed; }
  // Faults injected so far (survive and detect kinds, by name).
  uint64_t total() const;
  // Detect-class faults injected so far.
  uint64_t detect_total() const;
  faults::FaultCounts counts() const;
  std::map<std::string, std::string> Describe() const;

 private:
  const bool enabled_;
  bool wal_damage_allowed_ = false;
  uint64_t crash_flip_one_in_ = 0;  // a bit flip at 1 in this many crashes; 0 = off
  sim::Simulation* const sim_;
  faults::FaultConfig survive_config_;
  faults::FaultConfig detect_config_;
  std::unique_ptr<faults::DiskFaultInjector> survive_;
  std::unique_ptr<faults::DiskFaultInjector> detect_;
  faults::FaultCounts point_counts_;
};

}  // namespace shale::scenario
