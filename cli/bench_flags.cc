#include "bench_flags.h"

#include <algorithm>
#include <limits>

#include "flag_set.h"
#include "shale/options.h"

namespace shale::cli {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

struct BenchFlagValues {
  bench::BenchConfig config;
  std::string benchmarks = "fillrandom,readrandom";
  bool help = false;
};

void DefineBenchFlags(FlagSet* f, BenchFlagValues* v) {
  bench::BenchConfig& c = v->config;
  f->AddString("benchmarks", &v->benchmarks,
               "comma list of fillseq,fillrandom,overwrite,readrandom,readseq,readwhilewriting,"
               "compact (the whole range, all levels) "
               "(and, with --fs=sim-flash, rawwrite,rawread)");
  f->AddInt("num", &c.num, 1, kInt64Max,
            "entries; keys are 0..num-1 and each thread of a fill writes num of them");
  f->AddInt("reads", &c.reads, -1, kInt64Max, "reads per thread; -1 means --num");
  f->AddInt("key_size", &c.key_size_bytes, 1, bench::kMaxKeySizeBytes, "key bytes");
  f->AddInt("value_size", &c.value_size_bytes, 0, bench::kMaxValueSizeBytes, "value bytes");
  f->AddInt("threads", &c.threads, 1, bench::kMaxThreads,
            "threads per benchmark, all at once; each does the full --num/--reads "
            "(readwhilewriting: threads-1 readers, min 1, + 1 writer)");
  f->AddInt("batch_size", &c.batch_size, 1, bench::kMaxBatchSize,
            "entries per write batch (per thread) in the fill workloads");
  f->AddSize("cache_size", &c.cache_size_bytes, "block cache bytes");
  f->AddSize("write_buffer_size", &c.write_buffer_size_bytes, "memtable bytes");
  f->AddInt("bloom_bits", &c.bloom_bits, 0, bench::kMaxBloomBits,
            "bloom filter bits per key; 0: none");
  f->AddInt("block_size", &c.block_size_bytes, 256, bench::kMaxBlockSizeBytes,
            "table data block bytes");
  f->AddInt("max_open_files", &c.max_open_files, -1, bench::kMaxOpenFiles,
            "table readers kept open; -1: all (LevelDB: 50000); below 20 acts as 20 in Shale "
            "and RocksDB, below 74 as 74 in LevelDB");
  f->AddString("compression_type", &c.compression_type,
               "block codec: none, snappy, lz4 or zstd (LevelDB has only snappy and runs snappy "
               "for lz4 and zstd)");
  f->AddSize("target_file_size_base", &c.target_file_size_base_bytes,
             "compaction output file bytes (LevelDB: max_file_size)");
  f->AddBool("sync", &c.sync, "sync every write");
  f->AddBool("disable_wal", &c.disable_wal, "write no WAL");
  f->AddBool("mmap_read", &c.mmap_read,
             "read tables through mmap (shale, rocksdb: allow_mmap_reads; LevelDB always maps)");
  f->AddBool("mmap_write", &c.mmap_write,
             "append to the WAL through mmap (shale, rocksdb: allow_mmap_writes, on by default in "
             "Shale and off in RocksDB; LevelDB always calls write)");
  f->AddBool("allow_concurrent_memtable_write", &c.allow_concurrent_memtable_write,
             "a write group's writers insert into the memtable in parallel (shale, rocksdb)");
  f->AddBool("enable_pipelined_write", &c.enable_pipelined_write,
             "separate WAL and memtable write queues (shale, rocksdb)");
  f->AddBool("unordered_write", &c.unordered_write,
             "publish sequences after the WAL write; memtable inserts unordered (shale, rocksdb; "
             "not with --enable_pipelined_write)");
  f->AddBool("two_write_queues", &c.two_write_queues,
             "a second write queue for WAL-only writes: transaction prepares and commits "
             "(shale, rocksdb; not with --enable_pipelined_write)");
  f->AddBool("memtable_huge_pages", &c.memtable_huge_pages,
             "memtables on transparent huge pages where the OS has them (shale; the default)");
  f->AddBool("seek_compaction", &c.seek_compaction,
             "compact a file that Gets keep consulting in vain (shale: the default, "
             "Options::disable_seek_compaction; LevelDB always does, RocksDB never)");
  f->AddDouble("memtable_bloom_size_ratio", &c.memtable_bloom_size_ratio, 0.0, 0.25,
               "memtable bloom filter bytes as a share of write_buffer_size; 0: none (shale, "
               "rocksdb: memtable_prefix_bloom_size_ratio; RocksDB's own default is 0)");
  f->AddBool("memtable_whole_key_filtering", &c.memtable_whole_key_filtering,
             "the memtable bloom filter covers whole keys; without it there is none (shale, "
             "rocksdb; RocksDB's own default is false)");
  f->AddBool("transaction_db", &c.transaction_db,
             "open a TransactionDB (WritePrepared) and write through it (shale, rocksdb; "
             "with --unordered_write it needs --two_write_queues)");
  f->AddBool("txn_skip_concurrency_control", &c.txn_skip_concurrency_control,
             "the TransactionDB takes no key locks, as db_bench's does with --unordered_write "
             "(needs --transaction_db)");
  f->AddBool("use_existing", &c.use_existing, "keep the DB instead of destroying it first");
  f->AddBool("stats", &c.stats, "print the engine's stats after the run");
  f->AddString("db", &c.db_path, "DB directory (--engine=all: one subdirectory per engine)");
  f->AddString("engine", &c.engine, "shale, leveldb, rocksdb or all");
  f->AddString("fs", &c.fs,
               "where the files live: posix (the real file system), flash (the flash backend on a "
               "device kept in <db>/flash.dev, real threads) or sim-flash (a simulated "
               "open-channel SSD, timed in simulated seconds); flash ones run Shale only");
  f->AddInt("flash_units", &c.flash_units, 1, 512,
            "--fs=flash, sim-flash: parallel units (LUNs); up to 8 share a channel");
  f->AddSize("flash_read_cache_bytes", &c.flash_read_cache_bytes,
             "--fs=flash, sim-flash: the flash backend's sector cache for reads (0: none)");
  f->AddBool(
      "flash_buffer_across_flush", &c.flash_buffer_across_flush,
      "--fs=flash, sim-flash: the backend's write buffer holds across Flush (small WAL writes "
      "share units)");
  f->AddInt("flash_host_ns_per_op", &c.flash_host_ns_per_op, 0, 1'000'000'000,
            "--fs=sim-flash: simulated host time each operation costs its thread");
  f->AddBool("help", &v->help, "print this list");
}

// Splits the comma list into config->benchmarks, checking every name.
bool SetBenchmarks(const std::string& list, bench::BenchConfig* config, std::string* error) {
  config->benchmarks.clear();
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    const auto& known = bench::KnownBenchmarks();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      *error = "unknown benchmark '" + name + "' (see 'shale help bench')";
      return false;
    }
    config->benchmarks.push_back(name);
  }
  if (!config->benchmarks.empty()) return true;
  *error = "--benchmarks names no benchmark";
  return false;
}

// The flash flags: a known --fs, and raw benchmarks only on the simulated
// device, each rawread right after a rawwrite (it reads what that wrote).
bool CheckFlashConfig(const bench::BenchConfig& c, std::string* error) {
  if (c.fs != "posix" && c.fs != "flash" && c.fs != "sim-flash") {
    *error = "unknown --fs '" + c.fs + "' (want posix, flash or sim-flash)";
    return false;
  }
  if (c.fs != "posix" && c.engine != "shale") {
    *error = "--fs=" + c.fs + " runs Shale only (--engine=shale)";
    return false;
  }
  for (size_t i = 0; i < c.benchmarks.size(); i++) {
    const std::string& name = c.benchmarks[i];
    if ((name == "rawwrite" || name == "rawread") && c.fs != "sim-flash") {
      *error = name + " measures the simulated flash device: it needs --fs=sim-flash";
      return false;
    }
    if (name == "rawread" &&
        (i == 0 || (c.benchmarks[i - 1] != "rawwrite" && c.benchmarks[i - 1] != "rawread"))) {
      *error = "rawread reads what rawwrite wrote: put it right after rawwrite";
      return false;
    }
  }
  return true;
}

bool CheckConfig(const bench::BenchConfig& c, std::string* error) {
  if (!CheckFlashConfig(c, error)) return false;
  static const char* const kEngines[] = {"shale", "leveldb", "rocksdb", "all"};
  if (std::find(std::begin(kEngines), std::end(kEngines), c.engine) == std::end(kEngines)) {
    *error = "unknown engine '" + c.engine + "' (want shale, leveldb, rocksdb or all)";
    return false;
  }
  CompressionType compression = kNoCompression;
  if (!ParseCompressionType(c.compression_type, &compression) ||
      compression == kDisableCompressionOption) {
    *error =
        "unknown --compression_type '" + c.compression_type + "' (want none, snappy, lz4 or zstd)";
    return false;
  }
  if (c.db_path.empty()) {
    *error = "--db must not be empty";
    return false;
  }
  if (c.target_file_size_base_bytes < 64 * 1024) {
    *error = "--target_file_size_base must be at least 64K";
    return false;
  }
  // Both engines refuse to open with these (Shale: NotSupported); say so
  // before any work rather than after the header.
  if (c.unordered_write && c.enable_pipelined_write) {
    *error = "--unordered_write cannot be combined with --enable_pipelined_write";
    return false;
  }
  if (c.two_write_queues && c.enable_pipelined_write) {
    *error = "--two_write_queues cannot be combined with --enable_pipelined_write";
    return false;
  }
  // TransactionDB::Open refuses it too (WritePrepared commits must publish
  // through the second queue); db_bench instead turns two_write_queues on.
  if (c.transaction_db && c.unordered_write && !c.two_write_queues) {
    *error = "--transaction_db with --unordered_write needs --two_write_queues";
    return false;
  }
  if (c.txn_skip_concurrency_control && !c.transaction_db) {
    *error = "--txn_skip_concurrency_control needs --transaction_db";
    return false;
  }
  return true;
}

}  // namespace

BenchParse ParseBenchFlags(std::span<const std::string> args, bench::BenchConfig* config,
                           std::string* error) {
  BenchFlagValues v;
  v.config.db_path = bench::DefaultBenchDbPath();
  FlagSet flags("bench");
  DefineBenchFlags(&flags, &v);
  if (!flags.Parse(args, error)) return BenchParse::kUsageError;
  if (v.help) return BenchParse::kHelp;
  if (!flags.positional().empty()) {
    *error = "unexpected argument '" + flags.positional()[0] + "' (see 'shale help bench')";
    return BenchParse::kUsageError;
  }
  if (!SetBenchmarks(v.benchmarks, &v.config, error)) return BenchParse::kUsageError;
  if (!CheckConfig(v.config, error)) return BenchParse::kUsageError;
  *config = std::move(v.config);
  return BenchParse::kRun;
}

std::string BenchUsage() {
  BenchFlagValues v;
  v.config.db_path = bench::DefaultBenchDbPath();
  FlagSet flags("bench");
  DefineBenchFlags(&flags, &v);
  return flags.Usage();
}

}  // namespace shale::cli
