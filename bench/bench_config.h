// BenchConfig: everything `shale bench` was asked to do, as plain values
// (filled by the CLI's flag parser, read by RunBench). Flag names and
// defaults follow db_bench's.
//
// Thread safety: a plain value; copy it freely.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace shale::bench {

// The workloads, with db_bench's meaning; rawwrite and rawread measure a
// simulated flash device alone (--fs=sim-flash only; bench/sim_flash_bench.h).
inline const std::vector<std::string>& KnownBenchmarks() {
  static const std::vector<std::string> names = {"fillseq",    "fillrandom", "overwrite",
                                                 "readrandom", "readseq",    "readwhilewriting",
                                                 "compact",    "rawwrite",   "rawread"};
  return names;
}

// Hard limits on the flags (everything has a limit).
inline constexpr int64_t kMaxKeySizeBytes = 1024;
inline constexpr int64_t kMaxValueSizeBytes = 16 << 20;
inline constexpr int64_t kMaxThreads = 256;
inline constexpr int64_t kMaxBatchSize = 100000;
inline constexpr int64_t kMaxBloomBits = 64;
inline constexpr int64_t kMaxBlockSizeBytes = 64 << 20;
inline constexpr int64_t kMaxOpenFiles = 1'000'000;

// /dev/shm/shale-bench if /dev/shm exists (RAM-backed, as the published
// db_bench runs on fast storage), else /tmp/shale-bench.
inline std::string DefaultBenchDbPath() {
  std::error_code ec;
  return std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm/shale-bench"
                                                       : "/tmp/shale-bench";
}

struct BenchConfig {
  std::vector<std::string> benchmarks = {"fillrandom", "readrandom"};
  int64_t num = 1000000;
  int64_t reads = -1;  // -1: same as num
  int64_t key_size_bytes = 16;
  int64_t value_size_bytes = 100;
  int64_t threads = 1;
  int64_t batch_size = 1;  // entries per write batch in the fill workloads
  uint64_t cache_size_bytes = 64ull << 20;
  uint64_t write_buffer_size_bytes = 64ull << 20;
  int64_t bloom_bits = 10;          // bits per key; 0: no filter
  int64_t block_size_bytes = 4096;  // table data block size
  int64_t max_open_files = -1;      // table readers kept open; -1: all
  // Block codec: none, snappy, lz4 or zstd (db_bench's default: snappy).
  std::string compression_type = "snappy";
  // Compaction output file size (LevelDB: max_file_size).
  uint64_t target_file_size_base_bytes = 64ull << 20;
  bool sync = false;
  bool disable_wal = false;
  // Read SSTs through mmap (Shale's allow_mmap_reads, RocksDB's
  // allow_mmap_reads). On by default because LevelDB always maps its
  // tables, so the three engines read the same way.
  bool mmap_read = true;
  // Append to the WAL through mmap (Shale's and RocksDB's
  // allow_mmap_writes; LevelDB always calls write(2)). On by default as in
  // Shale; RocksDB's own default is off.
  bool mmap_write = true;
  bool use_existing = false;
  bool stats = false;
  // Write path (shale::Options / rocksdb::DBOptions, same names and
  // defaults; LevelDB has no such options and ignores them).
  bool allow_concurrent_memtable_write = true;
  bool enable_pipelined_write = false;
  bool unordered_write = false;
  bool two_write_queues = false;
  // Shale only: memtables on transparent huge pages (Options::memtable_huge_pages).
  bool memtable_huge_pages = true;
  // Shale only: seek compaction (Options::disable_seek_compaction off).
  // LevelDB always has it; RocksDB has none.
  bool seek_compaction = true;
  // Shale and RocksDB: the memtable bloom filter (db_bench's
  // --memtable_bloom_size_ratio, --memtable_whole_key_filtering). The
  // defaults are Shale's; RocksDB's own are 0 and false.
  double memtable_bloom_size_ratio = 0.02;
  bool memtable_whole_key_filtering = true;
  // Open the store as a TransactionDB with the WritePrepared policy (Shale,
  // RocksDB) and write through it, as db_bench's --transaction_db does.
  bool transaction_db = false;
  bool txn_skip_concurrency_control = false;  // needs transaction_db
  std::string db_path;                        // empty: DefaultBenchDbPath()
  std::string engine = "shale";               // shale | leveldb | rocksdb | all
  // Where the engine's files live: "posix" (the real file system at
  // db_path), "flash" (the flash backend on a device kept in
  // db_path/flash.dev, real threads) or "sim-flash" (a simulated
  // open-channel SSD, timed in simulated seconds). Flash runs: Shale only.
  std::string fs = "posix";
  int64_t flash_units = 1;                 // the device's parallel units
  uint64_t flash_read_cache_bytes = 0;     // the backend's sector cache
  bool flash_buffer_across_flush = false;  // FlashFsOptions::buffer_across_flush
  int64_t flash_host_ns_per_op = 2000;     // simulated host time per operation

  int64_t EffectiveReads() const { return reads < 0 ? num : reads; }
};

}  // namespace shale::bench
