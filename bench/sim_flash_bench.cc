#include "sim_flash_bench.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench_report.h"
#include "kv_store.h"
#include "shale/flash_file_system.h"
#include "sim/disk/sim_disk.h"
#include "sim/flash/sim_flash_device.h"
#include "sim/simulation.h"
#include "workloads.h"

namespace shale::bench {
namespace {

constexpr const char* kDbPath = "/db";
constexpr uint32_t kUnitsPerGroup = 8;

// A simulation's tasks and simulated time, for RunWorkload.
class SimThreads final : public WorkloadThreads {
 public:
  SimThreads(sim::Simulation* sim, uint64_t host_ns_per_op)
      : sim_(sim), host_ns_per_op_(host_ns_per_op) {}
  void RunAll(int n, const std::function<void(int)>& fn) override {
    std::vector<std::unique_ptr<Thread>> threads;
    for (int i = 0; i < n; i++) {
      threads.push_back(
          sim_->runtime()->StartThread("bench" + std::to_string(i), [&fn, i] { fn(i); }));
    }
    for (auto& t : threads) t->Join();
  }
  double NowSeconds() override { return static_cast<double>(sim_->now_ns()) / 1e9; }
  void ChargeOp() override {
    if (host_ns_per_op_ > 0) sim_->Delay(host_ns_per_op_);
  }

 private:
  sim::Simulation* const sim_;
  const uint64_t host_ns_per_op_;
};

uint64_t DataBytes(const BenchConfig& c) {
  return static_cast<uint64_t>(c.num) *
         static_cast<uint64_t>(c.key_size_bytes + c.value_size_bytes);
}

}  // namespace

sim::SimFlashDeviceOptions BenchFlashDevice(const BenchConfig& c) {
  sim::SimFlashDeviceOptions o;
  FlashGeometry& g = o.geometry;
  const uint32_t units = static_cast<uint32_t>(c.flash_units);
  g.groups = units <= kUnitsPerGroup ? 1 : (units + kUnitsPerGroup - 1) / kUnitsPerGroup;
  g.parallel_units_per_group = units <= kUnitsPerGroup ? units : kUnitsPerGroup;
  g.sector_bytes = 4096;
  g.oob_bytes = 32;
  g.ws_min = 4;
  g.ws_opt = 8;
  g.mw_cunits = 8;
  g.sectors_per_chunk = 256;
  g.max_open_chunks = 64;
  // Room for the data eight times over (levels, obsolete files, padding),
  // for a WAL that spends a page on every write (no write buffer), and a
  // chunk per unit for every file the engine may keep open.
  const uint64_t wal_bytes =
      static_cast<uint64_t>(c.num) * static_cast<uint64_t>(c.threads) * g.ws_min * g.sector_bytes;
  const uint64_t chunks = (DataBytes(c) * 8 + wal_bytes) / g.chunk_bytes() + 256;
  g.chunks_per_unit = static_cast<uint32_t>(std::max<uint64_t>(8, chunks / g.parallel_units() + 1));
  o.timing.read_ns = 100'000;
  o.timing.program_ns = 1'000'000;
  o.timing.erase_ns = 4'000'000;
  o.timing.channel_bytes_per_us = 200;
  return o;
}

namespace {

void PrintDevice(const BenchConfig& c, const sim::SimFlashDeviceOptions& o, std::ostream& out) {
  const FlashGeometry& g = o.geometry;
  out << absl::StrFormat(
      "Device:     simulated open-channel SSD, %u groups x %u units x %u chunks x %u sectors of "
      "%u B; ws_min %u, ws_opt %u, mw_cunits %u\n",
      g.groups, g.parallel_units_per_group, g.chunks_per_unit, g.sectors_per_chunk, g.sector_bytes,
      g.ws_min, g.ws_opt, g.mw_cunits);
  out << absl::StrFormat(
      "Timing:     program %d us per ws_opt, read %d us per ws_min, erase %d us, channel %d "
      "MB/s; host %d ns per operation; all in simulated time\n",
      o.timing.program_ns / 1000, o.timing.read_ns / 1000, o.timing.erase_ns / 1000,
      o.timing.channel_bytes_per_us, c.flash_host_ns_per_op);
  out << absl::StrFormat("Backend:    read cache %d bytes, write buffer %s\n",
                         c.flash_read_cache_bytes,
                         c.flash_buffer_across_flush ? "held across Flush" : "programmed by Flush");
  out << "------------------------------------------------\n";
}

// One sequential writer (or reader) per parallel unit, each on its own
// chunks in ws_opt units.
BenchResult RunRaw(bool write, sim::Simulation* sim, sim::SimFlashDevice* device,
                   const BenchConfig& c) {
  const FlashGeometry& g = device->geometry();
  const uint64_t unit_bytes = uint64_t{g.ws_opt} * g.sector_bytes;
  // Whole chunks, so that every chunk closes and nothing stays in the
  // device cache for the reads.
  const uint32_t per_chunk = g.sectors_per_chunk / g.ws_opt;
  const uint64_t wanted = std::max<uint64_t>(1, DataBytes(c) / unit_bytes / g.parallel_units());
  const uint64_t units_per_writer = (wanted + per_chunk - 1) / per_chunk * per_chunk;
  SimThreads threads(sim, 0);
  BenchResult r;
  r.name = write ? "rawwrite" : "rawread";
  std::vector<Status> status(g.parallel_units());
  const double start = threads.NowSeconds();
  threads.RunAll(static_cast<int>(g.parallel_units()), [&](int writer) {
    std::string data(unit_bytes, 'x');
    std::string oob(uint64_t{g.ws_opt} * g.oob_bytes, '\0');
    const uint32_t first_chunk = static_cast<uint32_t>(writer) * g.chunks_per_unit;
    for (uint64_t i = 0; i < units_per_writer && status[writer].ok(); i++) {
      const uint32_t chunk = first_chunk + static_cast<uint32_t>(i / per_chunk);
      const uint32_t sector = static_cast<uint32_t>(i % per_chunk) * g.ws_opt;
      status[writer] = write ? device->Write(chunk, sector, data, oob)
                             : device->Read(chunk, sector, g.ws_opt, data.data(), nullptr);
    }
  });
  r.wall_seconds = threads.NowSeconds() - start;
  r.thread_seconds = r.wall_seconds * g.parallel_units();
  r.ops = static_cast<int64_t>(units_per_writer * g.parallel_units());
  r.bytes = static_cast<int64_t>(units_per_writer * g.parallel_units() * unit_bytes);
  for (const Status& s : status) {
    if (r.status.ok()) r.status = s;
  }
  return r;
}

KvOptions KvOptionsFor(const BenchConfig& c, Env* env) {
  KvOptions o;
  o.write_buffer_size_bytes = c.write_buffer_size_bytes;
  o.cache_size_bytes = c.cache_size_bytes;
  o.sync = c.sync;
  o.disable_wal = c.disable_wal;
  o.env = env;
  return o;
}

bool IsRaw(const std::string& name) { return name == "rawwrite" || name == "rawread"; }

// Runs benchmarks [first, last) on one fresh device; prints their lines.
// They are all raw (the device alone) or all the engine's.
Status RunOnFreshDevice(const BenchConfig& c, size_t first, size_t last, std::ostream& out) {
  sim::SimulationOptions sim_options;
  sim_options.seed = 1;
  sim_options.max_steps = uint64_t{1} << 62;
  sim_options.max_sim_time_ns = uint64_t{1} << 62;
  sim::Simulation sim(sim_options);
  sim::SimDisk small(&sim, sim::LatencyProfile::Zero());
  sim::SimFlashDevice device(&sim, BenchFlashDevice(c));
  Status status;
  std::unique_ptr<FlashFileSystem> fs;
  const bool raw = IsRaw(c.benchmarks[first]);
  Status run = sim.Run([&] {
    for (size_t i = first; raw && i < last && status.ok(); i++) {
      const BenchResult r = RunRaw(c.benchmarks[i] == "rawwrite", &sim, &device, c);
      status = r.status;
      if (status.ok()) out << FormatResultLine(r) << "\n" << std::flush;
    }
    if (raw) return;
    status = small.CreateDirIfMissing(kDbPath);
    FlashFsOptions fs_options;
    fs_options.read_cache_bytes = c.flash_read_cache_bytes;
    fs_options.buffer_across_flush = c.flash_buffer_across_flush;
    if (status.ok()) status = OpenFlashFileSystem(&device, &small, sim.runtime(), fs_options, &fs);
    if (!status.ok()) return;
    Env env(fs.get(), sim.clock(), sim.runtime());
    std::unique_ptr<KvStore> store;
    status = NewKvStore("shale", &store);
    if (status.ok()) status = store->Open(kDbPath, KvOptionsFor(c, &env));
    SimThreads threads(&sim, static_cast<uint64_t>(c.flash_host_ns_per_op));
    for (size_t i = first; i < last && status.ok(); i++) {
      const std::string& name = c.benchmarks[i];
      const BenchResult r = RunWorkload(name, store.get(), c, BenchSeed(name), &threads);
      status = r.status;
      if (status.ok()) out << FormatResultLine(r) << "\n" << std::flush;
    }
    if (store != nullptr) {
      const Status close = store->Close();
      if (status.ok()) status = close;
    }
    fs->Shutdown();
  });
  if (status.ok()) status = run;
  if (fs != nullptr) {
    out << FormatFlashLine(fs->final_stats(), device.Peek(), device.geometry().sector_bytes)
        << "\n";
  }
  (void)fs.release();  // made inside the simulation: its locks are the simulation's
  return status;
}

}  // namespace

int RunSimFlashBench(const BenchConfig& config, std::ostream& out, std::ostream& err) {
  PrintHeader(config, out);
  PrintDevice(config, BenchFlashDevice(config), out);
  // rawwrite, every fill, and every switch between the device alone and
  // the engine start on a fresh device.
  const std::vector<std::string>& names = config.benchmarks;
  size_t first = 0;
  for (size_t i = 1; i <= names.size(); i++) {
    const bool boundary = i == names.size() || WantsFreshDb(names[i]) || names[i] == "rawwrite" ||
                          IsRaw(names[i]) != IsRaw(names[i - 1]);
    if (!boundary) continue;
    const Status s = RunOnFreshDevice(config, first, i, out);
    if (!s.ok()) {
      err << "shale: the benchmark on the simulated flash device failed: " << s.ToString() << "\n";
      return 1;
    }
    first = i;
  }
  return 0;
}

}  // namespace shale::bench
