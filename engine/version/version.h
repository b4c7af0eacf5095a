// Version: one immutable snapshot of the LSM shape - which table files are
// in which level.
//
// Level 0 holds flushed memtables; its files may overlap and are kept
// newest first (descending file number: a higher number is newer). Levels
// 1..n-1 hold files sorted by smallest key whose key ranges do not overlap.
//
// Ownership and lifetime: a Version is created only by VersionSet and is
// reference counted. Whoever reads through a Version (a Get, an iterator, a
// Compaction) holds a Ref() and Unref()s it when done; the last Unref
// deletes it. REQUIRES: Ref()/Unref() are called with the DB mutex held.
// Thread safety: the file lists never change after the Version is built, so
// Get, AddIterators and the const queries may run concurrently WITHOUT the
// DB mutex, as long as the caller holds a reference. The one mutable part,
// the seek-compaction mark (ChargeSeek), is guarded by the DB mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "shale/iterator.h"
#include "shale/options.h"
#include "shale/status.h"
#include "version/version_edit.h"

namespace shale {

class TableCache;
class VersionSet;

class Version {
 public:
  Version(const Version&) = delete;
  Version& operator=(const Version&) = delete;

  // REQUIRES: DB mutex held.
  void Ref();
  // Deletes this when the count drops to zero. REQUIRES: DB mutex held.
  void Unref();

  // Looks key up in the table files: level 0 newest first, then each
  // deeper level by binary search; the first file with an entry for the user
  // key (at a sequence <= key's) decides. Returns true if it is decided:
  //   *s OK        - a value; *value holds it;
  //   *s NotFound  - a deletion;
  //   *s error     - a table could not be opened or read (Corruption/IOError).
  // Returns false with *s OK if no file has an entry for the key.
  // If seek is not null, it receives the first file the lookup consulted,
  // and its level, when the lookup then had to consult another one (no
  // file otherwise): a candidate for ChargeSeek. A file is consulted when
  // its key range holds the key, whether or not its filter then rules the
  // key out.
  struct SeekCharge {
    FileMetaData* file = nullptr;
    int level = -1;
  };
  bool Get(const ReadOptions& options, const LookupKey& key, std::string* value, Status* s,
           SeekCharge* seek = nullptr) const;

  // Charges one seek to seek.file (from Get; no file does nothing). When
  // the file has none left and no file is marked yet, marks it for a seek
  // compaction and returns true: the caller should wake the compaction
  // thread. REQUIRES: DB mutex held; seek.file is in this Version at
  // seek.level.
  bool ChargeSeek(const SeekCharge& seek);
  // The file marked by ChargeSeek and its level; nullptr if none.
  // REQUIRES: DB mutex held.
  FileMetaData* file_to_compact() const { return file_to_compact_; }
  int file_to_compact_level() const { return file_to_compact_level_; }

  // Appends iterators (internal keys, both directions) that together yield
  // this version's contents: one per level-0 file, and one concatenating
  // iterator per non-empty deeper level. REQUIRES: the caller holds a Ref
  // until every appended iterator is deleted.
  void AddIterators(const ReadOptions& options, std::vector<Iterator*>* iters) const;

  // Files in level whose user-key range overlaps [begin, end] (user keys of
  // the bounds; nullptr = unbounded). If a chosen file widens the range (it
  // starts before begin or ends after end), the search restarts with the
  // wider range, at every level: so all versions of a user key at a file
  // boundary are taken together. Output sorted as files(level) is.
  void GetOverlappingInputs(int level, const InternalKey* begin, const InternalKey* end,
                            std::vector<FileMetaData*>* inputs) const;

  // True iff some file in level overlaps the user-key range
  // [*smallest_user_key, *largest_user_key] (nullptr = unbounded).
  bool OverlapInLevel(int level, const Slice* smallest_user_key,
                      const Slice* largest_user_key) const;

  int NumLevels() const { return static_cast<int>(files_.size()); }
  int NumFiles(int level) const { return static_cast<int>(files_[level].size()); }
  uint64_t NumLevelBytes(int level) const;
  // REQUIRES: 0 <= level < NumLevels(). Sorted as the header says.
  const std::vector<FileMetaData*>& files(int level) const { return files_[level]; }

  // "files[ 4 2 0 0 0 0 0 ]"
  std::string LevelSummary() const;
  // Every file of every level, one per line.
  std::string DebugString() const;

 private:
  friend class VersionSet;
  friend class VersionBuilder;

  explicit Version(VersionSet* vset);
  ~Version();

  VersionSet* const vset_;
  Version* next_ = this;  // VersionSet's circular list of live versions
  Version* prev_ = this;
  int refs_ = 0;
  std::vector<std::vector<FileMetaData*>> files_;  // [level], each file Ref'd
  FileMetaData* file_to_compact_ = nullptr;        // guarded by the DB mutex
  int file_to_compact_level_ = -1;
};

// Index of the first file in files (sorted, non-overlapping) whose largest
// key is >= internal_key; files.size() if none.
size_t FindFile(const InternalKeyComparator& icmp, const std::vector<FileMetaData*>& files,
                const Slice& internal_key);

}  // namespace shale
