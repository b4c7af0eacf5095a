// KvStore: the narrow key-value interface `shale bench` drives, so one
// workload runs unchanged against Shale, LevelDB and RocksDB.
//
// Each adapter maps KvOptions onto its engine's own options so that every
// engine runs with the same settings: the same block codec, write buffer
// and block cache sizes, a 10 bits/key bloom filter, all table readers kept
// open, the WAL/sync mode and (where the engine has them) the write-path
// modes and the TransactionDB the flags ask for.
//
// Thread safety: after Open returns OK, Put/Get/Write/NewCursor may be called
// from many threads at once (every engine here is thread-safe). Open, Close
// and Destroy must not race with anything.
// Ownership: a KvCursor must be deleted before its store is closed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/diff/diff_engine.h"
#include "shale/env.h"
#include "shale/options.h"
#include "shale/slice.h"
#include "shale/status.h"

namespace shale::bench {

struct KvOptions {
  uint64_t write_buffer_size_bytes = 64ull << 20;
  uint64_t cache_size_bytes = 64ull << 20;
  int bloom_bits_per_key = 10;  // 0: no bloom filter
  uint64_t block_size_bytes = 4096;
  // Block codec. LevelDB has only Snappy: it runs Snappy for LZ4 and ZSTD
  // (its Notes say so).
  CompressionType compression = kNoCompression;
  // Table readers kept open (-1: all; LevelDB, which has no such setting,
  // keeps its largest, 50,000).
  int max_open_files = -1;
  // Compaction output file size (LevelDB: max_file_size; its default is
  // 2 MiB, set explicitly so every engine gets the same).
  uint64_t target_file_size_base_bytes = 64ull << 20;
  bool sync = false;
  bool disable_wal = false;
  bool mmap_read = false;   // LevelDB always maps and ignores it
  bool mmap_write = false;  // the WAL through mmap; LevelDB ignores it
  // Write path, with RocksDB's meaning (Shale and RocksDB; LevelDB has no
  // such options and ignores them).
  bool allow_concurrent_memtable_write = true;
  bool enable_pipelined_write = false;
  bool unordered_write = false;
  bool two_write_queues = false;
  bool memtable_huge_pages = true;          // Shale only (Options::memtable_huge_pages)
  bool seek_compaction = true;              // Shale only (!Options::disable_seek_compaction)
  double memtable_bloom_size_ratio = 0.02;  // Shale, RocksDB: memtable_prefix_bloom_size_ratio
  bool memtable_whole_key_filtering = true;
  // Open a TransactionDB (WritePrepared policy) and make every Put/Write
  // through it; skip_concurrency_control takes no key locks.
  bool transaction_db = false;
  bool txn_skip_concurrency_control = false;
  // Shale only: the Env the DB runs on (files, clock, threads); nullptr
  // for the real backend. REQUIRES: it outlives the open store.
  Env* env = nullptr;
};

struct KvPair {
  Slice key;
  Slice value;
};

// An ordered forward cursor (the only scan the workloads need).
class KvCursor {
 public:
  virtual ~KvCursor() = default;
  virtual void SeekToFirst() = 0;
  virtual bool Valid() const = 0;
  // REQUIRES: Valid()
  virtual void Next() = 0;
  // REQUIRES: Valid(). Valid until the next move.
  virtual Slice key() const = 0;
  virtual Slice value() const = 0;
  [[nodiscard]] virtual Status status() const = 0;
};

class KvStore {
 public:
  virtual ~KvStore() = default;

  // Display name ("Shale", "LevelDB", "RocksDB").
  virtual std::string_view name() const = 0;
  // One line of caveats about this engine's build or option mapping
  // (empty if none); printed under the benchmark header.
  virtual std::string Notes(const KvOptions& options) const = 0;

  // Removes every file of the DB at path. REQUIRES: not open.
  [[nodiscard]] virtual Status Destroy(const std::string& path) = 0;
  // Creates the DB if missing. REQUIRES: not open.
  [[nodiscard]] virtual Status Open(const std::string& path, const KvOptions& options) = 0;
  [[nodiscard]] virtual Status Close() = 0;

  [[nodiscard]] virtual Status Put(const Slice& key, const Slice& value) = 0;
  // Applies all pairs atomically (one engine write batch).
  [[nodiscard]] virtual Status Write(std::span<const KvPair> pairs) = 0;
  // OK with *value set, NotFound, or an error.
  [[nodiscard]] virtual Status Get(const Slice& key, std::string* value) = 0;
  virtual std::unique_ptr<KvCursor> NewCursor() = 0;
  // Compacts the whole key range down through every level (db_bench's
  // "compact"), waiting until it is done.
  [[nodiscard]] virtual Status CompactAll() = 0;
  // The engine's own statistics text ("shale.stats", "rocksdb.stats", ...).
  virtual std::string StatsText() = 0;
};

// The engine names `--engine` accepts, in comparison-table order.
std::vector<std::string> KnownEngineNames();
// True iff this binary was built with SHALE_BENCH_COMPARE=ON.
bool CompareEnginesBuilt();
// Makes the adapter for name ("shale", "leveldb", "rocksdb"). NotSupported
// (one line, naming the CMake option) if the adapter is not built in;
// InvalidArgument if the name is unknown.
[[nodiscard]] Status NewKvStore(std::string_view name, std::unique_ptr<KvStore>* store);

// The adapters. The comparison ones exist only with SHALE_BENCH_COMPARE.
std::unique_ptr<KvStore> NewShaleKvStore();
std::unique_ptr<KvStore> NewLevelDbKvStore();
std::unique_ptr<KvStore> NewRocksDbKvStore();

// The RocksDB side of `shale diff --against rocksdb`
// (scenarios/diff/diff_engine.h), or null when the comparison engines are
// not built in.
scenario::DiffEngineFactory RocksDbDiffEngineFactory();
// Defined only with SHALE_BENCH_COMPARE (bench/compare/).
std::unique_ptr<scenario::DiffEngine> NewRocksDbDiffEngine(const std::string& path);

}  // namespace shale::bench
