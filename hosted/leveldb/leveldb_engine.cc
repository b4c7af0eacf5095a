// LevelDB as a scenario engine: see leveldb_engine.h.
#include "hosted/leveldb/leveldb_engine.h"

#include <string>
#include <utility>

#include "hosted/leveldb/leveldb_db.h"

namespace shale::hosted {

namespace {

struct DrawnLevelDb final : public scenario::HostedOptions {
  LevelDbOptions options;
};

class LevelDbHostedEngine final : public scenario::HostedEngine {
 public:
  const char* name() const override { return "leveldb"; }
  std::string version() const override { return LevelDbVersion(); }

  scenario::EngineOffers offers() const override {
    scenario::EngineOffers o;
    o.flush = false;     // no DB::Flush in LevelDB's API
    o.sync_wal = false;  // no SyncWAL: a sync write is the barrier
    o.skip_wal = false;  // every write goes to the log
    o.transactions = false;
    o.close_flushes = false;  // closing leaves the memtable in the log
    return o;
  }

  Status Prepare() const override { return PrepareLevelDbHosting(); }

  const scenario::PromiseTable& promises() const override { return promises_; }

  std::map<std::string, std::string> PinnableOptions() const override {
    return {{"leveldb.paranoid_checks", "true|false"},
            {"leveldb.reuse_logs", "true|false"},
            {"leveldb.compression", "snappy|none"}};
  }

  std::unique_ptr<scenario::HostedOptions> Draw(
      sim::ChoiceTape* rng, const std::map<std::string, std::string>& pins,
      std::map<std::string, std::string>* described) const override {
    auto drawn = std::make_unique<DrawnLevelDb>();
    LevelDbOptions& o = drawn->options;
    o.write_buffer_size = size_t{64} << 10 << rng->Uniform(3);  // 64..256 KiB
    o.max_file_size = size_t{1} << 20 << rng->Uniform(2);       // 1..2 MiB
    o.block_size = size_t{1} << 10 << rng->Uniform(4);          // 1..8 KiB
    o.block_restart_interval = 1 + static_cast<int>(rng->Uniform(32));
    o.snappy_compression = rng->OneIn(2);
    o.max_open_files = rng->OneIn(2) ? 1000 : 74 + static_cast<int>(rng->Uniform(100));
    o.bloom_bits_per_key = rng->OneIn(2) ? 10 : 0;
    o.block_cache_bytes = rng->OneIn(2) ? 0 : size_t{8} << 10 << rng->Uniform(7);
    o.paranoid_checks = rng->OneIn(2);
    o.reuse_logs = rng->OneIn(2);
    for (const auto& [name, value] : pins) {
      if (name == "leveldb.paranoid_checks") o.paranoid_checks = value == "true";
      if (name == "leveldb.reuse_logs") o.reuse_logs = value == "true";
      if (name == "leveldb.compression") o.snappy_compression = value == "snappy";
    }
    auto& m = *described;
    m["leveldb.write_buffer_size"] = std::to_string(o.write_buffer_size);
    m["leveldb.max_file_size"] = std::to_string(o.max_file_size);
    m["leveldb.block_size"] = std::to_string(o.block_size);
    m["leveldb.block_restart_interval"] = std::to_string(o.block_restart_interval);
    m["leveldb.compression"] = o.snappy_compression ? "snappy" : "none";
    m["leveldb.max_open_files"] = std::to_string(o.max_open_files);
    m["leveldb.bloom_bits_per_key"] = std::to_string(o.bloom_bits_per_key);
    m["leveldb.block_cache_bytes"] =
        o.block_cache_bytes == 0 ? "default (8 MiB)" : std::to_string(o.block_cache_bytes);
    m["leveldb.paranoid_checks"] = scenario::OptionText(o.paranoid_checks);
    m["leveldb.reuse_logs"] = scenario::OptionText(o.reuse_logs);
    return drawn;
  }

  Status Open(const scenario::HostedOptions& options, Env* env, const std::string& path,
              std::unique_ptr<DB>* db) const override {
    LevelDbOptions o = static_cast<const DrawnLevelDb&>(options).options;
    o.planted_bugs = options.planted_bugs;
    o.info_log_trace = options.info_log_trace;
    return LevelDbDb::Open(o, env, path, db);
  }

  // LevelDB's documentation: with paranoid_checks off "the database can be
  // used even if parts of its persistent storage have been corrupted"; an
  // operator whose paranoid Open refuses a log a power loss tore reopens
  // without it. Its log reader's Corruption names no file, so the proof is
  // that a power loss tore a log since and that the error is one that
  // reader reports.
  bool RelaxAfterRefusal(const Status& s, const scenario::CrashedLogs& logs,
                         scenario::HostedOptions* options, std::string* why) const override {
    LevelDbOptions& o = static_cast<DrawnLevelDb*>(options)->options;
    if (!o.paranoid_checks || !s.IsCorruption() || logs.torn.empty()) return false;
    static const char* const kLogReaderErrors[] = {
        "checksum mismatch",          "bad record length",
        "partial record without end", "missing start of fragmented record",
        "unknown record type",        "error in middle of record",
    };
    const std::string text = s.ToString();
    bool from_log_reader = false;
    for (const char* error : kLogReaderErrors) {
      from_log_reader = from_log_reader || text.find(error) != std::string::npos;
    }
    if (!from_log_reader) return false;
    o.paranoid_checks = false;
    *why = "reopening with paranoid_checks off, as LevelDB's documentation advises";
    return true;
  }

  scenario::PromiseTable promises_;
};

}  // namespace

const scenario::HostedEngine& LevelDbEngine() {
  static const LevelDbHostedEngine* const engine = [] {
    auto* e = new LevelDbHostedEngine();
    e->promises_ = scenario::PromiseTable::ParseCompiledIn(LevelDbPromisesTsv(),
                                                           "hosted/leveldb/promises.tsv");
    return e;
  }();
  return *engine;
}

void RegisterLevelDbEngine() { scenario::RegisterHostedEngine(&LevelDbEngine()); }

}  // namespace shale::hosted
