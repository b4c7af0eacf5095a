#include "bench_report.h"

#include <algorithm>
#include <fstream>
#include <thread>

#include "absl/strings/str_format.h"

namespace shale::bench {
namespace {

constexpr double kMiB = 1048576.0;

// "2 * Intel(R) Xeon(R) ..." from /proc/cpuinfo, or "" if unreadable.
std::string CpuDescription() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    return absl::StrFormat("%u * %s", std::thread::hardware_concurrency(), line.substr(colon + 2));
  }
  return "";
}

const BenchResult* FindResult(const EngineResults& engine, const std::string& name) {
  for (const BenchResult& r : engine.results) {
    if (r.name == name && r.status.ok()) return &r;
  }
  return nullptr;
}

}  // namespace

void PrintHeader(const BenchConfig& c, std::ostream& out) {
  const double entries = static_cast<double>(c.num);
  const double key = static_cast<double>(c.key_size_bytes);
  const double value = static_cast<double>(c.value_size_bytes);
  const std::string cpu = CpuDescription();
  if (!cpu.empty()) out << "CPU:        " << cpu << "\n";
  out << absl::StrFormat("Keys:       %d bytes each\n", c.key_size_bytes);
  out << absl::StrFormat("Values:     %d bytes each (%d bytes after compression)\n",
                         c.value_size_bytes, c.value_size_bytes / 2);
  out << absl::StrFormat("Entries:    %d\n", c.num);
  out << absl::StrFormat("RawSize:    %.1f MB (estimated)\n", (key + value) * entries / kMiB);
  out << absl::StrFormat("FileSize:   %.1f MB (estimated)\n", (key + value * 0.5) * entries / kMiB);
  out << absl::StrFormat("Threads:    %d\n", c.threads);
  out << absl::StrFormat(
      "Options:    write_buffer_size=%d cache_size=%d bloom_bits=%d "
      "block_size=%d max_open_files=%d target_file_size_base=%d compression=%s "
      "sync=%d disable_wal=%d batch_size=%d mmap_read=%d mmap_write=%d\n",
      c.write_buffer_size_bytes, c.cache_size_bytes, c.bloom_bits, c.block_size_bytes,
      c.max_open_files, c.target_file_size_base_bytes, c.compression_type, int{c.sync},
      int{c.disable_wal}, c.batch_size, int{c.mmap_read}, int{c.mmap_write});
  // Shale and RocksDB only: LevelDB has no such options (see KvOptions), so
  // a LevelDB-only run prints nothing about them.
  if (c.engine != "leveldb") {
    const char* db = !c.transaction_db                ? "DB"
                     : c.txn_skip_concurrency_control ? "TransactionDB(WritePrepared, no locks)"
                                                      : "TransactionDB(WritePrepared)";
    out << absl::StrFormat(
        "WritePath:  allow_concurrent_memtable_write=%d "
        "enable_pipelined_write=%d unordered_write=%d two_write_queues=%d "
        "db=%s\n",
        int{c.allow_concurrent_memtable_write}, int{c.enable_pipelined_write},
        int{c.unordered_write}, int{c.two_write_queues}, db);
    out << absl::StrFormat("Memtable:   bloom_size_ratio=%g whole_key_filtering=%d",
                           c.memtable_bloom_size_ratio, int{c.memtable_whole_key_filtering});
    if (c.engine != "rocksdb") {
      out << absl::StrFormat(" huge_pages=%d (Shale only)", int{c.memtable_huge_pages});
    }
    out << "\n";
    if (c.engine != "rocksdb") {
      out << absl::StrFormat("Compaction: seek_compaction=%d (Shale; LevelDB always)\n",
                             int{c.seek_compaction});
    }
  }
  out << "------------------------------------------------\n";
}

std::string FormatFlashLine(const FlashFsStats& s, const std::vector<ChunkDescriptor>& report,
                            uint32_t sector_bytes) {
  uint32_t max_wear = 0;
  uint64_t resets = 0;
  for (const ChunkDescriptor& d : report) {
    max_wear = std::max(max_wear, d.wear);
    resets += d.wear;
  }
  const double programmed = static_cast<double>(s.sectors_programmed) * sector_bytes;
  const uint64_t lookups = s.read_cache_hits + s.read_cache_misses;
  return absl::StrFormat(
      "Flash:      engine wrote %.1f MB, device programmed %.1f MB (write amplification %.2f); "
      "%d resets, max wear %u; read cache hits %.1f%%",
      static_cast<double>(s.bytes_appended) / kMiB, programmed / kMiB,
      s.bytes_appended > 0 ? programmed / static_cast<double>(s.bytes_appended) : 0.0, resets,
      max_wear,
      lookups > 0 ? 100.0 * static_cast<double>(s.read_cache_hits) / static_cast<double>(lookups)
                  : 0.0);
}

double OpsPerSecond(const BenchResult& r) {
  return r.wall_seconds > 0 ? static_cast<double>(r.ops) / r.wall_seconds : 0;
}

std::string FormatResultLine(const BenchResult& r) {
  const double micros_per_op = r.ops > 0 ? r.thread_seconds * 1e6 / static_cast<double>(r.ops) : 0;
  std::string extra;
  if (r.bytes > 0 && r.wall_seconds > 0) {
    extra = absl::StrFormat("%6.1f MB/s", static_cast<double>(r.bytes) / kMiB / r.wall_seconds);
  }
  if (r.reports_found) {
    if (!extra.empty()) extra.push_back(' ');
    extra += absl::StrFormat("(%d of %d found)", r.found, r.ops);
  }
  return absl::StrFormat("%-12s : %11.3f micros/op %d ops/sec;%s%s", r.name, micros_per_op,
                         static_cast<int64_t>(OpsPerSecond(r)), extra.empty() ? "" : " ", extra);
}

void PrintComparison(const std::vector<EngineResults>& engines,
                     const std::vector<std::string>& notes, std::ostream& out) {
  if (engines.empty()) return;
  const EngineResults* shale = nullptr;
  const EngineResults* leveldb = nullptr;
  out << "\nops/sec by engine\n" << absl::StrFormat("%-18s", "benchmark");
  for (const EngineResults& e : engines) {
    out << absl::StrFormat(" %12s", e.engine);
    if (e.engine == "Shale") shale = &e;
    if (e.engine == "LevelDB") leveldb = &e;
  }
  const bool ratio = shale != nullptr && leveldb != nullptr;
  out << (ratio ? absl::StrFormat(" %14s", "Shale/LevelDB") : "") << "\n";
  for (const BenchResult& row : engines.front().results) {
    out << absl::StrFormat("%-18s", row.name);
    for (const EngineResults& e : engines) {
      const BenchResult* r = FindResult(e, row.name);
      out << (r ? absl::StrFormat(" %12d", static_cast<int64_t>(OpsPerSecond(*r)))
                : absl::StrFormat(" %12s", "-"));
    }
    if (ratio) {
      const BenchResult* s = FindResult(*shale, row.name);
      const BenchResult* l = FindResult(*leveldb, row.name);
      const bool ok = s && l && OpsPerSecond(*l) > 0;
      out << (ok ? absl::StrFormat(" %13.2fx", OpsPerSecond(*s) / OpsPerSecond(*l))
                 : absl::StrFormat(" %14s", "-"));
    }
    out << "\n";
  }
  for (const std::string& note : notes) out << "Note: " << note << "\n";
}

}  // namespace shale::bench
