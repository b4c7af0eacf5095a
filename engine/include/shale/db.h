// DB: a persistent ordered map from byte-string keys to byte-string values,
// built as a log-structured merge tree (WAL, memtables, leveled SSTs).
//
// Thread safety: a DB is safe for concurrent use by many threads without
// external synchronization. Snapshots and iterators are owned by the caller
// and must be released/deleted before the DB is.
// Durability: a write with WriteOptions::sync survives power loss once it
// returns OK. A write with sync=false and the WAL on survives a process crash
// once it returns OK, and power loss once a later SyncWAL() or Flush()
// returns OK. A write with disable_wal survives only once a Flush() covering
// it returns OK.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shale/iterator.h"
#include "shale/options.h"
#include "shale/slice.h"
#include "shale/stats.h"
#include "shale/status.h"
#include "shale/write_batch.h"

namespace shale {

// An immutable view of the DB as of one sequence number.
class Snapshot {
 public:
  virtual uint64_t GetSequenceNumber() const = 0;

 protected:
  virtual ~Snapshot() = default;
};

class DB {
 public:
  // Opens (recovering if needed) the DB at path. On success *dbptr owns the
  // DB; delete it (or call Close then delete) to close.
  [[nodiscard]] static Status Open(const Options& options, const std::string& path,
                                   std::unique_ptr<DB>* dbptr);

  DB() = default;
  DB(const DB&) = delete;
  DB& operator=(const DB&) = delete;
  // Closes if Close was not called (errors are then dropped).
  virtual ~DB() = default;

  // Waits for background work to stop and releases files. Further calls
  // other than the destructor are errors.
  [[nodiscard]] virtual Status Close() = 0;

  // Put and Delete are one-record batches given to Write (as RocksDB's
  // defaults); implementations override Write, and these only if they must.
  [[nodiscard]] virtual Status Put(const WriteOptions& options, const Slice& key,
                                   const Slice& value);
  [[nodiscard]] virtual Status Delete(const WriteOptions& options, const Slice& key);
  // Applies every update in batch atomically. batch may be nullptr-free only.
  [[nodiscard]] virtual Status Write(const WriteOptions& options, WriteBatch* batch) = 0;

  // OK with *value set, NotFound, or an error.
  [[nodiscard]] virtual Status Get(const ReadOptions& options, const Slice& key,
                                   std::string* value) = 0;
  // The caller owns the result. It sees the DB as of options.snapshot (or as
  // of its creation) and pins the files it needs until deleted.
  virtual Iterator* NewIterator(const ReadOptions& options) = 0;

  // Never nullptr. Release with ReleaseSnapshot.
  virtual const Snapshot* GetSnapshot() = 0;
  virtual void ReleaseSnapshot(const Snapshot* snapshot) = 0;

  // Flushes the active memtable to an L0 SST.
  [[nodiscard]] virtual Status Flush(const FlushOptions& options) = 0;
  // Compacts the key range [*begin, *end] (nullptr = open end) down through
  // all levels.
  [[nodiscard]] virtual Status CompactRange(const CompactRangeOptions& options, const Slice* begin,
                                            const Slice* end) = 0;
  // fdatasyncs the current WAL: all acknowledged WAL writes become durable.
  [[nodiscard]] virtual Status SyncWAL() = 0;
  // Writes the log records the engine holds in its own memory to the log
  // file, where a process crash cannot take them; then, if sync, SyncWAL().
  // An engine that writes each record to the file as it logs it (this
  // one) has nothing to write: FlushWAL(false) is OK at once.
  [[nodiscard]] virtual Status FlushWAL(bool sync) { return sync ? SyncWAL() : Status::OK(); }

  // Named properties: "shale.stats", "shale.num-files-at-level<N>",
  // "shale.levelstats", "shale.sstables", "shale.num-immutable-mem-table",
  // "shale.cur-size-active-mem-table", "shale.compaction-pending" ("1" while
  // a memtable awaits flush, a compaction runs or one is wanted; else "0".
  // A background error stops new work: a memtable left unflushed then
  // reads "1" for good, and no compaction is wanted after it).
  // False if the name is unknown.
  virtual bool GetProperty(const Slice& property, std::string* value) = 0;
  // A copy of the engine's counters.
  virtual DBStats GetStats() = 0;

  // The sequence number of the last visible write.
  virtual uint64_t GetLatestSequenceNumber() const = 0;
};

// Removes every file of the DB at path (it must not be open).
[[nodiscard]] Status DestroyDB(const std::string& path, const Options& options);

}  // namespace shale
