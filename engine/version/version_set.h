// VersionSet: the DB's current Version, the MANIFEST that makes it durable,
// the file-number and sequence counters, and leveled compaction picking.
//
// Durability protocol:
//   * Every change is a VersionEdit appended as one record to the open
//     MANIFEST and synced (LogAndApply) before the new Version is installed.
//   * The first LogAndApply after Recover (and the first after any MANIFEST
//     write failure) starts a NEW MANIFEST: a full snapshot record, then the
//     edit, synced, then CURRENT is switched to it (SetCurrentFile). A
//     damaged MANIFEST is therefore never appended to.
//   * Recover reads CURRENT and replays the MANIFEST it names. A damaged last
//     record (a crash during a write that was never acknowledged) is
//     ignored; damage anywhere else is Corruption.
//
// Obsolete files (for the DB's cleanup):
//   * a MANIFEST-N may be deleted iff N < ManifestFileNumber();
//   * a table file may be deleted iff it is not in AddLiveFiles() and not a
//     pending output of a running flush/compaction (the DB tracks those: a
//     file being installed by a LogAndApply in flight is not live yet);
//   * a WAL may be deleted iff its number < min(LogNumber(), PrevLogNumber()
//     if non-zero) and no memtable still needs it.
//   * After a FAILED LogAndApply the outcome is indeterminate: the MANIFEST
//     may durably hold the edit. The DB must then delete none of the files
//     the edit names (it should stop background work - RocksDB's
//     background error) until a later LogAndApply succeeds.
//
// Thread safety: REQUIRES the DB mutex (the `mu` passed to LogAndApply) for
// every method unless noted. LastSequence/SetLastSequence are atomic and may
// be called without it. Only one LogAndApply runs at a time (the DB
// serializes them; asserted).
// Ownership: owns every Version it created (they delete themselves on the
// last Unref) and the MANIFEST writer. Does not own the TableCache, the
// comparator, the Env or the stats. REQUIRES: every Version and Compaction
// was released before the VersionSet is destroyed.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "db/dbformat.h"
#include "shale/env.h"
#include "shale/options.h"
#include "shale/status.h"
#include "util/stats_counters.h"
#include "version/compaction.h"
#include "version/table_cache.h"
#include "version/version.h"
#include "version/version_edit.h"

namespace shale {

namespace log {
class Writer;
}

class VersionSet {
 public:
  // Reads from *options: num_levels, level0_file_num_compaction_trigger,
  // max_bytes_for_level_base, max_bytes_for_level_multiplier,
  // target_file_size_base, max_grandparent_overlap_factor. REQUIRES:
  // 2 <= num_levels <= kMaxNumLevels; options, table_cache, icmp and env
  // outlive the VersionSet; stats may be nullptr.
  VersionSet(std::string dbname, const Options* options, TableCache* table_cache,
             const InternalKeyComparator* icmp, Env* env, StatsCounters* stats);
  ~VersionSet();
  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Applies *edit to current() and installs the result, durably.
  // Fills in edit's log_number (if unset: LogNumber()), prev_log_number,
  // next_file_number and last_sequence (LastAllocatedSequence()); refuses
  // with Corruption, writing nothing, an edit adding a table with a
  // sequence past that. Writes the edit (after a full
  // snapshot, if a new MANIFEST is needed) and syncs the MANIFEST with mu
  // RELEASED, then re-acquires mu and installs the new Version.
  // On failure: nothing is installed, the MANIFEST writer is dropped (the
  // next call starts a new MANIFEST), and the error is returned.
  // REQUIRES: mu held on entry (held again on return); no other LogAndApply
  // running; every file the edit adds has a number from NewFileNumber().
  [[nodiscard]] Status LogAndApply(VersionEdit* edit, Mutex* mu);

  // Loads the state CURRENT names. Corruption if CURRENT is empty, does not
  // end in "\n", names no MANIFEST, or the MANIFEST is damaged (except a
  // torn last record), lacks log_number /
  // next_file_number / last_sequence, or describes an impossible shape
  // (deleting an absent file, overlapping files in level >= 1, a level >=
  // num_levels); InvalidArgument if it records a different comparator
  // name. Sets *save_manifest = true: the next LogAndApply always
  // starts a new MANIFEST. REQUIRES: called once, before any LogAndApply.
  [[nodiscard]] Status Recover(bool* save_manifest);

  Version* current() const { return current_; }

  uint64_t ManifestFileNumber() const { return manifest_file_number_; }
  uint64_t NewFileNumber() { return next_file_number_++; }
  // Gives back a number from NewFileNumber() that was never used, if it was
  // the last one handed out.
  void ReuseFileNumber(uint64_t number) {
    if (next_file_number_ == number + 1) next_file_number_ = number;
  }
  // Makes sure NewFileNumber() never returns number (or anything below it).
  void MarkFileNumberUsed(uint64_t number) {
    if (next_file_number_ <= number) next_file_number_ = number + 1;
  }
  uint64_t NextFileNumber() const { return next_file_number_; }

  // May be called without the DB mutex (acquire/release atomics).
  SequenceNumber LastSequence() const { return last_sequence_.load(std::memory_order_acquire); }
  // REQUIRES: s >= LastSequence().
  void SetLastSequence(SequenceNumber s);
  // The highest sequence handed to a write, published or not (at least
  // LastSequence()). With two write queues a memtable holds a write's
  // entries before its commit publishes them, so a flush can put sequences
  // past LastSequence() in a table: the MANIFEST records this one, and a
  // recovery numbers new writes past every sequence in its tables.
  SequenceNumber LastAllocatedSequence() const {
    return std::max(last_allocated_sequence_, LastSequence());
  }
  // REQUIRES: s >= LastAllocatedSequence().
  void SetLastAllocatedSequence(SequenceNumber s);

  // WALs below LogNumber() are obsolete (their data is in table files).
  uint64_t LogNumber() const { return log_number_; }
  // The WAL being compacted when the MANIFEST was written, or 0.
  uint64_t PrevLogNumber() const { return prev_log_number_; }
  // Transactions only (0: never recorded): WALs below it are obsolete even
  // if they held prepared sections; older WAL files are leftovers whose
  // deletion a crash undid.
  uint64_t MinLogToKeep() const { return min_log_to_keep_; }

  // Inserts the number of every table file in every live Version (current
  // and any still referenced by a Get, iterator or Compaction).
  void AddLiveFiles(std::set<uint64_t>* live) const;

  // ---- Compaction picking (leveled). Scores are computed on current():
  //   L0:            files not being compacted / level0_file_num_compaction_trigger
  //   L1..L(n-2):    bytes not being compacted / MaxBytesForLevel(level)
  // and, when no size-triggered compaction can be picked, a seek compaction
  // of the file current() marked (Version::ChargeSeek) if it is free and
  // above the last level. True if some level scores >= 1 or a seek
  // compaction is due. PickCompaction may still return nullptr when every
  // candidate conflicts with a running compaction; the DB should wait for a
  // compaction or flush to finish before asking again.
  bool NeedsCompaction() const;
  // The highest-scoring level's compaction (score >= 1) whose files are all
  // free, with inputs marked being_compacted; nullptr if none. Level 0
  // takes every L0 file overlapping the oldest free one (none if an L0
  // compaction is running); level L >= 1 takes the first free file after
  // the level's compact pointer (round robin). When no such compaction can
  // be picked, the seek-marked file (with every file of its level
  // overlapping it) is taken, and counted in stats seek_compactions. All
  // then add the overlapping files of level+1 (all must be free) and the
  // grandparents. The caller owns the result.
  Compaction* PickCompaction();
  // A manual compaction of the files in level overlapping [begin, end]
  // (nullptr = unbounded), into level+1 (or in place for the last level).
  // Returns nullptr with *busy=false if no file overlaps, or nullptr with
  // *busy=true if a needed file is being compacted (retry after that
  // compaction is released). No size limit is applied.
  Compaction* CompactRange(int level, const InternalKey* begin, const InternalKey* end, bool* busy);
  // A merging iterator over all inputs of c (level 0 inputs one by one,
  // deeper levels concatenated), blocks read with fill_cache=false.
  // May be called without the DB mutex. The caller owns it and deletes it
  // before c.
  Iterator* MakeInputIterator(Compaction* c);

  // Byte budget of level (level >= 1): max_bytes_for_level_base *
  // max_bytes_for_level_multiplier^(level-1).
  uint64_t MaxBytesForLevel(int level) const;
  // The approximate offset of key in the DB as seen by v (for size estimates).
  // May be called without the DB mutex while v is Ref'd.
  uint64_t ApproximateOffsetOf(Version* v, const InternalKey& key);

  int NumLevels() const { return num_levels_; }
  int NumLevelFiles(int level) const { return current_->NumFiles(level); }
  std::string LevelSummary() const { return current_->LevelSummary(); }

  const InternalKeyComparator* icmp() const { return icmp_; }
  TableCache* table_cache() const { return table_cache_; }
  const Options* options() const { return options_; }

 private:
  friend class Compaction;
  friend class Version;

  void AppendVersion(Version* v);
  void WriteSnapshot(std::string* record) const;
  [[nodiscard]] Status WriteManifest(const std::string& snapshot, const std::string& record,
                                     uint64_t new_manifest_number);
  double LevelScore(int level) const;
  bool AnyBeingCompacted(const std::vector<FileMetaData*>& files) const;
  // True if a running compaction may write into [smallest, largest] (user
  // keys) of output_level.
  bool OutputRangeBusy(int output_level, const InternalKey& smallest,
                       const InternalKey& largest) const;
  // Marks c's inputs being_compacted and reserves its output range.
  void MarkRunning(Compaction* c);
  void ForgetRunning(const Compaction* c);
  bool PickLevelInputs(int level, Compaction* c);
  // The level of current()'s seek-marked file if a seek compaction of it
  // may be picked; -1 if not.
  int SeekCompactionLevel() const;
  // c's inputs: the files of level overlapping f (widened transitively),
  // then SetupOtherInputs. False if any is being compacted, or, for level
  // 0, while any L0 file is.
  bool PickInputsAround(int level, const FileMetaData* f, Compaction* c);
  bool SetupOtherInputs(Compaction* c);
  Iterator* NewLevelIterator(const ReadOptions& options, const std::vector<FileMetaData*>* files);

  const std::string dbname_;
  const Options* const options_;
  TableCache* const table_cache_;
  const InternalKeyComparator* const icmp_;
  Env* const env_;
  StatsCounters* const stats_;
  const int num_levels_;

  uint64_t next_file_number_ = 2;
  uint64_t manifest_file_number_ = 0;
  std::atomic<SequenceNumber> last_sequence_{0};
  SequenceNumber last_allocated_sequence_ = 0;  // see LastAllocatedSequence
  uint64_t log_number_ = 0;
  uint64_t prev_log_number_ = 0;
  uint64_t min_log_to_keep_ = 0;

  std::unique_ptr<log::Writer> descriptor_log_;  // the open MANIFEST, if any
  bool in_log_and_apply_ = false;
  Version dummy_versions_;  // head of the circular list of live versions
  Version* current_ = nullptr;
  std::string compact_pointer_[kMaxNumLevels];  // per level: where to resume
  // Picked compactions not yet released (at most one per picker: the
  // compaction thread and each manual CompactRange).
  std::vector<const Compaction*> running_compactions_;
};

// Initializes an empty DB in dbname: writes MANIFEST-000001 holding the
// comparator name, log_number 0, next_file_number 2 and last_sequence 0,
// syncs it, and points CURRENT at it (SetCurrentFile). REQUIRES: dbname
// exists and has no CURRENT. If writing the MANIFEST fails it is deleted
// (best effort); if only SetCurrentFile fails, it is kept (CURRENT may
// already name it).
[[nodiscard]] Status WriteNewDBManifest(FileSystem* fs, const std::string& dbname,
                                        const Comparator* user_comparator, StatsCounters* stats);

}  // namespace shale
