// Scenario `unordered-write`: see unordered_write.h for the promise
// table. One seed: draw a write mode, allow_concurrent_memtable_write and
// small engine sizes (on a hosted engine, its own documented options, set
// to the mode); open a DB on a SimDisk inside a Simulation; write an
// initial version of every group; run writer and reader tasks; then check
// read-your-own-writes (deferred until every write is acknowledged, so each
// observed version's sequence is known) and close. No faults, no crashes:
// any error is a failure. Tasks may be preempted at named yield points.
#include "scenarios/unordered_write/unordered_write.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scenarios/engine/hosted_engine.h"
#include "scenarios/engine/run_engine.h"
#include "scenarios/oracle/history.h"
#include "scenarios/scenario_run.h"
#include "shale/db.h"
#include "shale/options.h"
#include "shale/transaction_db.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::scenario {

namespace {

constexpr const char* kDbPath = "/db";
constexpr int kDefaultOps = 400;
// Median 44k scheduling points per default-size PCT run.
constexpr PctCalibration kPctCalibration{55, kDefaultOps};
constexpr const char* kAtomic = "atomic reads";
constexpr const char* kOwnWrites = "read-your-own-writes";
constexpr const char* kImmutable = "immutable snapshots";
constexpr const char* kModeOption = "write_mode";

struct ModeSpec {
  const char* name;
  WriteMode mode;
  bool atomic_reads;
  bool own_writes;
  bool immutable_snapshots;
  bool write_prepared = false;  // through a WritePrepared TransactionDB, two write queues
};
constexpr ModeSpec kModes[] = {
    {"vanilla", WriteMode::kVanilla, true, true, true},
    {"pipelined", WriteMode::kPipelined, true, true, true},
    {"unordered", WriteMode::kUnordered, false, true, false},
    {"unordered+WritePrepared+two_write_queues", WriteMode::kUnorderedWritePrepared, true, true,
     true, true},
};

bool Keeps(const ModeSpec& mode, const std::string& promise) {
  if (promise == kAtomic) return mode.atomic_reads;
  if (promise == kOwnWrites) return mode.own_writes;
  return mode.immutable_snapshots;
}

struct Drawn {
  Options options;
  TransactionDBOptions txn_options;  // used by the WritePrepared mode
  const ModeSpec* mode = &kModes[0];
  int groups = 3;
  int keys_per_group = 2;
  int writers = 2;
  int readers = 2;
};

// Every mode runs on every engine the scenario runs on (RunsOn).
Drawn DrawConfig(sim::ChoiceTape* rng) {
  Drawn d;
  d.mode = &kModes[rng->Uniform(std::size(kModes))];
  Options& o = d.options;
  o.create_if_missing = true;
  o.enable_pipelined_write = std::string(d.mode->name) == "pipelined";
  o.unordered_write = std::string(d.mode->name).rfind("unordered", 0) == 0;
  o.two_write_queues = d.mode->write_prepared;
  // RocksDB's recommended unordered_write setup skips key locks; both are drawn.
  d.txn_options.write_policy = TxnWritePolicy::kWritePrepared;
  d.txn_options.skip_concurrency_control = d.mode->write_prepared && rng->OneIn(2);
  d.txn_options.default_lock_timeout_ms = 600000;  // writers wait; never a spurious TimedOut
  // RocksDB refuses unordered_write without concurrent memtable writes.
  o.allow_concurrent_memtable_write = o.unordered_write || !rng->OneIn(3);
  o.write_buffer_size = size_t{8192} << rng->Uniform(3);  // 8..32 KiB
  o.target_file_size_base = uint64_t{8192} << rng->Uniform(3);
  o.max_bytes_for_level_base = uint64_t{32768} << rng->Uniform(2);
  o.level0_file_num_compaction_trigger = 2 + static_cast<int>(rng->Uniform(3));
  o.block_size = size_t{512} << rng->Uniform(3);
  DrawMemtableFilter(rng, &o);
  DrawCompactionTriggers(rng, &o);
  d.groups = 2 + static_cast<int>(rng->Uniform(4));
  d.keys_per_group = 3 + static_cast<int>(rng->Uniform(6));
  d.writers = 2 + static_cast<int>(rng->Uniform(3));
  d.readers = 2 + static_cast<int>(rng->Uniform(3));
  return d;
}

std::string KeyOf(int group, int k) { return absl::StrCat("g", group, ".k", k); }

// A read-your-own-writes observation, checked once every write is acked.
struct OwnRead {
  uint64_t own_sequence = 0;
  std::string own_version;
  std::string key;
  std::string observed;  // "" when the key was not found
};

// Threads are preempted at the engine's named yield points
// (WithPreemption): the promises here are about races, and a reader that
// sleeps between reads could otherwise never land inside a write's window,
// which takes no simulated time.
sim::SimulationOptions SimOptions(const RunConfig& config) {
  return WithPreemption(config, SimOptionsFor(config, kPctCalibration));
}

class UnorderedWriteRun {
 public:
  UnorderedWriteRun(const RunConfig& config, RunResult* result)
      : config_(config), result_(result), sim_(SimOptions(config)) {}

  void Execute() {
    if (!PrepareRunEngine(config_, result_, &hosted_)) return;
    drawn_ = DrawConfig(sim_.rng());
    drawn_.options.planted_bugs = config_.planted_bugs;
    if (hosted_ != nullptr && !DrawHosted()) return;
    Describe();
    disk_ = std::make_unique<sim::SimDisk>(&sim_, sim::LatencyProfile::NVMe());
    env_ = std::make_unique<Env>(disk_.get(), sim_.clock(), sim_.runtime());
    drawn_.options.env = env_.get();
    CaptureTrace(config_, &sim_, result_);
    const Status s = sim_.Run([this] { Main(); });
    (void)db_.release();  // a run that ended early abandoned it with its tasks
    if (!s.ok()) Fail(SimulationFailureProperty(s), "", "", "", s.ToString());
    result_->passed = failure_.property.empty();
    result_->failure = failure_;
    result_->ops = ops_;
    result_->engine_ops = engine_ops_;
    RecordSimulation(&sim_, result_);
  }

 private:
  // A hosted engine's run: its own options, drawn from its documented
  // list, set to the drawn mode. False (the run failed) if it has no such
  // mode, which an engine that offers write modes never lacks.
  bool DrawHosted() {
    hosted_options_ = DrawHostedOptions(*hosted_, config_, &sim_, &hosted_described_);
    if (hosted_->SetWriteMode(drawn_.mode->mode, hosted_options_.get(), &hosted_described_)) {
      return true;
    }
    result_->passed = false;
    result_->failure =
        Failure{"hosting", "", "",
                "",        0,  std::string(hosted_->name()) + " has no mode " + drawn_.mode->name};
    return false;
  }

  void Describe() {
    auto& m = result_->options_drawn;
    if (hosted_ != nullptr) return DescribeHosted();
    m[kModeOption] = drawn_.mode->name;
    if (drawn_.mode->write_prepared) {
      m["skip_concurrency_control"] =
          drawn_.txn_options.skip_concurrency_control ? "true" : "false";
    }
    m["allow_concurrent_memtable_write"] =
        drawn_.options.allow_concurrent_memtable_write ? "true" : "false";
    m["write_buffer_size"] = std::to_string(drawn_.options.write_buffer_size);
    m["memtable_bloom_size_ratio"] = MemtableFilterName(drawn_.options);
    DescribeShape();
  }

  // The workload's shape, whichever engine runs it.
  void DescribeShape() {
    auto& m = result_->options_drawn;
    m["groups"] = std::to_string(drawn_.groups);
    m["keys_per_group"] = std::to_string(drawn_.keys_per_group);
    m["writers"] = std::to_string(drawn_.writers);
    m["readers"] = std::to_string(drawn_.readers);
    m["strategy"] = config_.strategy.empty() ? "drawn" : config_.strategy;
  }

  void DescribeHosted() {
    auto& m = result_->options_drawn;
    m = hosted_described_;
    m[kModeOption] = drawn_.mode->name;
    DescribeShape();
  }

  Status OpenDB() {
    if (hosted_ != nullptr) return hosted_->Open(*hosted_options_, env_.get(), kDbPath, &db_);
    if (!drawn_.mode->write_prepared) return DB::Open(drawn_.options, kDbPath, &db_);
    std::unique_ptr<TransactionDB> txn_db;
    Status s = TransactionDB::Open(drawn_.options, drawn_.txn_options, kDbPath, &txn_db);
    db_ = std::move(txn_db);
    return s;
  }

  void Main() {
    Status s = OpenDB();
    if (!s.ok()) return Fail("no spurious errors", "", "Open OK", s.ToString(), "Open failed");
    for (int g = 0; g < drawn_.groups && failure_.property.empty(); g++) WriteGroup(g, "init");
    const int ops = config_.ops > 0 ? config_.ops : kDefaultOps;
    const int per_task = std::max(1, ops / (drawn_.writers + drawn_.readers));
    std::vector<std::unique_ptr<Thread>> tasks;
    writers_running_ = drawn_.writers;
    for (int w = 0; w < drawn_.writers; w++) {
      tasks.push_back(sim_.runtime()->StartThread(absl::StrCat("writer", w), [this, per_task, w] {
        Writer(sim_.rng(), per_task, w);
        writers_running_--;
      }));
    }
    for (int r = 0; r < drawn_.readers; r++) {
      tasks.push_back(sim_.runtime()->StartThread(
          absl::StrCat("reader", r), [this, per_task, r] { Reader(sim_.rng(), 4 * per_task, r); }));
    }
    for (auto& t : tasks) t->Join();
    CheckOwnReads();
    s = db_->Close();
    if (!s.ok() && failure_.property.empty()) {
      Fail("no spurious errors", "", "OK", s.ToString(), "Close failed");
    }
    db_.reset();
  }

  // Sets every key of group g to version; returns the batch's first
  // sequence (0 on failure).
  uint64_t WriteGroup(int g, const std::string& version) {
    WriteBatch batch;
    for (int k = 0; k < drawn_.keys_per_group; k++) batch.Put(KeyOf(g, k), version);
    WriteOptions wo;
    const Status s = db_->Write(wo, &batch);
    engine_ops_ += static_cast<uint64_t>(drawn_.keys_per_group);
    if (!s.ok()) {
      Fail("no spurious errors", "", "OK", s.ToString(), "Write failed");
      return 0;
    }
    const uint64_t seq = batch.Sequence();
    version_sequence_[version] = seq;
    return seq;
  }

  void Writer(sim::ChoiceTape* tape, int n, int id) {
    sim::ChoiceTape& rng = *tape;
    for (int i = 0; i < n && failure_.property.empty() && MoreOps(&rng); i++, ops_++) {
      const int g = static_cast<int>(rng.Uniform(static_cast<uint64_t>(drawn_.groups)));
      const std::string version = absl::StrCat("w", id, ".", i);
      const uint64_t seq = WriteGroup(g, version);
      if (config_.trace) {
        Tell(absl::StrCat("writer", id, " op ", i, ": write group ", g, " = ", version,
                          seq == 0 ? " -> failed" : " -> sequence " + std::to_string(seq)));
      }
      if (seq == 0) return;
      // Read your own write right away, without a snapshot.
      const std::string key =
          KeyOf(g, static_cast<int>(rng.Uniform(static_cast<uint64_t>(drawn_.keys_per_group))));
      std::string value;
      const Status s = db_->Get(ReadOptions(), key, &value);
      engine_ops_++;
      if (!s.ok() && !s.IsNotFound())
        return Fail("no spurious errors", key, "OK", s.ToString(), "Get failed");
      own_reads_.push_back(OwnRead{seq, version, key, s.ok() ? value : ""});
      if (rng.OneIn(25)) Maintain(&rng);
    }
  }

  // One story line (only called when the run is traced).
  void Tell(const std::string& line) { sim_.TraceEvent(line); }

  void Maintain(sim::ChoiceTape* rng) {
    const bool flush = rng->OneIn(2);
    const Status s = flush ? db_->Flush(FlushOptions())
                           : db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
    engine_ops_++;
    if (config_.trace) {
      Tell(std::string(flush ? "writer: flush -> " : "writer: compact all -> ") + s.ToString());
    }
    if (!s.ok()) Fail("no spurious errors", "", "OK", s.ToString(), "Flush/CompactRange failed");
  }

  // Reads until the writers are done (at most max_reads), a few simulated
  // microseconds apart: reads cost no simulated time, writes do (WAL I/O),
  // so unpaced readers would finish before the writers got going.
  static constexpr uint64_t kReaderPaceUs = 8;

  void Reader(sim::ChoiceTape* tape, int max_reads, int id) {
    sim::ChoiceTape& rng = *tape;
    for (int i = 0;
         i < max_reads && writers_running_ > 0 && failure_.property.empty() && MoreOps(&rng);
         i++, ops_++) {
      // 1..8 us; the tape's zero is the full pace, so a smaller tape reads
      // less often, never more.
      sim_.runtime()->SleepForMicroseconds(kReaderPaceUs - rng.Uniform(kReaderPaceUs));
      const int g = static_cast<int>(rng.Uniform(static_cast<uint64_t>(drawn_.groups)));
      const bool at_snapshot = rng.OneIn(2);
      if (config_.trace) {
        Tell(absl::StrCat("reader", id, " op ", i, ": read group ", g,
                          at_snapshot ? " at a snapshot, twice" : " with an iterator"));
      }
      if (at_snapshot) {
        ReadAtSnapshot(g, &rng);
      } else {
        ReadWithIterator(g);
      }
    }
  }

  // Reads group g at a fresh snapshot: all keys must agree (atomic reads);
  // after some simulated time, the same reads must repeat (immutable
  // snapshots).
  void ReadAtSnapshot(int g, sim::ChoiceTape* rng) {
    const Snapshot* snap = db_->GetSnapshot();
    std::vector<std::string> first;
    if (!ReadGroup(g, snap, &first)) return db_->ReleaseSnapshot(snap);
    CheckAgree(g, first, "snapshot read");
    sim_.runtime()->SleepForMicroseconds(1 + rng->Uniform(40));
    std::vector<std::string> again;
    if (ReadGroup(g, snap, &again)) {
      for (size_t k = 0; k < first.size(); k++) {
        if (again[k] == first[k]) continue;
        Violation(kImmutable, KeyOf(g, static_cast<int>(k)), Show(first[k]), Show(again[k]),
                  "a reread at the same snapshot changed");
        break;
      }
    }
    db_->ReleaseSnapshot(snap);
  }

  // Reads group g's keys at snap into (*out)[k], last key first: writers
  // insert a batch's keys first to last, so a read racing an insert sees
  // the batch's tail old and its head new.
  bool ReadGroup(int g, const Snapshot* snap, std::vector<std::string>* out) {
    ReadOptions ro;
    ro.snapshot = snap;
    out->assign(static_cast<size_t>(drawn_.keys_per_group), "");
    for (int k = drawn_.keys_per_group - 1; k >= 0; k--) {
      std::string value;
      const Status s = db_->Get(ro, KeyOf(g, k), &value);
      engine_ops_++;
      if (!s.ok() && !s.IsNotFound()) {
        Fail("no spurious errors", KeyOf(g, k), "OK", s.ToString(), "Get failed");
        return false;
      }
      (*out)[static_cast<size_t>(k)] = s.ok() ? value : "";
    }
    return true;
  }

  // One iterator (one implicit snapshot) over group g's keys.
  void ReadWithIterator(int g) {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    std::vector<std::string> values(static_cast<size_t>(drawn_.keys_per_group));
    const std::string prefix = absl::StrCat("g", g, ".");
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      engine_ops_++;
      const std::string key = it->key().ToString();
      const int k = std::stoi(key.substr(prefix.size() + 1));
      if (k >= 0 && k < drawn_.keys_per_group)
        values[static_cast<size_t>(k)] = it->value().ToString();
    }
    if (!it->status().ok()) {
      return Fail("no spurious errors", "", "OK", it->status().ToString(), "Iterator failed");
    }
    CheckAgree(g, values, "iterator");
  }

  void CheckAgree(int g, const std::vector<std::string>& values, const char* how) {
    for (size_t k = 0; k < values.size(); k++) {
      sim_.Fold(HashKeyValue(KeyOf(g, static_cast<int>(k)), Value(values[k])));
    }
    for (size_t k = 1; k < values.size(); k++) {
      if (values[k] == values[0]) continue;
      Violation(kAtomic, KeyOf(g, static_cast<int>(k)), Show(values[0]), Show(values[k]),
                std::string(how) + " saw part of a batch: a group's keys disagree");
      return;
    }
  }

  // Every own read saw the writer's version or a later one.
  void CheckOwnReads() {
    for (const OwnRead& r : own_reads_) {
      if (!failure_.property.empty()) return;
      sim_.Fold(HashKeyValue(r.key, Value(r.observed)));
      if (r.observed == r.own_version) continue;
      const auto it = version_sequence_.find(r.observed);
      if (it != version_sequence_.end() && it->second > r.own_sequence) continue;
      Violation(kOwnWrites, r.key, Show(r.own_version) + " or newer", Show(r.observed),
                "a Get right after Write returned missed the writer's own write");
    }
  }

  static std::string Show(const std::string& v) { return v.empty() ? "<absent>" : "'" + v + "'"; }

  void Violation(const char* promise, const std::string& key, const std::string& expected,
                 const std::string& observed, const std::string& message) {
    // A hosted engine is held to a mode's promise only where its own
    // promise table keeps it too.
    const bool held = hosted_ == nullptr || hosted_->promises().Checks(promise);
    if (Keeps(*drawn_.mode, promise) && held) {
      return Fail(promise, key, expected, observed,
                  std::string(drawn_.mode->name) + " mode: " + message);
    }
    result_->observed[promise]++;
    sim_.TraceEvent(std::string("observed dropped promise: ") + promise + " (" + message + ")");
  }

  void Fail(const std::string& property, const std::string& key, const std::string& expected,
            const std::string& observed, const std::string& message) {
    if (!failure_.property.empty()) return;
    failure_ = Failure{property, key, expected, observed, sim_.steps(), message};
  }

  const RunConfig config_;
  RunResult* const result_;
  const HostedEngine* hosted_ = nullptr;  // nullptr: Shale's own engine
  std::unique_ptr<HostedOptions> hosted_options_;
  std::map<std::string, std::string> hosted_described_;
  sim::Simulation sim_;
  Drawn drawn_;
  std::unique_ptr<sim::SimDisk> disk_;
  std::unique_ptr<Env> env_;
  std::unique_ptr<DB> db_;
  Failure failure_;
  uint64_t ops_ = 0;
  int writers_running_ = 0;
  uint64_t engine_ops_ = 0;
  std::map<std::string, uint64_t> version_sequence_;
  std::vector<OwnRead> own_reads_;
};

class UnorderedWrite final : public Scenario {
 public:
  const char* name() const override { return "unordered-write"; }
  const char* summary() const override {
    return "writers keep groups of keys equal under a drawn write mode; readers check the "
           "mode's promises (atomic reads, read-your-own-writes, immutable snapshots)";
  }
  std::vector<std::string> properties() const override {
    return {kAtomic,    kOwnWrites,         kImmutable,  "no spurious errors",
            "deadlock", "engine assertion", "simulation"};
  }
  std::vector<PromiseRow> promises() const override {
    std::vector<PromiseRow> rows;
    for (const ModeSpec& m : kModes) {
      for (const char* p : {kAtomic, kOwnWrites, kImmutable})
        rows.push_back({m.name, p, Keeps(m, p)});
    }
    return rows;
  }
  const char* mode_option() const override { return kModeOption; }
  RunResult Run(const RunConfig& config) const override {
    return RunScenario<UnorderedWriteRun>(name(), config);
  }
  // Shale's engine and every hosted one with the write modes.
  bool RunsOn(const std::string& engine) const override {
    const HostedEngine* hosted = FindHostedEngine(engine);
    return IsShaleEngine(engine) || (hosted != nullptr && hosted->offers().write_modes);
  }
  std::map<std::string, std::string> PinnableOptions(const std::string& engine) const override {
    const HostedEngine* hosted = FindHostedEngine(engine);
    return hosted != nullptr ? hosted->PinnableOptions() : std::map<std::string, std::string>{};
  }
};

}  // namespace

const Scenario* UnorderedWriteScenario() {
  static const auto* const scenario = new UnorderedWrite();
  return scenario;
}

}  // namespace shale::scenario
