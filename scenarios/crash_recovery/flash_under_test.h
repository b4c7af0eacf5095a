// FlashUnderTest: the open-channel SSD a crash-recovery run puts the
// engine's WAL, tables and MANIFEST on (the `open-channel` scenario).
//
// It owns the simulated device (sim/flash/sim_flash_device.h), drawn per
// seed, and mounts the flash backend (shale/flash_file_system.h) over it
// and over the run's small-file system. The backend is process state: a
// crash abandons the instance (its memory died with the process) and the
// next Open mounts a fresh one, which rebuilds the file table from the
// device alone. fs() is the same object across instances.
//
// Faults it can inject, all of which the engine (through the backend) must
// SURVIVE without an error or lost acknowledged data: program failures
// (the chunk closes early; the backend writes around it), erase failures
// and worn-out chunks (they go OFFLINE), factory-bad chunks, and power
// losses that drop or tear what sat in the device cache. Program and erase
// failures are injected only in runs with faults on. Damage at rest
// (DamageAtCrash: an unreadable sector, a flipped data or OOB bit, rarely
// a whole chunk lost) the engine must DETECT: reading what it took fails,
// naming the file.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: owns the device and the instances; borrows the context and
// the small-file system, which must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "scenarios/crash_recovery/flash_synced_sizes.h"
#include "shale/flash_file_system.h"
#include "sim/disk_context.h"
#include "sim/flash/sim_flash_device.h"

namespace shale::scenario {

class FlashUnderTest {
 public:
  // Draws the device (geometry, timing, factory-bad chunks) from context's
  // tape and records the draws in *described.
  // planted_bugs: Options::planted_bugs, handed to every instance.
  FlashUnderTest(sim::DiskContext* context, FileSystem* small_files, uint64_t planted_bugs,
                 std::map<std::string, std::string>* described);
  ~FlashUnderTest();

  // What the engine opens files through: the mounted instance. Every call
  // fails with IOError while none is mounted.
  FileSystem* fs();
  // Mounts an instance if none is, then checks that it kept every synced
  // byte (SyncedSizes), telling the loss sink of each file it did not.
  // REQUIRES: called from a task.
  [[nodiscard]] Status Mount(Runtime* runtime);
  void set_loss_sink(std::function<void(const SyncedSizes::Loss&)> sink) {
    loss_sink_ = std::move(sink);
  }
  // Told the path of each file deleted through fs().
  void set_delete_sink(std::function<void(const std::string& path)> sink) {
    delete_sink_ = std::move(sink);
  }
  // The process died: the instance is abandoned, never destroyed.
  void Abandon();
  // Stops the mounted instance's eraser (the end of a run); it stays
  // unmounted. REQUIRES: a task.
  void Shutdown();
  // Power fails: the device loses its cache. Call Abandon() first.
  void PowerLoss();
  // The paths the last crash took data of: files whose buffered tail died
  // with the process (Abandon), and, after a PowerLoss(), files whose
  // chunks lost sectors from the device cache (as their START sectors name
  // them).
  std::set<std::string> LastCrashLostPaths() const;
  // Whether Flush() makes data survive a process crash (the instances'
  // write buffer does not hold across Flush; drawn per seed).
  bool FlushSurvivesCrash() const { return !fs_options_.buffer_across_flush; }

  // Program and erase failures from now on, each drawn from rng at the
  // call, at rates drawn from the tape; counted in *faults_by_kind, and
  // told to injected (by kind, as the device's error tags it) when done.
  // And decay found at read time: a read of a table's full CLOSED chunk
  // may first make one DATA sector it covers unreadable for good (counted
  // as kReadDecayName), and damaged is told the table's path before the
  // read fails. None of these is drawn while paused() (a fault plan's
  // pause). Each is traced as a fault.
  void EnableMediaFaults(std::map<std::string, uint64_t>* faults_by_kind,
                         std::function<void(const std::string& kind)> injected,
                         std::function<void(const std::string& path)> damaged,
                         std::function<bool()> paused);
  static constexpr const char* kReadDecayName = "flash_unreadable_at_read";
  // The least rate of read-time decay, one read in this (drawn up to 8x
  // rarer per seed).
  static constexpr uint64_t kReadDecayOneIn = 1000;
  void set_violation_sink(std::function<void(const sim::FlashRuleViolation&)> sink);
  // Damage at rest, drawn from rng, to one DATA sector of a CLOSED chunk
  // of a table or WAL whose START and CLOSE sectors read whole (so the
  // CLOSE counts what the damage takes): made unreadable, or a bit of its
  // data or its OOB tag flipped, a third each. Sets *path to the file the
  // chunk's START names, traces it and counts it in the faults_by_kind that
  // EnableMediaFaults was given; false if no chunk qualifies. One call in
  // kLostChunkOneIn first tries to lose a whole chunk instead (LoseChunk):
  // a CLOSED chunk of a table or WAL other than its file's first and last
  // (the only ones whose loss the format can prove), counted as
  // kLostChunkName.
  bool DamageAtCrash(sim::ChoiceTape* rng, std::string* path);
  static constexpr uint64_t kLostChunkOneIn = 8;
  static constexpr const char* kLostChunkName = "flash_lost_chunk";

  // Per-seed figures for the report: resets, maximum wear, bytes the engine
  // wrote, bytes the device programmed. Counts the instances abandoned or
  // shut down so far.
  void Describe(std::map<std::string, uint64_t>* observed) const;

  sim::SimFlashDevice* device() { return device_.get(); }

 private:
  class Mounted;
  void Accumulate(const FlashFsStats& stats);
  bool LoseChunkAtCrash(sim::ChoiceTape* rng, std::string* path);
  // The before_read hook (EnableMediaFaults): one read in one_in decays.
  void MaybeDecayOnRead(uint64_t one_in, uint32_t chunk, uint32_t first, uint32_t count);

  sim::DiskContext* const context_;
  FileSystem* const small_files_;
  FlashFsOptions fs_options_;
  std::unique_ptr<sim::SimFlashDevice> device_;
  std::unique_ptr<FlashFileSystem> instance_;
  std::vector<std::unique_ptr<FlashFileSystem>> stopped_;
  SyncedSizes synced_;  // these two are declared before mounted_, which points at them
  std::function<void(const std::string& path)> delete_sink_;
  std::unique_ptr<Mounted> mounted_;
  // What Describe reports, summed over the instances stopped or abandoned.
  FlashFsStats totals_;
  std::set<std::string> lost_at_abandon_;                      // see LastCrashLostPaths
  bool power_lost_ = false;                                    // since the last Abandon
  std::map<std::string, uint64_t>* faults_by_kind_ = nullptr;  // see EnableMediaFaults
  std::function<void(const std::string& path)> damaged_sink_;  // see EnableMediaFaults
  std::function<bool()> paused_;                               // see EnableMediaFaults
  std::function<void(const SyncedSizes::Loss&)> loss_sink_;
};

}  // namespace shale::scenario
