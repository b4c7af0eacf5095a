// The differential scenarios. See diff_scenarios.h.
#include "scenarios/diff/diff_scenarios.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scenarios/diff/diff_engine.h"
#include "scenarios/diff/diff_log.h"
#include "scenarios/diff/diff_shrink.h"
#include "scenarios/diff/shale_diff_engine.h"
#include "scenarios/scenario_run.h"
#include "shale/options.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"
#include "util/hash.h"

namespace shale::scenario {

namespace {

constexpr int kDefaultOps = 600;
constexpr int kOptionSets = 4;  // the engine's defaults, then drawn ones
constexpr int kMaxShrinkRuns = 400;
constexpr const char* kDbPath = "/db";
constexpr const char* kSameUnderOptions = "same answers under every option set";
constexpr const char* kSameAsRocksDb = "same answers as rocksdb";
constexpr const char* kNoErrors = "no spurious errors";

// A difference Shale means to have from RocksDB: skipped when it applies
// (given the op and both answers), and counted under its name. The list is
// empty: 10,000 seeds found no difference Shale means to keep. A new entry
// needs a README line saying why Shale differs.
struct IntendedDifference {
  const char* name;
  bool (*applies)(const DiffOp& op, const std::string& reference, const std::string& other);
};
constexpr std::array<IntendedDifference, 0> kIntendedDifferences = {};

// The engine's defaults with a small memtable, so short logs reach flushes
// and compactions.
Options BaseOptions() {
  Options o;
  o.write_buffer_size = 64 << 10;
  return o;
}

Options DrawOptions(sim::ChoiceTape* rng) {
  Options o = BaseOptions();
  o.block_size = size_t{256} << rng->Uniform(7);  // 256 B .. 16 KiB
  o.block_restart_interval = 1 + static_cast<int>(rng->Uniform(32));
  o.write_buffer_size = size_t{4096} << rng->Uniform(9);  // 4 KiB .. 1 MiB
  o.target_file_size_base = uint64_t{4096} << rng->Uniform(6);
  o.max_bytes_for_level_base = uint64_t{16384} << rng->Uniform(6);
  o.level0_file_num_compaction_trigger = 2 + static_cast<int>(rng->Uniform(7));
  o.bloom_bits_per_key = rng->OneIn(3) ? 0 : 1 + static_cast<int>(rng->Uniform(16));
  o.max_open_files = rng->OneIn(2) ? -1 : 20 + static_cast<int>(rng->Uniform(50));
  o.disable_auto_compactions = rng->OneIn(5);
  switch (rng->Uniform(4)) {
    case 1:
      o.enable_pipelined_write = true;
      break;
    case 2:
      o.unordered_write = true;
      o.allow_concurrent_memtable_write = true;
      break;
    case 3:
      o.two_write_queues = true;
      break;
    default:
      break;
  }
  o.use_direct_reads = rng->OneIn(3);
  o.use_direct_io_for_flush_and_compaction = rng->OneIn(3);
  o.use_direct_io_for_wal = rng->OneIn(4);
  DrawCompression(rng, &o);
  DrawMemtableFilter(rng, &o);
  DrawCompactionTriggers(rng, &o);
  return o;
}

std::string DescribeOptions(const Options& o) {
  const char* mode = o.enable_pipelined_write ? "pipelined"
                     : o.unordered_write      ? "unordered"
                     : o.two_write_queues     ? "two_write_queues"
                                              : "vanilla";
  return absl::StrCat(
      "block_size=", o.block_size, " restart_interval=", o.block_restart_interval,
      " write_buffer_size=", o.write_buffer_size,
      " target_file_size_base=", o.target_file_size_base,
      " max_bytes_for_level_base=", o.max_bytes_for_level_base,
      " l0_trigger=", o.level0_file_num_compaction_trigger,
      " l0_slowdown=", o.level0_slowdown_writes_trigger, " l0_stop=", o.level0_stop_writes_trigger,
      " bloom_bits=", o.bloom_bits_per_key, " max_open_files=", o.max_open_files,
      " auto_compactions=", o.disable_auto_compactions ? "off" : "on", " write_mode=", mode,
      " direct_reads=", o.use_direct_reads,
      " direct_flush_compaction=", o.use_direct_io_for_flush_and_compaction,
      " direct_wal=", o.use_direct_io_for_wal, " compression=", CompressionTypeName(o.compression),
      " bottommost_compression=", CompressionTypeName(o.bottommost_compression),
      " memtable_bloom_size_ratio=", MemtableFilterName(o));
}

// PCT's horizon: about half the median scheduling points per log op of
// one simulation (measured: 32, over 100 seeds; see scenario_run.h).
constexpr PctCalibration kPctCalibration{16, kDefaultOps};

// One side's answers to a log, and its first error (RunDiffLog) with the
// call that met it.
struct Answers {
  Status status;
  std::string where;
  std::vector<std::string> lines;
};

// What the reference simulation reports about its scheduling.
struct SimFigures {
  uint64_t trace = 0;
  uint64_t steps = 0;
  std::string scheduler;
  uint64_t pct_change_points = 0;
  std::map<std::string, uint64_t> probe_hits;  // coverage probes, all simulations
};

// The simulation of option set `set`: seeded by seed + set, scheduled as
// config says (or as its own tape draws).
sim::SimulationOptions SimOptionsForSet(const RunConfig& config, size_t set) {
  RunConfig c = config;
  c.tape.reset();  // the run's tape draws the log, not the schedules
  c.seed = config.seed + set;
  return SimOptionsFor(c, kPctCalibration);
}

// Shale under options, in a simulation of its own over a fresh simulated
// disk. Adds the simulation's trace and steps to *figures (may be null).
Answers RunShale(const std::vector<DiffOp>& ops, Options options, const sim::SimulationOptions& so,
                 SimFigures* figures) {
  sim::Simulation sim(so);
  sim::SimDisk disk(&sim, sim::LatencyProfile::Zero());
  Env env(&disk, sim.clock(), sim.runtime());
  options.env = &env;
  std::unique_ptr<DiffEngine> engine = NewShaleDiffEngine(options, kDbPath);
  Answers a;
  const Status s = sim.Run([&] {
    a.status = RunDiffLog(ops, engine.get(), &a.lines, &a.where);
    engine.reset();  // inside the simulation: closing uses its runtime
  });
  if (!s.ok()) {
    (void)engine.release();  // abandoned with the simulation's tasks
    a.status = s;
    a.where = "simulation";
  }
  if (figures != nullptr) {
    figures->trace = figures->trace * 0x100000001b3ull ^ sim.trace()->value();
    figures->steps += sim.steps();
    AddProbeHits(sim, &figures->probe_hits);
    if (figures->scheduler.empty()) {
      figures->scheduler = sim.strategy() == sim::Strategy::kPct ? "pct" : "random";
      figures->pct_change_points = sim.pct_changes_fired();
    }
  }
  return a;
}

// A directory for RocksDB's files under work_dir (or TMPDIR, or /tmp),
// removed when this goes.
class ScratchDir {
 public:
  ScratchDir(const std::string& work_dir, uint64_t seed) {
    const char* tmp = std::getenv("TMPDIR");
    const std::string base = !work_dir.empty() ? work_dir : (tmp != nullptr && *tmp ? tmp : "/tmp");
    path_ = absl::StrCat(base, "/shale-diff-", ::getpid(), "-", seed);
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Answers RunRocksDb(const std::vector<DiffOp>& ops, const std::string& work_dir, uint64_t seed) {
  ScratchDir dir(work_dir, seed);
  std::unique_ptr<DiffEngine> engine = RocksDbDiffEngineFactory()(dir.path());
  Answers a;
  a.status = RunDiffLog(ops, engine.get(), &a.lines, &a.where);
  return a;
}

// The first op whose answers differ; against RocksDB, intended
// differences are skipped (each counted in *skipped when non-null). -1 if
// none.
int FirstDifference(const std::vector<DiffOp>& ops, const Answers& a, const Answers& b,
                    bool against_rocksdb, std::map<std::string, uint64_t>* skipped) {
  for (size_t i = 0; i < ops.size() && i < a.lines.size() && i < b.lines.size(); i++) {
    if (a.lines[i] == b.lines[i]) continue;
    bool intended = false;
    for (const IntendedDifference& d : kIntendedDifferences) {
      if (against_rocksdb && d.applies(ops[i], a.lines[i], b.lines[i])) {
        if (skipped != nullptr) (*skipped)[d.name]++;
        intended = true;
        break;
      }
    }
    if (!intended) return static_cast<int>(i);
  }
  return a.lines.size() == b.lines.size()
             ? -1
             : static_cast<int>(std::min(a.lines.size(), b.lines.size()));
}

std::string Clip(const std::string& s) { return s.size() <= 200 ? s : s.substr(0, 200) + "..."; }

class DiffRun {
 public:
  DiffRun(const RunConfig& config, RunResult* result, bool against_rocksdb)
      : config_(config),
        result_(result),
        against_rocksdb_(against_rocksdb),
        tape_(config.tape ? sim::ChoiceTape(*config.tape) : sim::ChoiceTape(config.seed)) {}

  void Execute() {
    const int n = std::clamp(config_.ops > 0 ? config_.ops : kDefaultOps, 1, kMaxDiffOps);
    ops_ = GenerateDiffLog(&tape_, n);
    options_.push_back(BaseOptions());
    if (!against_rocksdb_) {
      for (int i = 1; i < kOptionSets; i++) options_.push_back(DrawOptions(&tape_));
    }
    for (size_t i = 0; i < options_.size(); i++) {
      options_[i].planted_bugs = config_.planted_bugs;
      result_->options_drawn[absl::StrCat("set", i)] = DescribeOptions(options_[i]);
    }
    result_->options_drawn["against"] = against_rocksdb_ ? "rocksdb" : "options";
    Compare();
    // The log's draws: `shale shrink` edits these bytes, a whole op at a time.
    result_->tape_bytes = tape_.consumed_bytes();
    result_->operation_marks = tape_.operation_marks();
    result_->ops = static_cast<uint64_t>(ops_.size());
    result_->engine_ops =
        static_cast<uint64_t>(ops_.size()) * (against_rocksdb_ ? 2 : options_.size());
    result_->trace_hash = trace_ ^ sims_.trace;
    result_->steps = sims_.steps;
    result_->scheduler = sims_.scheduler;
    result_->pct_change_points = sims_.pct_change_points;
    result_->probes_counted = true;
    result_->probe_hits = sims_.probe_hits;
  }

 private:
  // The reference side: RocksDB, or Shale under the first option set.
  Answers Reference(const std::vector<DiffOp>& ops) {
    return against_rocksdb_ ? RunRocksDb(ops, config_.work_dir, config_.seed)
                            : RunShale(ops, options_[0], SimOptionsForSet(config_, 0), nullptr);
  }

  void Compare() {
    const Answers reference =
        against_rocksdb_ ? Reference(ops_)
                         : RunShale(ops_, options_[0], SimOptionsForSet(config_, 0), &sims_);
    if (!CheckRan(reference, against_rocksdb_ ? "rocksdb" : "shale (set0)")) return;
    FoldAnswers(reference);
    const size_t first = against_rocksdb_ ? 0 : 1;
    for (size_t i = first; i < options_.size(); i++) {
      const Answers other = RunShale(ops_, options_[i], SimOptionsForSet(config_, i), &sims_);
      if (!CheckRan(other, absl::StrCat("shale (set", i, ")"))) return;
      FoldAnswers(other);
      const int at = FirstDifference(ops_, reference, other, against_rocksdb_, &result_->observed);
      if (at >= 0) return Report(at, i);
    }
  }

  bool CheckRan(const Answers& a, const std::string& who) {
    if (a.status.ok()) return true;
    result_->passed = false;
    result_->failure =
        Failure{kNoErrors,
                "",
                "OK",
                a.status.ToString(),
                a.lines.size(),
                absl::StrCat(who, " failed at ", a.where, " of a ", ops_.size(), "-op log")};
    return false;
  }

  void FoldAnswers(const Answers& a) {
    for (const std::string& line : a.lines)
      trace_ = (trace_ ^ Hash64(line.data(), line.size())) * 0x100000001b3ull;
  }

  // Cuts the log to the shortest that still differs between the reference
  // and option set i, and fails the seed with it.
  void Report(int at, size_t set) {
    const std::vector<DiffOp> prefix(ops_.begin(), ops_.begin() + at + 1);
    const auto differs = [&](const std::vector<DiffOp>& log) {
      const Answers a = Reference(log);
      const Answers b = RunShale(log, options_[set], SimOptionsForSet(config_, set), nullptr);
      // Both must run: a log on which one side errors shows another bug.
      return a.status.ok() && b.status.ok() &&
             FirstDifference(log, a, b, against_rocksdb_, nullptr) >= 0;
    };
    std::vector<DiffOp> shrunk = ShrinkDiffLog(prefix, differs, kMaxShrinkRuns);
    Answers a = Reference(shrunk);
    Answers b = RunShale(shrunk, options_[set], SimOptionsForSet(config_, set), nullptr);
    int where = FirstDifference(shrunk, a, b, against_rocksdb_, nullptr);
    if (where < 0 || !a.status.ok() || !b.status.ok()) {
      // Not reproduced (a side with real threads may vary): keep the prefix.
      shrunk = prefix;
      a = Reference(shrunk);
      b = RunShale(shrunk, options_[set], SimOptionsForSet(config_, set), nullptr);
      where = FirstDifference(shrunk, a, b, against_rocksdb_, nullptr);
    }
    const size_t w = where >= 0 ? static_cast<size_t>(where) : shrunk.size() - 1;
    const std::string ref_name = against_rocksdb_ ? "rocksdb" : "set0";
    const std::string other_name = against_rocksdb_ ? "shale" : absl::StrCat("set", set);
    result_->passed = false;
    result_->failure =
        Failure{against_rocksdb_ ? kSameAsRocksDb : kSameUnderOptions,
                shrunk[w].key,
                Clip(w < a.lines.size() ? a.lines[w] : "<none>"),
                Clip(w < b.lines.size() ? b.lines[w] : "<none>"),
                static_cast<uint64_t>(w + 1),
                absl::StrCat("op ", w + 1, " of a ", shrunk.size(), "-op log (cut from ", at + 1,
                             "): ", DescribeDiffOp(shrunk[w]), ": ", ref_name, " and ", other_name,
                             " answer differently",
                             where >= 0 ? "" : " (in the full log; a rerun of its prefix agreed)")};
    for (size_t i = 0; i < shrunk.size(); i++) {
      result_->recorded_history.push_back(
          absl::StrCat("op ", i + 1, ": ", DescribeDiffOp(shrunk[i]), "  -> ", ref_name, ": ",
                       Clip(i < a.lines.size() ? a.lines[i] : "<none>"), " | ", other_name, ": ",
                       Clip(i < b.lines.size() ? b.lines[i] : "<none>")));
    }
  }

  const RunConfig config_;
  RunResult* const result_;
  const bool against_rocksdb_;
  sim::ChoiceTape tape_;
  std::vector<DiffOp> ops_;
  std::vector<Options> options_;
  uint64_t trace_ = 0xcbf29ce484222325ull;  // of every answer
  SimFigures sims_;
};

class DiffScenario final : public Scenario {
 public:
  explicit DiffScenario(bool against_rocksdb) : against_rocksdb_(against_rocksdb) {}
  const char* name() const override { return against_rocksdb_ ? "diff-rocksdb" : "diff-options"; }
  const char* summary() const override {
    return against_rocksdb_
               ? "a random single-threaded log on Shale and on RocksDB: every answer must match "
                 "(shale diff --against rocksdb)"
               : "a random single-threaded log on Shale under drawn option sets: every answer "
                 "must match the defaults' (shale diff)";
  }
  std::vector<std::string> properties() const override {
    return {against_rocksdb_ ? kSameAsRocksDb : kSameUnderOptions, kNoErrors};
  }
  bool simulated() const override { return !against_rocksdb_; }
  bool in_all() const override { return false; }  // `shale diff` runs them
  RunResult Run(const RunConfig& config) const override {
    RunResult result;
    result.scenario = name();
    result.seed = config.seed;
    if (against_rocksdb_ && RocksDbDiffEngineFactory() == nullptr) {
      result.passed = false;
      result.failure = Failure{
          kNoErrors, "", "",
          "",        0,  "RocksDB is not built in; reconfigure with -DSHALE_BENCH_COMPARE=ON"};
      return result;
    }
    DiffRun run(config, &result, against_rocksdb_);
    run.Execute();
    return result;
  }

 private:
  const bool against_rocksdb_;
};

}  // namespace

const Scenario* DiffOptionsScenario() {
  static const auto* const scenario = new DiffScenario(false);
  return scenario;
}

const Scenario* DiffRocksDbScenario() {
  static const auto* const scenario = new DiffScenario(true);
  return scenario;
}

}  // namespace shale::scenario
