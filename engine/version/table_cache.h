// TableCache: open table readers (Table), keyed by file number, in an LRU
// cache bounded by max_open_files.
//
// A miss opens NNNNNN.sst through the Env's FileSystem
// (RandomAccessFileReader + Table::Open) and counts table_reader_opens; a hit
// counts table_cache_hits. Capacity: max_open_files - 10 readers (10 are left
// for the WAL, MANIFEST, LOCK, ...; at least 10), or unbounded when
// max_open_files is -1. Readers pinned by live iterators stay open even past
// capacity and close when unpinned and evicted.
//
// Ownership: owns the cache and every Table in it. REQUIRES: the TableCache
// outlives every iterator it returned, and env outlives the TableCache.
// Thread safety: every method is safe to call concurrently (the cache locks
// internally through the Env's runtime); two threads missing on the same
// file may both open it (one copy wins, the other is closed).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "shale/cache.h"
#include "shale/env.h"
#include "shale/iterator.h"
#include "shale/options.h"
#include "table/table.h"
#include "table/table_options.h"
#include "util/stats_counters.h"
#include "version/version_edit.h"

namespace shale {

class TableCache {
 public:
  // table_options.comparator must be non-null and outlive this. stats may be
  // nullptr. SSTs are opened with file_options.
  TableCache(std::string dbname, const TableOptions& table_options, int max_open_files, Env* env,
             StatsCounters* stats, const FileOptions& file_options = FileOptions());
  ~TableCache();
  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  // An iterator over the internal keys of file (by its number, size and
  // tail size; the FileMetaData need not outlive the call).
  // The table stays open (pinned) until the iterator is deleted. On error,
  // returns an error iterator (never nullptr). If tableptr is non-null it is
  // set to the Table (valid as long as the iterator lives), or nullptr on
  // error.
  Iterator* NewIterator(const ReadOptions& options, const FileMetaData& file,
                        Table** tableptr = nullptr);

  // Table::InternalGet on file: calls found(key, value) for the
  // first entry >= internal_key if it has the same user key. Returns open or
  // read errors.
  [[nodiscard]] Status Get(const ReadOptions& options, const FileMetaData& file,
                           const Slice& internal_key,
                           const std::function<void(const Slice& key, const Slice& value)>& found);

  // Drops file_number's reader (call after deleting the file). Iterators that
  // pin it keep working.
  void Evict(uint64_t file_number);

  // Readers the cache can hold before evicting.
  size_t capacity() const;

  // TEST ONLY (planted kBugTableGetReleasesTwice): a Get that finds nothing
  // releases its handle twice.
  void PlantReleaseTwiceOnMiss() { plant_release_twice_on_miss_ = true; }

 private:
  [[nodiscard]] Status FindTable(const FileMetaData& file, Cache::Handle** handle);

  const std::string dbname_;
  const TableOptions table_options_;
  Env* const env_;
  StatsCounters* const stats_;
  const FileOptions file_options_;
  std::shared_ptr<Cache> cache_;
  bool plant_release_twice_on_miss_ = false;
};

}  // namespace shale
