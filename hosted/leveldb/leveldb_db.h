// LevelDbDb: LevelDB 1.23 (Debian's libleveldb1d, linked as shipped) behind
// Shale's DB interface, so that the scenarios' workload and oracle drive it
// as they drive Shale's engine. What LevelDB offers, and what it does not:
//   * Put, Delete, Write (a WriteBatch, atomically; WriteOptions::sync),
//     Get, iterators in both directions (SeekForPrev is Seek then a step
//     back, as LevelDB has none), snapshots, CompactRange, named
//     properties ("shale.num-files-at-level<N>" and "shale.stats" map to
//     LevelDB's "leveldb." ones);
//   * never: Flush and SyncWAL (NotSupported; LevelDB has neither),
//     WriteOptions::disable_wal (NotSupported: LevelDB always logs),
//     transactions, engine counters (GetStats is all zero).
//
// Sequence numbers, which LevelDB's API never shows: a write's comes from
// LevelDB's own log record (LevelDbLogTap), stamped on the caller's
// WriteBatch as Shale's engine stamps it; a snapshot's is read from the
// snapshot object LevelDB returns (its SnapshotImpl keeps it at a fixed
// offset in 1.23; CheckLevelDbLayout verifies that once per process, and
// Open refuses to run on a library where it does not hold).
//
// After Close, every call returns an error (GetProperty false), as Shale's
// DB does; GetSnapshot REQUIRES an open DB.
// Ownership: the DB owns its LevelDbEnv, block cache and filter policy.
// Abandoning it (a simulated crash) leaks them with the DB, as a killed
// process does. Thread safety: as shale::DB.
#pragma once

#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "hosted/leveldb/leveldb_env.h"
#include "hosted/leveldb/leveldb_log_tap.h"
#include "shale/db.h"
#include "shale/env.h"

namespace shale::hosted {

// The options a LevelDB user sets that change what is written, synced,
// recovered or read (include/leveldb/options.h of 1.23), with its defaults.
struct LevelDbOptions {
  size_t write_buffer_size = 4 << 20;
  int max_open_files = 1000;
  size_t block_cache_bytes = 0;  // 0: LevelDB's own 8 MiB cache
  size_t block_size = 4096;
  int block_restart_interval = 16;
  size_t max_file_size = 2 << 20;
  bool snappy_compression = true;  // kSnappyCompression, else kNoCompression
  int bloom_bits_per_key = 0;      // 0: no filter policy
  bool paranoid_checks = false;
  bool reuse_logs = false;
  uint64_t planted_bugs = 0;  // hosting-layer shale::PlantedBug bits (checker self-tests)
  // Each line LevelDB writes to its info log (LOG), also given here when
  // set: the trace's view of what LevelDB did (compactions, flushes).
  std::function<void(const std::string& line)> info_log_trace;
};

// The loaded library's version, as "1.23" (leveldb::kMajorVersion is a
// header constant; this reads the shared object's soname and build).
std::string LevelDbVersion();

// Readies this process to host LevelDB: the interposer is in effect,
// libleveldb's and libstdc++'s code is registered as hosted, and the loaded
// library keeps a snapshot's sequence where LevelDbDb reads it (checked on
// a DB in memory). The work is done once; every later call returns the
// first one's answer. REQUIRES: called outside any simulation (its check
// runs LevelDB on the calling thread, with the C library's locks).
[[nodiscard]] Status PrepareLevelDbHosting();

class LevelDbDb final : public DB {
 public:
  // Opens (recovering if needed) LevelDB at path on env's file system,
  // creating it if missing. NotSupported unless PrepareLevelDbHosting()
  // succeeded. REQUIRES: called from a task of a simulation with
  // os_thread_tasks.
  [[nodiscard]] static Status Open(const LevelDbOptions& options, Env* env, const std::string& path,
                                   std::unique_ptr<DB>* db);
  ~LevelDbDb() override;

  [[nodiscard]] Status Close() override;
  [[nodiscard]] Status Write(const WriteOptions& options, WriteBatch* batch) override;
  [[nodiscard]] Status Get(const ReadOptions& options, const Slice& key,
                           std::string* value) override;
  Iterator* NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  [[nodiscard]] Status Flush(const FlushOptions& options) override;
  [[nodiscard]] Status CompactRange(const CompactRangeOptions& options, const Slice* begin,
                                    const Slice* end) override;
  [[nodiscard]] Status SyncWAL() override;
  bool GetProperty(const Slice& property, std::string* value) override;
  DBStats GetStats() override;
  uint64_t GetLatestSequenceNumber() const override;

  // Acknowledged writes whose records the log did not hold (each returned
  // Corruption instead of OK): LevelDB acknowledged a write it never
  // logged. Zero in a correct run.
  uint64_t unlogged_acks() const { return unlogged_acks_; }
  // The log tap's counters (leveldb_log_tap.h): records it could not tile,
  // and writes placed by guess among identical batches in flight.
  const LevelDbLogTap& log_tap() const { return tap_; }

 private:
  LevelDbDb() = default;
  leveldb::ReadOptions ToLevelDb(const ReadOptions& options) const;

  std::unique_ptr<LevelDbEnv> env_;
  LevelDbLogTap tap_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::DB> db_;
  uint64_t unlogged_acks_ = 0;
};

// LevelDB's status as Shale's: the same code, the message as LevelDB
// renders it (file names included, so a damaged file stays named).
Status FromLevelDb(const leveldb::Status& status);

}  // namespace shale::hosted
