// Compaction: one picked compaction - input files from level() and
// output_level(), the grandparent files that bound output sizes, and the
// edit that will record the result.
//
// A compaction is created by VersionSet::PickCompaction / CompactRange with
// every input file marked being_compacted, so concurrent pickers (the
// compaction thread, a manual CompactRange) never take the same file.
//
// Lifetime: the owner (the DB) runs it, calls ReleaseInputs() once - after
// the result is installed with LogAndApply or after it failed - and then
// deletes it.
// REQUIRES: construction, ReleaseInputs() and destruction with the DB mutex
// held (they touch being_compacted flags and the input Version's refcount).
// Thread safety: the const queries and ShouldStopBefore may run without the
// DB mutex (the input files cannot change); one thread at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "db/dbformat.h"
#include "version/version_edit.h"

namespace shale {

class Version;
class VersionSet;

class Compaction {
 public:
  ~Compaction();
  Compaction(const Compaction&) = delete;
  Compaction& operator=(const Compaction&) = delete;

  // The level being compacted: inputs(0) come from it.
  int level() const { return level_; }
  // Where outputs go: level()+1, or level() itself for the last level
  // (a manual compaction of the bottommost level rewrites it in place).
  int output_level() const { return output_level_; }

  // which: 0 = level(), 1 = output_level() (empty if output_level()==level()).
  int num_input_files(int which) const { return static_cast<int>(inputs_[which].size()); }
  FileMetaData* input(int which, int i) const { return inputs_[which][i]; }
  const std::vector<FileMetaData*>& inputs(int which) const { return inputs_[which]; }
  uint64_t TotalInputBytes() const;

  // The edit that records the result. Holds the compact-pointer update;
  // the DB adds AddInputDeletions and its output files.
  VersionEdit* edit() { return &edit_; }
  // The version the inputs were picked from (Ref'd by the compaction).
  Version* input_version() const { return input_version_; }
  bool is_manual() const { return is_manual_; }

  // Outputs should be cut at this size.
  uint64_t MaxOutputFileSize() const { return max_output_file_size_bytes_; }

  // True if the single input can simply be moved to output_level() by an
  // edit (no merging): one input file, nothing overlapping in
  // output_level(), and grandparent overlap within the limit.
  bool IsTrivialMove() const;

  // Adds a deletion of every input file to *edit.
  void AddInputDeletions(VersionEdit* edit) const;

  // True if no file in any level deeper than output_level() (in the input
  // version) could hold user_key: a tombstone for it that no snapshot needs
  // may be dropped.
  bool IsBaseLevelForKey(const Slice& user_key) const;

  // True if no file in any level deeper than output_level() (in the input
  // version) overlaps the outputs' key range: the outputs are the bottom of
  // their range (RocksDB's bottommost level, which bottommost_compression
  // applies to). Computed once, when the picker sets the output range.
  bool IsBottommostLevel() const { return bottommost_level_; }

  // Call with each output key in order; true if the current output file
  // should be finished BEFORE internal_key because it already overlaps too
  // many grandparent bytes (> max_grandparent_overlap_factor *
  // target_file_size_base). Never true between two entries with the same
  // user key, so a user key is never split across output files.
  bool ShouldStopBefore(const Slice& internal_key);

  // Clears being_compacted on every input and frees the output range for
  // other compactions. Idempotent. REQUIRES: DB mutex.
  void ReleaseInputs();

 private:
  friend class VersionSet;
  Compaction(VersionSet* vset, Version* input_version, int level, int output_level, bool is_manual);

  VersionSet* const vset_;
  Version* const input_version_;
  const int level_;
  const int output_level_;
  const bool is_manual_;
  uint64_t max_output_file_size_bytes_;
  uint64_t max_grandparent_overlap_bytes_;
  VersionEdit edit_;
  std::vector<FileMetaData*> inputs_[2];
  std::vector<FileMetaData*> grandparents_;  // files in output_level()+1 overlapping inputs
  // The key range the outputs may cover in output_level(): from the
  // smallest to the largest key of all inputs. No other running compaction
  // may write into it (VersionSet::OutputRangeBusy).
  InternalKey output_smallest_, output_largest_;
  bool bottommost_level_ = false;  // IsBottommostLevel()
  // The scan behind IsBottommostLevel: the deeper levels' files against the
  // output range. REQUIRES: output_smallest_ and output_largest_ set.
  bool ComputeBottommostLevel() const;
  bool released_ = false;

  // ShouldStopBefore state.
  size_t grandparent_index_ = 0;
  bool seen_key_ = false;
  uint64_t overlapped_bytes_ = 0;
  std::string last_user_key_;
};

}  // namespace shale
