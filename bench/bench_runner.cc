#include "bench_runner.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench_report.h"
#include "kv_store.h"
#include "port/flash/file_flash_device.h"
#include "shale/flash_file_system.h"
#include "sim_flash_bench.h"
#include "workloads.h"

namespace shale::bench {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// --fs=flash: the engine's files on a flash device kept in one real file
// (<db>/flash.dev) through the flash backend, with real threads.
struct FlashBackend {
  std::unique_ptr<FileFlashDevice> device;
  std::unique_ptr<FlashFileSystem> fs;
  std::unique_ptr<Env> env;
};

struct EngineRun {
  std::string key;  // "shale", "leveldb", ...
  std::unique_ptr<KvStore> store;
  std::string path;
  std::unique_ptr<FlashBackend> flash;  // --fs=flash only
};

// Mounts the backend over <path>/flash.dev (a fresh device unless keep).
Status OpenFlashBackend(const BenchConfig& c, const std::string& path, bool keep,
                        std::unique_ptr<FlashBackend>* backend) {
  backend->reset();  // shuts the previous instance down
  std::error_code ec;
  if (!keep) std::filesystem::remove_all(path, ec);
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::IOError("cannot create directory " + path, ec.message());
  auto b = std::make_unique<FlashBackend>();
  Env* real = Env::Default();
  Status s = FileFlashDevice::Open(path + "/flash.dev", BenchFlashDevice(c).geometry, &b->device);
  FlashFsOptions options;
  options.read_cache_bytes = c.flash_read_cache_bytes;
  options.buffer_across_flush = c.flash_buffer_across_flush;
  if (s.ok())
    s = OpenFlashFileSystem(b->device.get(), real->fs(), real->runtime(), options, &b->fs);
  if (!s.ok()) return s;
  b->env = std::make_unique<Env>(b->fs.get(), real->clock(), real->runtime());
  *backend = std::move(b);
  return Status::OK();
}

KvOptions ToKvOptions(const BenchConfig& c) {
  KvOptions o;
  o.write_buffer_size_bytes = c.write_buffer_size_bytes;
  o.cache_size_bytes = c.cache_size_bytes;
  o.bloom_bits_per_key = static_cast<int>(c.bloom_bits);
  o.block_size_bytes = static_cast<uint64_t>(c.block_size_bytes);
  o.max_open_files = static_cast<int>(c.max_open_files);
  // CheckConfig has refused any other name.
  if (!ParseCompressionType(c.compression_type, &o.compression)) o.compression = kNoCompression;
  o.target_file_size_base_bytes = c.target_file_size_base_bytes;
  o.sync = c.sync;
  o.disable_wal = c.disable_wal;
  o.mmap_read = c.mmap_read;
  o.mmap_write = c.mmap_write;
  o.allow_concurrent_memtable_write = c.allow_concurrent_memtable_write;
  o.enable_pipelined_write = c.enable_pipelined_write;
  o.unordered_write = c.unordered_write;
  o.two_write_queues = c.two_write_queues;
  o.memtable_huge_pages = c.memtable_huge_pages;
  o.seek_compaction = c.seek_compaction;
  o.memtable_bloom_size_ratio = c.memtable_bloom_size_ratio;
  o.memtable_whole_key_filtering = c.memtable_whole_key_filtering;
  o.transaction_db = c.transaction_db;
  o.txn_skip_concurrency_control = c.txn_skip_concurrency_control;
  return o;
}

// Makes every store up front so a missing adapter fails before any work.
Status MakeEngineRuns(const BenchConfig& c, std::vector<EngineRun>* runs) {
  const bool all = c.engine == "all";
  const std::vector<std::string> names =
      all ? KnownEngineNames() : std::vector<std::string>{c.engine};
  const std::string db = c.db_path.empty() ? DefaultBenchDbPath() : c.db_path;
  for (const std::string& name : names) {
    EngineRun run{name, nullptr, all ? db + "/" + name : db, nullptr};
    Status s = NewKvStore(name, &run.store);
    if (!s.ok()) return s;
    runs->push_back(std::move(run));
  }
  return Status::OK();
}

// Destroys (unless keep) and opens the DB at run->path.
Status OpenFresh(const BenchConfig& c, EngineRun* run, KvOptions options, bool keep) {
  if (c.fs == "flash") {
    Status s = OpenFlashBackend(c, run->path, keep, &run->flash);
    if (!s.ok()) return s;
    options.env = run->flash->env.get();
    return run->store->Open(run->path, options);
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(run->path).parent_path(), ec);
  if (ec) return Status::IOError("cannot create directory for " + run->path, ec.message());
  if (!keep) {
    Status s = run->store->Destroy(run->path);
    if (!s.ok()) return s;
  }
  return run->store->Open(run->path, options);
}

// Runs every benchmark on one engine; appends results. Returns an exit code.
int RunEngine(const BenchConfig& c, EngineRun* run, EngineResults* results, std::ostream& out,
              std::ostream& err) {
  const KvOptions options = ToKvOptions(c);
  KvStore* store = run->store.get();
  out << "Engine:     " << store->name() << " (" << run->path << ")\n";
  const std::string notes = store->Notes(options);
  if (!notes.empty()) out << "Note:       " << notes << "\n";
  Status s = OpenFresh(c, run, options, c.use_existing);
  if (!s.ok()) {
    err << "shale: cannot open " << store->name() << " DB at " << run->path << ": " << s.ToString()
        << "\n";
    return kExitUsage;
  }
  bool written = false;
  for (size_t i = 0; i < c.benchmarks.size(); ++i) {
    const std::string& name = c.benchmarks[i];
    if (WantsFreshDb(name) && written && !c.use_existing) {
      s = store->Close();
      if (s.ok()) s = OpenFresh(c, run, options, /*keep=*/false);
      if (!s.ok()) break;
    }
    written =
        written || name.rfind("fill", 0) == 0 || name == "overwrite" || name == "readwhilewriting";
    // Seeded by the workload's name, not its position: readrandom must not
    // replay fillrandom's key sequence (it would find every key).
    BenchResult r = RunWorkload(name, store, c, BenchSeed(name));
    s = r.status;
    if (!s.ok()) break;
    out << FormatResultLine(r) << "\n" << std::flush;
    results->results.push_back(std::move(r));
  }
  if (s.ok() && c.stats) out << "\n" << store->StatsText() << "\n";
  const Status close = store->Close();
  if (s.ok()) s = close;
  if (run->flash != nullptr) {
    std::vector<ChunkDescriptor> report;
    if (run->flash->device->ReportChunks(&report).ok()) {
      out << FormatFlashLine(run->flash->fs->stats(), report,
                             run->flash->device->geometry().sector_bytes)
          << "\n";
    }
    run->flash.reset();
  }
  if (s.ok()) return kExitOk;
  err << "shale: " << store->name() << " failed: " << s.ToString() << "\n";
  return kExitFailure;
}

}  // namespace

int RunBench(const BenchConfig& config, std::ostream& out, std::ostream& err) {
  if (config.fs == "sim-flash") return RunSimFlashBench(config, out, err);
  std::vector<EngineRun> runs;
  Status s = MakeEngineRuns(config, &runs);
  if (!s.ok()) {
    err << "shale: " << s.message() << "\n";
    return kExitUsage;
  }
  PrintHeader(config, out);
  std::vector<EngineResults> all_results;
  std::vector<std::string> notes;
  for (EngineRun& run : runs) {
    EngineResults results{std::string(run.store->name()), {}};
    const int code = RunEngine(config, &run, &results, out, err);
    if (code != kExitOk) return code;
    const std::string note = run.store->Notes(ToKvOptions(config));
    if (!note.empty()) notes.push_back(std::string(run.store->name()) + ": " + note);
    all_results.push_back(std::move(results));
    out << "\n";
  }
  if (all_results.size() > 1) PrintComparison(all_results, notes, out);
  return kExitOk;
}

}  // namespace shale::bench
