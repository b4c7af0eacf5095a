// Scenario `table-cache`: see table_cache.h.
#include "scenarios/table_cache/table_cache.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scenarios/scenario_run.h"
#include "scenarios/table_cache/table_cache_figures.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/options.h"
#include "sim/disk/host_cost_fs.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::scenario {

namespace {

namespace fig = table_cache_figures;

// Deep enough that realpath has components to walk.
constexpr const char* kDbPath = "/data/shale/db";
constexpr const char* kReads = "reads match the model";
constexpr const char* kStayOpen = "readers stay open";
constexpr const char* kBounded = "open tables bounded";
constexpr const char* kNoErrors = "no spurious errors";
constexpr int kDefaultGetsPerReader = 48;
constexpr int kWarmGetsPerReader = 8;
// Small enough that most data blocks come from the device, as in the
// study (page cache dropped, no block cache for index and filter).
constexpr size_t kBlockCacheBytes = 64 << 10;
// Waiting for compactions to settle: poll every kSettlePollUs, at most
// kMaxSettlePolls times.
constexpr uint64_t kSettlePollUs = 1000;
constexpr int kMaxSettlePolls = 100000;
constexpr PctCalibration kPctCalibration{400, 1000};

struct Drawn {
  Options options;
  int keys = 0;  // Puts in the fill (over a key space twice as large)
  int value_bytes = 0;
  int readers = 0;  // reader tasks per measurement
};

Drawn DrawConfig(sim::ChoiceTape* rng) {
  Drawn d;
  Options& o = d.options;
  o.create_if_missing = true;
  // Small tables over several levels: several hundred files, so that 5%
  // of them is above the engine's floor of 20 open files.
  o.write_buffer_size = 32 << 10;
  o.target_file_size_base = 4 << 10;
  o.max_bytes_for_level_base = 32 << 10;
  o.block_size = size_t{512} << rng->Uniform(2);
  o.bloom_bits_per_key = 10;
  // Raw blocks: the study's table count and block reads are those of
  // uncompressed tables (compressed ones would be a fifth as many files).
  o.compression = kNoCompression;
  d.keys = 10000 + static_cast<int>(rng->Uniform(5001));
  d.value_bytes = 120 + static_cast<int>(rng->Uniform(121));
  d.readers = 32 + 16 * static_cast<int>(rng->Uniform(3));  // 32, 48 or 64
  return d;
}

std::string KeyOf(uint64_t index) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08llu", static_cast<unsigned long long>(index));
  return buf;
}

std::string Show(const std::string* v) { return v == nullptr ? "<absent>" : "'" + *v + "'"; }

class TableCacheRun {
 public:
  TableCacheRun(const RunConfig& config, RunResult* result)
      : config_(config), result_(result), sim_(SimOptionsFor(config, kPctCalibration)) {}

  void Execute() {
    drawn_ = DrawConfig(sim_.rng());
    drawn_.options.planted_bugs = config_.planted_bugs;
    disk_ = std::make_unique<sim::SimDisk>(&sim_, sim::LatencyProfile::Zero());
    CaptureTrace(config_, &sim_, result_);
    const Status s = sim_.Run([this] { Main(); });
    (void)db_.release();  // a run that ended early abandoned it with its tasks
    if (!s.ok()) Fail(SimulationFailureProperty(s), "", "", "", s.ToString());
    Describe();
    result_->passed = failure_.property.empty();
    result_->failure = failure_;
    result_->ops = ops_;
    result_->engine_ops = engine_ops_;
    RecordSimulation(&sim_, result_);
  }

 private:
  void Describe() {
    auto& m = result_->options_drawn;
    m["keys"] = std::to_string(drawn_.keys);
    m["value_bytes"] = std::to_string(drawn_.value_bytes);
    m["readers"] = std::to_string(drawn_.readers);
    m["files"] = std::to_string(files_);
    DescribeEngineSizes(drawn_.options, &m);
  }

  void Main() {
    Fill();
    for (const char* env : fig::kEnvs) {
      for (size_t i = 0; i < fig::kSettings.size() && failure_.property.empty(); i++) {
        Measure(env, i);
      }
    }
    result_->observed[fig::kFiles] = files_;
    result_->observed[fig::kSeeds] = 1;
  }

  // ---- the fill

  void Fill() {
    Env env(disk_.get(), sim_.clock(), sim_.runtime());
    Options o = drawn_.options;
    o.env = &env;
    const CloseAtExit close_at_exit{this};  // the DB must not outlive env
    for (const char* dir : {"/data", "/data/shale"}) {
      if (!Check(disk_->CreateDirIfMissing(dir), "CreateDirIfMissing")) return;
    }
    if (!Check(DB::Open(o, kDbPath, &db_), "Open")) return;
    sim::ChoiceTape& rng = *sim_.rng();
    const uint64_t space = 2 * static_cast<uint64_t>(drawn_.keys);
    for (int i = 0; i < drawn_.keys && failure_.property.empty(); i++, ops_++) {
      const std::string key = KeyOf(rng.Uniform(space));
      std::string value = absl::StrCat("v", i, ".");
      value.resize(static_cast<size_t>(drawn_.value_bytes), 'x');
      engine_ops_++;
      if (!Check(db_->Put(WriteOptions(), key, value), "Put")) return;
      model_[key] = value;
      written_.push_back(key);
      if (i % 16 != 15) continue;
      const std::string gone = KeyOf(rng.Uniform(space));
      engine_ops_++;
      if (!Check(db_->Delete(WriteOptions(), gone), "Delete")) return;
      model_.erase(gone);
    }
    engine_ops_++;
    if (!Check(db_->Flush(FlushOptions()), "Flush") || !Settle()) return;
    files_ = CountFiles();
  }

  // Closes the DB at the end of the scope that holds its Env, however the
  // scope ends: a DB left open after a failed call would run its threads
  // on a dead Env.
  struct CloseAtExit {
    TableCacheRun* run;
    ~CloseAtExit() { run->CloseIfOpen(); }
  };
  void CloseIfOpen() {
    if (db_ == nullptr) return;
    Check(db_->Close(), "Close");
    db_.reset();
  }

  // Waits until no flush or compaction is pending.
  bool Settle() {
    std::string pending;
    for (int i = 0; i < kMaxSettlePolls; i++) {
      if (!db_->GetProperty("shale.compaction-pending", &pending)) break;
      if (pending == "0") return true;
      sim_.runtime()->SleepForMicroseconds(kSettlePollUs);
    }
    Fail(kNoErrors, "", "compactions settle", "still pending", "the tree never settled");
    return false;
  }

  uint64_t CountFiles() {
    uint64_t files = 0;
    for (int level = 0; level < drawn_.options.num_levels; level++) {
      std::string n;
      if (db_->GetProperty("shale.num-files-at-level" + std::to_string(level), &n)) {
        files += std::stoull(n);
      }
    }
    return files;
  }

  // ---- one measurement: an Env model at a max_open_files setting

  void Measure(const char* env_name, size_t setting) {
    const sim::EnvOpenModel model = std::string(env_name) == "shale"
                                        ? sim::EnvOpenModel::Shale()
                                        : sim::EnvOpenModel::RocksDb59();
    sim::HostCostFs host(disk_.get(), &sim_, sim::HostModel::LoadedNvmeHost(model));
    Env env(&host, sim_.clock(), sim_.runtime());
    Options o = drawn_.options;
    o.env = &env;
    o.create_if_missing = false;
    o.disable_auto_compactions = true;  // settled: the files stay as they are
    o.block_cache = NewLRUCache(kBlockCacheBytes, 0, sim_.runtime());
    const int percent = fig::kSettingPercents[setting];
    o.max_open_files = percent == 0 ? -1 : std::max(20, static_cast<int>(files_ * percent / 100));
    const CloseAtExit close_at_exit{this};  // the DB must not outlive env or host
    if (!Check(DB::Open(o, kDbPath, &db_), "Open")) return;
    ScanAll();
    RunReaders(kWarmGetsPerReader, "warm");
    host.ResetCounts();
    const uint64_t start_ns = sim_.now_ns();
    const int per_reader =
        config_.ops > 0 ? std::max(1, config_.ops / drawn_.readers) : kDefaultGetsPerReader;
    RunReaders(per_reader, "reader");
    const uint64_t gets = static_cast<uint64_t>(per_reader) * static_cast<uint64_t>(drawn_.readers);
    Record(env_name, setting, gets, host, sim_.now_ns() - start_ns, o.max_open_files);
    CheckCache(host, o.max_open_files);
  }

  void Record(const char* env, size_t setting, uint64_t gets, const sim::HostCostFs& host,
              uint64_t sim_ns, int max_open_files) {
    const std::string name = fig::kSettings[setting];
    auto& out = result_->observed;
    out[fig::FigureName(env, name, fig::kGets)] = gets;
    out[fig::FigureName(env, name, fig::kOpens)] = host.reader_opens();
    out[fig::FigureName(env, name, fig::kSyscalls)] = host.syscalls_total();
    out[fig::FigureName(env, name, fig::kSimNs)] = sim_ns;
    out[fig::FigureName(env, name, fig::kMaxOpenFiles)] =
        max_open_files < 0 ? 0 : static_cast<uint64_t>(max_open_files);
  }

  // The cache's promises over the measured reads: at -1 no reader is
  // reopened; otherwise no more table files are open at once than the
  // cache holds (max_open_files - 10, at least 10) plus one pinned by each
  // reader's Get in flight.
  void CheckCache(const sim::HostCostFs& host, int max_open_files) {
    const std::string setting = absl::StrCat("max_open_files=", max_open_files);
    if (max_open_files < 0) {
      if (host.reader_opens() == 0) return;
      return Fail(kStayOpen, "", "0 table-reader opens after the warm-up",
                  absl::StrCat(host.reader_opens()),
                  setting + ": a reader was closed and opened again");
    }
    const uint64_t bound = static_cast<uint64_t>(std::max(10, max_open_files - 10)) +
                           static_cast<uint64_t>(drawn_.readers);
    if (host.peak_live_table_files() <= bound) return;
    Fail(kBounded, "", absl::StrCat("at most ", bound, " table files open"),
         absl::StrCat(host.peak_live_table_files()), setting + ": the table cache exceeded it");
  }

  // One forward scan: opens every table, and must equal the model.
  void ScanAll() {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    auto want = model_.begin();
    for (it->SeekToFirst(); it->Valid() && failure_.property.empty(); it->Next()) {
      engine_ops_++;
      const std::string key = it->key().ToString();
      const std::string value = it->value().ToString();
      if (want == model_.end() || want->first != key || want->second != value) {
        const std::string* expected = want == model_.end() ? nullptr : &want->second;
        return Fail(kReads, key, Show(expected), Show(&value), "the scan disagrees with the model");
      }
      ++want;
    }
    Check(it->status(), "Iterator");
    if (failure_.property.empty() && want != model_.end()) {
      Fail(kReads, want->first, Show(&want->second), "<absent>", "the scan ended early");
    }
  }

  void RunReaders(int gets_per_reader, const char* name) {
    std::vector<std::unique_ptr<Thread>> tasks;
    for (int r = 0; r < drawn_.readers; r++) {
      tasks.push_back(sim_.runtime()->StartThread(
          absl::StrCat(name, r), [this, gets_per_reader] { Reader(gets_per_reader); }));
    }
    for (auto& t : tasks) t->Join();
  }

  void Reader(int gets) {
    sim::ChoiceTape& rng = *sim_.rng();
    const uint64_t space = 2 * static_cast<uint64_t>(drawn_.keys);
    for (int i = 0; i < gets && failure_.property.empty(); i++, ops_++) {
      // Mostly keys the fill wrote (as the study read old data), some of
      // them since deleted; one in 8 from the whole key space.
      const std::string key = rng.OneIn(8) || written_.empty()
                                  ? KeyOf(rng.Uniform(space))
                                  : written_[rng.Uniform(written_.size())];
      std::string value;
      const Status s = db_->Get(ReadOptions(), key, &value);
      engine_ops_++;
      if (!s.ok() && !s.IsNotFound()) return (void)Check(s, "Get");
      const auto want = model_.find(key);
      const std::string* expected = want == model_.end() ? nullptr : &want->second;
      const std::string* observed = s.ok() ? &value : nullptr;
      if ((expected == nullptr) != (observed == nullptr) ||
          (expected != nullptr && *expected != *observed)) {
        return Fail(kReads, key, Show(expected), Show(observed), "a Get disagrees with the model");
      }
    }
  }

  bool Check(const Status& s, const char* call) {
    if (s.ok()) return true;
    Fail(kNoErrors, "", "OK", s.ToString(), std::string(call) + " failed");
    return false;
  }

  void Fail(const std::string& property, const std::string& key, const std::string& expected,
            const std::string& observed, const std::string& message) {
    if (!failure_.property.empty()) return;
    failure_ = Failure{property, key, expected, observed, sim_.steps(), message};
  }

  const RunConfig config_;
  RunResult* const result_;
  sim::Simulation sim_;
  Drawn drawn_;
  std::unique_ptr<sim::SimDisk> disk_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;  // what the fill left
  std::vector<std::string> written_;          // every key the fill Put, in order
  uint64_t files_ = 0;
  Failure failure_;
  uint64_t ops_ = 0;
  uint64_t engine_ops_ = 0;
};

class TableCache final : public Scenario {
 public:
  const char* name() const override { return "table-cache"; }
  const char* summary() const override {
    return "the Get-cost study in simulated time: table-reader opens, system calls and Get/s "
           "as max_open_files varies, for RocksDB 5.9's open path and Shale's";
  }
  std::vector<std::string> properties() const override {
    return {kReads, kStayOpen, kBounded, kNoErrors, "deadlock", "engine assertion", "simulation"};
  }
  bool in_all() const override { return false; }  // a study: run when named
  RunResult Run(const RunConfig& config) const override {
    return RunScenario<TableCacheRun>(name(), config);
  }
};

}  // namespace

const Scenario* TableCacheScenario() {
  static const auto* const scenario = new TableCache();
  return scenario;
}

}  // namespace shale::scenario
