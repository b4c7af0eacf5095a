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

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "faults/disk_fault_injector.h"
#include "faults/swarm.h"
#include "scenarios/oracle/recovery_check.h"
#include "shale/options.h"
#include "sim/disk/disk_media.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::scenario {

// Which WAL bit flips recovery in mode must report, or for skip-any read
// past (see the file comment):
//   kNone              none (point in time stops at damage silently), so
//                      the plan flips no WAL bit;
//   kBeforeLastRecord  (tolerate-tail) a flip in the checksum or payload of
//                      a whole fragment followed by another whole one
//                      (WalFlipRanges): a damaged last record, or a damaged
//                      length field, can read as the torn tail it drops;
//   kAnyByte           (absolute consistency, skip-any) every flip.
enum class WalDamage : uint8_t { kNone, kBeforeLastRecord, kAnyByte };
WalDamage WalDamageFor(WALRecoveryMode mode);

// A whole (checksummed) log fragment: where it starts and its length,
// header included.
struct FragmentSpan {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};
// The whole fragments at the start of a log's (or MANIFEST's) contents, in
// order, up to the first spot that holds none. with_padding: a direct
// writer's whole padding fragments count (as the reader reads past them);
// else the first one ends the list.
std::vector<FragmentSpan> WholeFragments(const std::string& contents, bool with_padding = false);
// True if a log's contents end inside a record (a fragment cut short, or a
// record whose last fragment never came) and hold no whole fragment after
// that point. A process killed while its writer flushed part of a record
// larger than its buffer leaves this; absolute consistency may refuse it,
// tolerate-tail must accept it. Damage followed by whole fragments is not
// this. A RocksDB WAL's opening SetCompressionType record counts as a
// whole fragment.
bool EndsInPartialRecord(const std::string& contents);
// Where damage at byte `offset` of a WAL's contents (read before the
// damage) begins to cost writes: the sequence of the first write batch
// whose record ends after offset, or, when every whole record ends at or
// before it, one above the last record's highest sequence. Writes logged
// before that sequence are replayed by a recovery that stops at the
// damage. 0 if no whole record can be read (nothing is known).
uint64_t FirstSequenceFrom(const std::string& contents, uint64_t offset);

// The writes damage at byte `offset` of a WAL's contents (read before the
// damage) may cost a recovery that reads on past damage (skip-any): from
// FirstSequenceFrom(offset) up to the first record that starts in a later
// 32 KiB block, since a log reader drops the rest of a block it finds
// damage in (and the tail of a record that began there).
SequenceRange SkippedByDamageAt(const std::string& contents, uint64_t offset);
// The bytes of a WAL's contents a flip must be reported in under
// WalDamage::kBeforeLastRecord: the checksum and payload of every whole
// fragment but the last.
std::vector<faults::ByteRange> WalFlipRanges(const std::string& contents);

// Where a MANIFEST's last whole (checksummed) fragment starts in its
// contents (0: none). Damage before it is followed by a whole fragment, so
// recovery must report it; damage in or after it (the partial record a
// failed append may leave) reads as the torn tail of an unfinished write,
// which recovery drops by design. So a crash-time flip that must be
// detected lands before it.
uint64_t LastWholeFragmentStart(const std::string& contents);

// True for a WAL file's path ("<dir>/<number>.log").
bool IsLogFile(const std::string& path);
// True for a table file's path ("<dir>/<number>.sst").
bool IsTableFile(const std::string& path);
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
// The logs among survivors' and holes' paths that a power loss left as
// something other than a clean prefix of what was written: a garbage
// survivor, a hole (a lost write inside the size kept), or a torn sector
// followed by a surviving later sector of the same file. A clean prefix
// (whole sectors, at most the last one torn) ends in an incomplete record
// at worst, which tolerate-tail recovery must accept; only these logs may
// it refuse.
std::set<std::string> LogsLeftUnclean(const std::vector<sim::SimDisk::SurvivingSector>& survivors,
                                      const std::vector<std::string>& holes);
// torn_logs: the logs the recovery mode may refuse (for tolerate-tail, only
// those a power loss left unclean, see LogsLeftUnclean; for absolute
// consistency, any with a surviving unsynced sector).
Refusal ClassifyRefusal(const Status& s, WALRecoveryMode mode,
                        const std::set<std::string>& injected,
                        const std::set<std::string>& torn_logs);

// What proves that an error a call returned came from the plan's faults
// (FaultPlan::Prove). With faults on, an error is accepted only with one.
enum class ErrorProof : uint8_t {
  kNone,           // nothing: the error is spurious
  kInjectedFault,  // it carries the injector's tag ("injected fault: KIND")
                   // for a fault of that kind injected since the call's mark,
                   // or names a file in a directory whose creation an
                   // injected fault failed since then (an engine may ignore
                   // that error and fail on the missing directory later)
  kDamagedFile,    // a Corruption or a media IOError naming a file the plan
                   // damaged that still exists
};
// "none", "injected fault", "damaged file".
const char* ErrorProofName(ErrorProof proof);

// The pins that turn one injected fault kind off, by its report name:
// "fault.faults.<kind>" -> "off" (see FaultPlan's pinned_off).
std::map<std::string, std::string> FaultKindPins();
// The kinds pins (RunConfig::pins) turn off.
std::set<faults::FaultKind> FaultKindsPinnedOff(const std::map<std::string, std::string>& pins);

class FaultPlan final : public faults::FaultPolicy {
 public:
  // Draws the swarm config from sim's PRNG; installs the fault-point hook.
  // Half the runs draw no DETECT kind (see the .cc). detect: whether the
  // DETECT kinds may be drawn at all. An engine that
  // does not promise to detect damage (a hosted engine whose promise table
  // keeps no "damage detected") gets the SURVIVE kinds only: a flip it
  // reads back silently would be its documented behaviour, not a bug.
  // pinned_off: kinds a pin turns off after the draw (the draw itself, and
  // so every later option, is as without the pin).
  FaultPlan(sim::Simulation* sim, bool enabled, bool detect = true,
            const std::set<faults::FaultKind>& pinned_off = {});

  Decision Decide(const Request& request) override;
  // While paused, no new fault is injected (disk operations and engine
  // fault points alike); damage already on the disk stays. A retry made
  // paused that still fails was not failed by a transient injected fault.
  void set_paused(bool paused) { paused_ = paused; }
  bool paused() const { return paused_; }
  // After a crash: in a run that damages, 1 in 1..8 crashes (drawn per run)
  // flips one bit of one durable table file or WAL (see set_wal_damage);
  // only of a WAL if the run drew no bit_flip rate. With flash_damage (the
  // open-channel SSD holds the tables and WALs), that damage is done by
  // it instead, to whichever file it chooses (it sets the path; false if
  // it found nothing to damage).
  using FlashDamage = std::function<bool(std::string* path)>;
  void AfterCrash(sim::DiskMedia* disk, const FlashDamage& flash_damage = nullptr);

  bool enabled() const { return enabled_; }
  // Which bit flips may reach WAL files (WalDamageFor the recovery mode).
  // When any may, half of the WAL flips aim at the live (newest) log.
  void set_wal_damage(WalDamage damage) { wal_damage_ = damage; }
  // Faults injected so far (survive and detect kinds, by name).
  uint64_t total() const;
  // Faults injected so far that can take acknowledged data out of the page
  // cache: fsync_drops_pages. After none, a process crash must keep every
  // acknowledged WAL write. Detect-class damage does not count: in a table
  // it costs only the keys a check cannot read (left out of it), and an
  // injected WAL flip waives durability while recovery reads that log.
  uint64_t page_loss_total() const;
  faults::FaultCounts counts() const;
  std::map<std::string, std::string> Describe() const;
  // Every file the plan damaged so far (bit flips, sticky unreadable
  // sectors, misdirected writes), sorted: only an error naming one of them
  // may be taken for detected damage.
  const std::set<std::string>& damaged_paths() const { return damaged_paths_; }
  // Every log a failed sync dropped or marked clean pages of, sorted: its
  // tail may be lost (at once, or at a power loss) as if torn.
  const std::set<std::string>& lossy_sync_logs() const { return lossy_sync_logs_; }
  // The lowest sequence that the damage in any of logs may cost: the least
  // FirstSequenceFrom of each bit the plan flipped in them; 0 if any of them
  // took other damage (a misdirected write, a bad sector, lost pages),
  // whose reach is unknown; UINT64_MAX if none is damaged.
  uint64_t LogDamageFloor(const std::set<std::string>& logs) const;
  // Where the plan flipped bits in log (byte offsets; none if it flipped
  // none). False if the log took damage whose reach is unknown
  // (LogDamageFloor 0): any of its writes.
  bool FlipOffsets(const std::string& log, std::vector<uint64_t>* offsets) const;

  // A fault of kind injected elsewhere (the flash device's hooks) whose
  // error carries the tag "injected fault: <kind>": Prove accepts it
  // from now on.
  void NoteInjected(const std::string& kind) {
    injected_tags_.push_back({++clock_, kind, "", false});
  }

  // path was damaged elsewhere (the flash device, at a read): an error
  // naming it may be taken for detected damage from now on.
  void NoteDamaged(const std::string& path) { damaged_paths_.insert(path); }

  // path was deleted by a call the plan does not decide on (the flash
  // backend's): as for a decided delete, an error made before now may
  // still name it as damage.
  void NoteDeleted(const std::string& path) { MarkDeleted(path, ++clock_); }

  // A point in the plan's history (it counts the calls it decided on and
  // the fault points it fired): Prove accepts only a tag injected, or a
  // damaged file deleted, after it. Take it when a call begins (an Open
  // attempt, a read), or when the DB's incarnation began (for a call a
  // background error of that incarnation can fail).
  uint64_t Mark() const { return clock_; }
  // Why s (not OK) may be taken for the plan's doing (see ErrorProof): a
  // tag of a fault injected since mark, or damage the plan did to a file
  // that still exists or was deleted since mark (never a missing file's
  // error: an engine that deleted a live file that once took damage must
  // not read as detecting it). A
  // Corruption naming a log a failed sync lost pages of counts as damage
  // too (lossy_sync_logs).
  // REQUIRES: set_name_visible was called.
  ErrorProof Prove(const Status& s, uint64_t mark) const;
  // How Prove learns whether a damaged file still exists.
  void set_name_visible(std::function<bool(const std::string& path)> visible) {
    name_visible_ = std::move(visible);
  }

 private:
  // Records when a damaged path was deleted (deleted_at_).
  void MarkDeleted(const std::string& path, uint64_t now);
  // True if text carries the tag of a fault injected since mark.
  bool CarriesTagSince(const std::string& text, uint64_t mark) const;

  const bool enabled_;
  bool paused_ = false;
  WalDamage wal_damage_ = WalDamage::kNone;
  uint64_t crash_flip_one_in_ = 0;      // a bit flip at 1 in this many crashes; 0 = off
  bool crash_flips_logs_only_ = false;  // bit_flip not drawn: crash flips hit WALs only
  sim::Simulation* const sim_;
  faults::FaultConfig survive_config_;
  faults::FaultConfig detect_config_;
  std::unique_ptr<faults::DiskFaultInjector> survive_;
  std::unique_ptr<faults::DiskFaultInjector> detect_;
  faults::FaultCounts point_counts_;
  std::set<std::string> damaged_paths_;
  std::set<std::string> lossy_sync_logs_;
  std::map<std::string, uint64_t> log_damage_floor_;               // see LogDamageFloor
  std::map<std::string, std::vector<uint64_t>> log_flip_offsets_;  // see FlipOffsets
  // Ticks at every call decided on and every fault point fired (Mark).
  uint64_t clock_ = 0;
  // Every error injected, in order: what a tag may name.
  struct InjectedTag {
    uint64_t clock = 0;
    std::string kind;     // a disk call's fault kind, or an engine fault point's name
    std::string path;     // a disk call's path ("" for a fault point)
    bool create = false;  // the call created path (a file or a directory)
  };
  std::vector<InjectedTag> injected_tags_;
  // Damaged files deleted, and the clock when last deleted.
  std::map<std::string, uint64_t> deleted_at_;
  std::function<bool(const std::string& path)> name_visible_;
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
