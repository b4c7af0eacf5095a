// Scenario `snapshot`: reads and iterations at held snapshots.
//
// One seed: draw small engine options from the seed (swarm: tiny write
// buffers and target files, so flushes and compactions run constantly and
// >= 3 levels form), open a DB on a SimDisk inside a Simulation, and run
// 1-3 writer tasks (puts, deletes, batches, client flushes and compactions)
// next to 1-3 reader tasks that take snapshots, read and iterate at them in
// both directions, repeat earlier reads later, compact under them and
// release them at random times; a third of the snapshots are held to the
// end. Then flush and fully compact with the survivors still held, repeat
// every kept read once more, and close.
//
// Every read at a snapshot is compared with an exact model: the state given
// by the acknowledged writes with sequence <= the snapshot's (see
// SnapshotModel for why that comparison sometimes waits for in-flight
// acknowledgements), and every repeat with its first answer (SnapshotState
// lists the properties). No faults are injected and nothing crashes: this
// scenario is about snapshot semantics under concurrency, flushes and
// compactions, so any error is a failure.
#include <memory>
#include <string>

#include "scenarios/engine/run_engine.h"
#include "scenarios/scenario_run.h"
#include "scenarios/snapshot/snapshot.h"
#include "scenarios/snapshot/snapshot_clients.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::scenario {

namespace {

constexpr const char* kDbPath = "/db";
// Workload operations per seed by default (RunConfig::ops = 0): about 12 ms
// of one core per seed. Longer runs cost more per operation (held snapshots
// keep old versions, so reads skip more): 2000 took ~40% more time and
// found compaction ignoring snapshots in the same 185 of 200 seeds.
constexpr int kDefaultOps = 1500;
// Median 39.4k scheduling points per default-size PCT run.
constexpr PctCalibration kPctCalibration{13, kDefaultOps};

struct Drawn {
  Options options;
  SnapshotWorkloadOptions workload;
  sim::LatencyProfile latency;
  int writers = 1;
  int readers = 1;
  std::map<std::string, std::string> described;
};

// Swarm: engine options and workload shape drawn from the seed, within
// valid ranges. A small key space gives each key many versions, so held
// snapshots keep versions that compactions would otherwise drop.
Drawn DrawConfig(sim::ChoiceTape* rng) {
  Drawn d;
  Options& o = d.options;
  o.create_if_missing = true;
  o.write_buffer_size = size_t{4096} << rng->Uniform(4);  // 4..32 KiB
  o.max_write_buffer_number = 2 + static_cast<int>(rng->Uniform(2));
  o.target_file_size_base = uint64_t{4096} << rng->Uniform(4);  // 4..32 KiB
  o.max_bytes_for_level_base = uint64_t{16384} << rng->Uniform(3);
  o.max_bytes_for_level_multiplier = 2.0 + static_cast<double>(rng->Uniform(5));
  o.level0_file_num_compaction_trigger = 2 + static_cast<int>(rng->Uniform(3));
  o.block_size = size_t{256} << rng->Uniform(4);
  o.bloom_bits_per_key = rng->OneIn(4) ? 0 : 10;
  o.max_open_files = rng->OneIn(3) ? -1 : 20 + static_cast<int>(rng->Uniform(40));
  SnapshotWorkloadOptions& w = d.workload;
  w.key_space = 50 << rng->Uniform(3);  // 50..200
  w.skewed_keys = rng->OneIn(2);
  w.value_bytes_max = 16 << rng->Uniform(4);  // 16..128
  w.sync_one_in = 8 + static_cast<int>(rng->Uniform(24));
  w.no_wal_one_in = 4 + static_cast<int>(rng->Uniform(20));
  w.max_held = 1 + static_cast<int>(rng->Uniform(5));
  d.writers = 1 + static_cast<int>(rng->Uniform(3));
  d.readers = 1 + static_cast<int>(rng->Uniform(3));
  DrawCompression(rng, &o);
  DrawMemtableFilter(rng, &o);
  DrawCompactionTriggers(rng, &o);
  d.latency = DrawDisk(rng, &d.described);
  auto& m = d.described;
  DescribeEngineSizes(o, &m);
  m["max_write_buffer_number"] = std::to_string(o.max_write_buffer_number);
  m["key_space"] = std::to_string(w.key_space);
  m["skewed_keys"] = w.skewed_keys ? "true" : "false";
  m["value_bytes_max"] = std::to_string(w.value_bytes_max);
  m["sync_one_in"] = std::to_string(w.sync_one_in);
  m["no_wal_one_in"] = std::to_string(w.no_wal_one_in);
  m["max_held_snapshots"] = std::to_string(w.max_held);
  m["writers"] = std::to_string(d.writers);
  m["readers"] = std::to_string(d.readers);
  m["faults"] = "off";
  return d;
}

// Everything one run holds; lives on the Run() stack.
class SnapshotRun {
 public:
  SnapshotRun(const RunConfig& config, RunResult* result)
      : config_(config),
        result_(result),
        sim_(WithPreemption(config, SimOptionsFor(config, kPctCalibration))) {}

  void Execute() {
    if (!PrepareRunEngine(config_, result_, &hosted_)) return;
    drawn_ = DrawConfig(sim_.rng());
    if (hosted_ != nullptr) DrawHosted();
    // Shale's engine: the write modes whose reads keep every snapshot
    // exact. An unordered write's snapshot may gain entries later
    // (RocksDB's documented trade): the unordered-write scenario checks it.
    if (hosted_ == nullptr) {
      DrawOrderedWriteMode(sim_.rng(), &drawn_.options, &drawn_.described);
      DrawBlockCache(sim_.rng(), sim_.runtime(), &drawn_.options, &drawn_.described);
    }
    drawn_.options.planted_bugs = config_.planted_bugs;
    result_->options_drawn = drawn_.described;
    result_->options_drawn["strategy"] = config_.strategy.empty() ? "drawn" : config_.strategy;
    disk_ = std::make_unique<sim::SimDisk>(&sim_, drawn_.latency);
    env_ = std::make_unique<Env>(disk_.get(), sim_.clock(), sim_.runtime());
    drawn_.options.env = env_.get();
    CaptureTrace(config_, &sim_, result_);
    const Status s = sim_.Run([this] { Main(); });
    (void)db_.release();  // a run that ended early abandons its DB with its tasks
    if (!s.ok() && !failed()) {
      run_failure_ = Failure{SimulationFailureProperty(s), "", "", "", sim_.steps(), s.ToString()};
    }
    Report();
  }

 private:
  bool failed() const {
    return (state_ != nullptr && state_->failed()) || !run_failure_.property.empty();
  }

  // A hosted engine's run: the workload's shape and the disk as drawn for
  // Shale's engine, the engine's own options from its documented list,
  // and only what it offers.
  void DrawHosted() {
    KeepDescribed({"key_space", "skewed_keys", "value_bytes_max", "sync_one_in",
                   "max_held_snapshots", "writers", "readers", "faults"},
                  &drawn_.described);
    hosted_options_ = DrawHostedOptions(*hosted_, config_, &sim_, &drawn_.described);
    drawn_.workload.offers = hosted_->offers();
  }

  void Main() {
    std::unique_ptr<DB> db;
    const Status s = hosted_ != nullptr ? hosted_->Open(*hosted_options_, env_.get(), kDbPath, &db)
                                        : DB::Open(drawn_.options, kDbPath, &db);
    if (!s.ok()) {
      run_failure_ = Failure{"no spurious errors", "",           "OK",
                             s.ToString(),         sim_.steps(), "DB::Open of a new DB failed"};
      return;
    }
    db_ = std::move(db);
    state_ = std::make_unique<SnapshotState>(
        db_.get(), sim_.runtime(), [this] { return sim_.steps(); },
        config_.trace ? std::function<void(const std::string&)>(
                            [this](const std::string& line) { sim_.TraceEvent(line); })
                      : nullptr,
        [this](uint64_t hash) { sim_.Fold(hash); }, drawn_.readers);
    RunTasks();
    NoteDeepestLevel();
    FinishSnapshotChecks(state_.get(), drawn_.workload, &survivors_);
    sim_.TraceEvent("check: snapshot reads " + std::to_string(state_->counters()->reads_checked) +
                    (state_->failed() ? ", FAILED " + state_->failure().property : ", ok"));
    if (!state_->failed()) {
      state_->CheckStatus(db_->Close(), "Close");
      db_.reset();
    }
    if (db_ != nullptr) {
      // A failure left the DB open: abandon it as a crash would, ending its
      // background tasks (a DB is never destroyed outside Run).
      sim_.Crash();
      (void)db_.release();
    }
  }

  void RunTasks() {
    const int total = config_.ops > 0 ? config_.ops : kDefaultOps;
    const int writer_total = total * 13 / 20;
    const int reader_total = total - writer_total;
    drawn_.workload.writer_ops_total = static_cast<uint64_t>(writer_total);
    std::vector<std::unique_ptr<Thread>> threads;
    std::vector<std::vector<HeldSnapshot>> kept(static_cast<size_t>(drawn_.readers));
    state_->StartWriters(drawn_.writers);
    for (int w = 0; w < drawn_.writers; w++) {
      const int ops = Share(writer_total, drawn_.writers, w);
      threads.push_back(sim_.runtime()->StartThread("writer" + std::to_string(w), [=, this] {
        RunSnapshotWriter(state_.get(), drawn_.workload, sim_.rng(), ops, w);
        state_->WriterDone();
      }));
    }
    for (int r = 0; r < drawn_.readers; r++) {
      const int ops = Share(reader_total, drawn_.readers, r);
      auto* out = &kept[static_cast<size_t>(r)];
      threads.push_back(sim_.runtime()->StartThread("reader" + std::to_string(r), [=, this] {
        RunSnapshotReader(state_.get(), drawn_.workload, sim_.rng(), ops, r, out);
      }));
    }
    for (auto& t : threads) t->Join();
    for (auto& v : kept) {
      for (HeldSnapshot& h : v) survivors_.push_back(std::move(h));
    }
  }

  // Part i of total split into parts as evenly as possible.
  static int Share(int total, int parts, int i) {
    return total / parts + (i < total % parts ? 1 : 0);
  }

  // The deepest level holding a file: shows the drawn sizes made the tree
  // deep (a test requires it often enough).
  void NoteDeepestLevel() {
    std::string files;
    for (int level = 1;
         db_->GetProperty("shale.num-files-at-level" + std::to_string(level), &files); level++) {
      if (files != "0") deepest_level_ = level;
    }
  }

  void Report() {
    RunResult& r = *result_;
    if (state_ != nullptr) {
      const SnapshotCounters& c = *state_->counters();
      r.ops = c.writer_ops + c.reader_ops;
      r.engine_ops = c.engine_ops;
      r.options_drawn["snapshots_taken"] = std::to_string(c.snapshots);
      r.options_drawn["reads_checked"] = std::to_string(c.reads_checked);
      r.options_drawn["reads_deferred"] = std::to_string(c.reads_deferred);
      r.options_drawn["repeats"] = std::to_string(c.repeats);
      r.options_drawn["max_compactions_under_one_snapshot"] =
          std::to_string(c.max_compactions_under_snapshot);
    }
    r.options_drawn["deepest_level"] = std::to_string(deepest_level_);
    r.passed = !failed();
    if (!r.passed) {
      r.failure = state_ != nullptr && state_->failed() ? state_->failure() : run_failure_;
    }
    if (!r.passed && hosted_ != nullptr && !hosted_->promises().Checks(r.failure.property)) {
      // A property this engine does not promise: counted, not failed.
      r.passed = true;
      r.ended_early = "broke what the engine does not promise";
      r.observed[r.failure.property + " (not promised by " + config_.engine + ")"]++;
    }
    RecordSimulation(&sim_, &r);
  }

  const RunConfig config_;
  RunResult* const result_;
  const HostedEngine* hosted_ = nullptr;  // nullptr: Shale's own engine
  std::unique_ptr<HostedOptions> hosted_options_;
  sim::Simulation sim_;
  Drawn drawn_;
  std::unique_ptr<sim::SimDisk> disk_;
  std::unique_ptr<Env> env_;
  std::unique_ptr<DB> db_;
  std::unique_ptr<SnapshotState> state_;
  std::vector<HeldSnapshot> survivors_;
  Failure run_failure_;
  int deepest_level_ = 0;
};

class SnapshotScenarioImpl final : public Scenario {
 public:
  const char* name() const override { return "snapshot"; }
  const char* summary() const override {
    return "concurrent writers and readers holding snapshots across flushes and compactions; "
           "every read and iteration at a snapshot equals the model at its sequence, and "
           "repeating it never changes the answer";
  }
  std::vector<std::string> properties() const override {
    return {"snapshot reads",     "snapshot iteration", "repeatable snapshot reads",
            "no spurious errors", "deadlock",           "engine assertion",
            "simulation"};
  }
  RunResult Run(const RunConfig& config) const override {
    return RunScenario<SnapshotRun>(name(), config);
  }
  // Shale's engine and every hosted one.
  bool RunsOn(const std::string& engine) const override {
    return IsShaleEngine(engine) || FindHostedEngine(engine) != nullptr;
  }
  std::map<std::string, std::string> PinnableOptions(const std::string& engine) const override {
    const HostedEngine* hosted = FindHostedEngine(engine);
    return hosted != nullptr ? hosted->PinnableOptions() : std::map<std::string, std::string>{};
  }
};

}  // namespace

const Scenario* SnapshotScenario() {
  static const auto* const scenario = new SnapshotScenarioImpl();
  return scenario;
}

}  // namespace shale::scenario
