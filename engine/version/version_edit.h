// VersionEdit: one change to the set of table files (one MANIFEST record),
// and FileMetaData: what the engine knows about one table file.
//
// A MANIFEST is a log (wal/log_format.h) of VersionEdit records. The first
// record of every MANIFEST is a full snapshot (comparator, all files,
// compact pointers, counters); each later record is a delta.
//
// Record encoding (all integers varint unless noted): a sequence of
// (varint32 tag, payload) fields, in any order, each at most once except
// 5/6/7/10 which repeat:
//   1  comparator       length-prefixed bytes (the user comparator's Name())
//   2  log_number       varint64   WALs numbered below this are obsolete
//   3  next_file_number varint64
//   4  last_sequence    varint64
//   5  compact_pointer  varint32 level, length-prefixed internal key
//   6  deleted_file     varint32 level, varint64 file number
//   7  new_file         varint32 level, varint64 number, varint64 file_size,
//                       length-prefixed smallest internal key,
//                       length-prefixed largest internal key,
//                       varint64 smallest_seqno, varint64 largest_seqno
//   8  prev_log_number  varint64
//   9  min_log_to_keep  varint64   (transactions only) WALs below this are
//                                  obsolete even if they hold prepared sections
//  10  new_file_tail    as new_file, then varint64 tail_size_bytes (written
//                       instead of 7 when the tail size is known)
// DecodeFrom returns Corruption for an unknown tag, a truncated field, a
// level >= kMaxNumLevels, an internal key shorter than 8 bytes,
// smallest_seqno > largest_seqno, or a new_file_tail whose tail size is 0
// or larger than the file (never written: 7 stands for an unknown tail).
// A MANIFEST written with tag 10 does not open in a build that predates
// it (an unknown tag); one with only tag 7 opens in every build. (Which levels a DB actually has is
// checked by VersionSet::Recover.)
//
// Thread safety: a value type; one thread at a time.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "shale/status.h"

namespace shale {

// No DB has more levels than this (Options::num_levels must be <= it).
constexpr int kMaxNumLevels = 16;

// One table file. Shared by every Version that contains it (reference
// counted); number, file_size, smallest, largest and the seqnos never change
// once it is in a Version.
// Thread safety: refs and being_compacted are guarded by the DB mutex.
struct FileMetaData {
  uint64_t number = 0;
  uint64_t file_size = 0;
  InternalKey smallest;  // smallest internal key in the file
  InternalKey largest;   // largest internal key in the file
  SequenceNumber smallest_seqno = 0;
  SequenceNumber largest_seqno = 0;
  // The bytes from the table's first meta block (filter, else index) to
  // its end, footer included: what Table::Open reads in one go. 0: unknown
  // (a MANIFEST written before it was recorded); the reader then reads
  // each meta block on its own.
  uint64_t tail_size_bytes = 0;

  int refs = 0;                  // Versions (and builders) that hold it
  bool being_compacted = false;  // an input of a picked, unreleased Compaction
  // Gets that may still consult this file first and then have to go on to
  // another file before it is marked for a seek compaction (see
  // Version::ChargeSeek). Set when a Version first takes the file; not in
  // the MANIFEST. Guarded by the DB mutex.
  int64_t allowed_seeks = 0;
};

// The allowed_seeks a file starts with: one seek per 16 KiB of file, at
// least 100. A seek costs about as much as compacting 16 KiB (LevelDB's
// estimate: one 10 ms seek against reading, writing and merging 40 KiB at
// 100 MB/s), so a file read this often in vain is cheaper compacted.
inline int64_t InitialAllowedSeeks(uint64_t file_size_bytes) {
  constexpr uint64_t kBytesPerSeek = 16 * 1024;
  constexpr int64_t kMinSeeks = 100;
  const auto by_size = static_cast<int64_t>(file_size_bytes / kBytesPerSeek);
  return by_size > kMinSeeks ? by_size : kMinSeeks;
}

class VersionEdit {
 public:
  VersionEdit() = default;

  void Clear() { *this = VersionEdit(); }

  void SetComparatorName(const Slice& name) {
    has_comparator_ = true;
    comparator_ = name.ToString();
  }
  void SetLogNumber(uint64_t num) {
    has_log_number_ = true;
    log_number_ = num;
  }
  void SetMinLogToKeep(uint64_t num) {
    has_min_log_to_keep_ = true;
    min_log_to_keep_ = num;
  }
  void SetPrevLogNumber(uint64_t num) {
    has_prev_log_number_ = true;
    prev_log_number_ = num;
  }
  void SetNextFile(uint64_t num) {
    has_next_file_number_ = true;
    next_file_number_ = num;
  }
  void SetLastSequence(SequenceNumber seq) {
    has_last_sequence_ = true;
    last_sequence_ = seq;
  }
  void SetCompactPointer(int level, const InternalKey& key) {
    compact_pointers_.emplace_back(level, key);
  }
  // Adds a file to level. file.refs and file.being_compacted are ignored.
  // REQUIRES: smallest and largest are the file's key bounds; not yet
  // encoded.
  void AddFile(int level, const FileMetaData& file) { new_files_.emplace_back(level, file); }
  void AddFile(int level, uint64_t number, uint64_t file_size, const InternalKey& smallest,
               const InternalKey& largest, SequenceNumber smallest_seqno,
               SequenceNumber largest_seqno);
  // Removes file number from level.
  void RemoveFile(int level, uint64_t number) { deleted_files_.insert({level, number}); }

  // Appends the encoding above to *dst.
  void EncodeTo(std::string* dst) const;
  // Replaces *this with the edit encoded in src.
  [[nodiscard]] Status DecodeFrom(const Slice& src);

  std::string DebugString() const;

  // Accessors (has_X() says whether the field is present).
  bool has_comparator() const { return has_comparator_; }
  const std::string& comparator() const { return comparator_; }
  bool has_log_number() const { return has_log_number_; }
  uint64_t log_number() const { return log_number_; }
  bool has_min_log_to_keep() const { return has_min_log_to_keep_; }
  uint64_t min_log_to_keep() const { return min_log_to_keep_; }
  bool has_prev_log_number() const { return has_prev_log_number_; }
  uint64_t prev_log_number() const { return prev_log_number_; }
  bool has_next_file_number() const { return has_next_file_number_; }
  uint64_t next_file_number() const { return next_file_number_; }
  bool has_last_sequence() const { return has_last_sequence_; }
  SequenceNumber last_sequence() const { return last_sequence_; }

  using DeletedFileSet = std::set<std::pair<int, uint64_t>>;  // (level, number), sorted
  const DeletedFileSet& deleted_files() const { return deleted_files_; }
  const std::vector<std::pair<int, FileMetaData>>& new_files() const { return new_files_; }
  const std::vector<std::pair<int, InternalKey>>& compact_pointers() const {
    return compact_pointers_;
  }

 private:
  std::string comparator_;
  uint64_t log_number_ = 0;
  uint64_t prev_log_number_ = 0;
  uint64_t min_log_to_keep_ = 0;
  uint64_t next_file_number_ = 0;
  SequenceNumber last_sequence_ = 0;
  bool has_comparator_ = false;
  bool has_log_number_ = false;
  bool has_prev_log_number_ = false;
  bool has_min_log_to_keep_ = false;
  bool has_next_file_number_ = false;
  bool has_last_sequence_ = false;

  std::vector<std::pair<int, InternalKey>> compact_pointers_;
  DeletedFileSet deleted_files_;
  std::vector<std::pair<int, FileMetaData>> new_files_;
};

}  // namespace shale
