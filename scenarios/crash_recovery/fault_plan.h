// FaultPlan: how the crash-recovery scenario injects I/O faults.
//
// The swarm draw (faults/swarm.h) is split by what the engine must do:
//   * SURVIVE (every file): EIO on read/write/sync/open/rename/delete,
//     ENOSPC, fsync failures that drop pages, slow I/O, and engine fault
//     points. An operation that fails is indeterminate; nothing acknowledged
//     may be lost. Only an fsync failure that drops pages can take
//     acknowledged data from the page cache, so only after one does the
//     next process-crash check use power-loss rules.
//   * DETECT: bit flips in durable data, sticky unreadable sectors,
//     misdirected writes; in SST files, and (flips at a crash) in the
//     MANIFEST and CURRENT where the engine can tell damage from what a
//     crash leaves (DetectableBytes in fault_plan.cc). They must surface as
//     Corruption/IOError naming the damaged file, never as data. A read
//     that fails so is accepted; the run goes on, and its crash checks
//     leave out only the keys whose reads fail so (damaged_paths).
//     Bit flips reach WAL files only in runs whose recovery mode reports
//     every WAL damage (absolute consistency). Point-in-time recovery stops
//     at damage silently, by design; tolerate-tail recovery drops a damaged
//     last record silently when the flip lands in its length field (the
//     record then reads as running past the end of the file: exactly a torn
//     write, which that mode drops, as RocksDB's does). For the same reason
//     a MANIFEST's last record is never flipped. Damage to the live
//     MANIFEST or CURRENT fails every Open: the run ends as detected.
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <memory>
#include <set>
#include <string>

#include "faults/disk_fault_injector.h"
#include "faults/swarm.h"
#include "shale/options.h"
#include "sim/disk/disk_media.h"
#include "sim/simulation.h"

namespace shale::scenario {

// Whether recovery in mode reports every bit flip in a WAL (see the file
// comment): only then may the plan flip WAL bits and expect detection.
bool WalDamageReported(WALRecoveryMode mode);

// Where a MANIFEST's last whole (checksummed) fragment starts in its
// contents (0: none). Damage before it is followed by a whole fragment, so
// recovery must report it; damage in or after it (the partial record a
// failed append may leave) reads as the torn tail of an unfinished write,
// which recovery drops by design. So a crash-time flip that must be
// detected lands before it.
uint64_t LastWholeFragmentStart(const std::string& contents);

// True for a WAL file's path ("<dir>/<number>.log").
bool IsLogFile(const std::string& path);
// True if s's message names one of paths: the proof that an error came
// from damage to a file the run really damaged.
bool NamesAnyPath(const Status& s, const std::set<std::string>& paths);

// What a failed Open under mode means, given the files the plan damaged
// (injected) and the logs a power loss left partly written (torn_logs):
//   kNone               not a refusal by the recovery mode: tolerate-tail
//                       and absolute-consistency recovery refuse only a WAL
//                       that is really damaged, so a Corruption naming no
//                       damaged file is the engine's own error;
//   kReopenPointInTime  a refusal of a torn log: reopen in point-in-time
//                       mode (as an operator would) and check on;
//   kStopsAtInjectedDamage
//                       a refusal of a WAL the plan damaged, or of a torn
//                       log while a WAL carries an injected flip: reopen
//                       point-in-time too, which stops silently at the
//                       flip, so writes from it on may be lost.
enum class Refusal : uint8_t { kNone, kReopenPointInTime, kStopsAtInjectedDamage };

// A kill can land between the two writes of one WAL record (the file
// writer's buffer filled mid-record), so any log a killed process left may
// end in a truncated record. If s is that refusal ("truncated record at end
// of log"), the killed logs count as torn for ClassifyRefusal (those s
// names do); for any other error, none does.
std::set<std::string> LogsTornByKill(const Status& s, const std::set<std::string>& killed_logs);
Refusal ClassifyRefusal(const Status& s, WALRecoveryMode mode,
                        const std::set<std::string>& injected,
                        const std::set<std::string>& torn_logs);

class FaultPlan final : public faults::FaultPolicy {
 public:
  // Draws the swarm config from sim's PRNG; installs the fault-point hook.
  // detect: whether the DETECT kinds may be drawn at all. An engine that
  // does not promise to detect damage (a hosted engine whose promise table
  // keeps no "damage detected") gets the SURVIVE kinds only: a flip it
  // reads back silently would be its documented behaviour, not a bug.
  FaultPlan(sim::Simulation* sim, bool enabled, bool detect = true);

  Decision Decide(const Request& request) override;
  // While paused, no new fault is injected (disk operations and engine
  // fault points alike); damage already on the disk stays. A retry made
  // paused that still fails was not failed by a transient injected fault.
  void set_paused(bool paused) { paused_ = paused; }
  // After a crash: with bit flips on, 1 in 1..8 crashes (drawn per run)
  // flips one bit of one durable table file (or WAL, when allowed).
  void AfterCrash(sim::DiskMedia* disk);

  bool enabled() const { return enabled_; }
  // Lets bit flips reach WAL files too (for the recovery mode that reports
  // every WAL damage rather than stop at it or drop it as a torn tail).
  void set_wal_damage_allowed(bool allowed) { wal_damage_allowed_ = allowed; }
  // Faults injected so far (survive and detect kinds, by name).
  uint64_t total() const;
  // Faults injected so far that can take acknowledged data out of the page
  // cache: fsync_drops_pages. After none, a process crash must keep every
  // acknowledged WAL write. Detect-class damage does not count: in a table
  // it costs only the keys a check cannot read (left out of it), and an
  // injected WAL flip waives durability while recovery reads that log.
  uint64_t page_loss_total() const;
  // Faults injected so far that can make an operation fail or damage data:
  // all but slow_io and short_read (the disk retries a short read itself,
  // so both only cost time).
  uint64_t error_total() const;
  // True if such a fault was injected since error_total() returned
  // error_faults_before: the proof a run needs before it may take an error
  // seen since then for an injected one.
  bool InjectedErrorSince(uint64_t error_faults_before) const {
    return error_total() > error_faults_before;
  }
  faults::FaultCounts counts() const;
  std::map<std::string, std::string> Describe() const;
  // Every file the plan damaged so far (bit flips, sticky unreadable
  // sectors, misdirected writes), sorted: only an error naming one of them
  // may be taken for detected damage.
  const std::set<std::string>& damaged_paths() const { return damaged_paths_; }
  // Every log a failed sync dropped or marked clean pages of, sorted: its
  // tail may be lost (at once, or at a power loss) as if torn.
  const std::set<std::string>& lossy_sync_logs() const { return lossy_sync_logs_; }

 private:
  const bool enabled_;
  bool paused_ = false;
  bool wal_damage_allowed_ = false;
  uint64_t crash_flip_one_in_ = 0;  // a bit flip at 1 in this many crashes; 0 = off
  sim::Simulation* const sim_;
  faults::FaultConfig survive_config_;
  faults::FaultConfig detect_config_;
  std::unique_ptr<faults::DiskFaultInjector> survive_;
  std::unique_ptr<faults::DiskFaultInjector> detect_;
  faults::FaultCounts point_counts_;
  std::set<std::string> damaged_paths_;
  std::set<std::string> lossy_sync_logs_;
};

// Retries of an operation that injected transient faults may fail (Open,
// a full scan): the last of max_attempts runs with the plan paused. With
// high drawn rates (a read failing 1 in 50) every faulted attempt at a long
// scan can fail; the paused one fails only on the engine's own error or on
// damage already injected. RAII: pauses in the constructor when attempt is
// the last, resumes in the destructor.
class PauseOnLastAttempt {
 public:
  PauseOnLastAttempt(FaultPlan* plan, int attempt, int max_attempts)
      : plan_(plan), paused_(attempt == max_attempts - 1) {
    if (paused_) plan_->set_paused(true);
  }
  ~PauseOnLastAttempt() {
    if (paused_) plan_->set_paused(false);
  }
  PauseOnLastAttempt(const PauseOnLastAttempt&) = delete;
  PauseOnLastAttempt& operator=(const PauseOnLastAttempt&) = delete;

 private:
  FaultPlan* const plan_;
  const bool paused_;
};

}  // namespace shale::scenario
