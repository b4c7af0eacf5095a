// RocksDB as a scenario engine: see rocksdb_engine.h.
#include "hosted/rocksdb/rocksdb_engine.h"

#include <rocksdb/convenience.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "hosted/rocksdb/rocksdb_db.h"

namespace shale::hosted {

namespace {

// The WAL files the info log of the latest Open said it dropped bytes of
// while setting the recovery's error (LogReporter::Corruption's "<file>:
// dropping N bytes; <error>" lines, not those "(ignoring error)"): the
// log a recovery mode refused. At most kMax names.
struct RefusedLogs {
  static constexpr size_t kMax = 16;
  std::set<std::string> paths;

  void Note(const std::string& line) {
    static constexpr char kDropping[] = ": dropping ";
    const size_t at = line.find(kDropping);
    if (at == std::string::npos || line.find("(ignoring error)") != std::string::npos) return;
    const size_t space = line.rfind(' ', at);
    const size_t start = space == std::string::npos ? 0 : space + 1;
    const std::string path = line.substr(start, at - start);
    const bool is_log = path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0;
    if (is_log && paths.size() < kMax) paths.insert(path);
  }
};

struct DrawnRocksDb final : public scenario::HostedOptions {
  RocksDbOptions options;
  // Opens so far: each Open's DB identity and session ids are its own, as
  // each real process draws new ones.
  mutable uint64_t opens = 0;
  // What the latest Open's info log said it dropped (shared with that
  // Open's logger, which a crashed DB leaks).
  mutable std::shared_ptr<RefusedLogs> refused = std::make_shared<RefusedLogs>();
};

struct RecoveryMode {
  const char* name;
  rocksdb::WALRecoveryMode mode;
};
// Skip-any is not drawn: it reads on past a damaged record, and the
// oracle's view of which writes that may skip needs the engine's own
// records (Shale's engine only).
constexpr RecoveryMode kRecoveryModes[] = {
    {"kTolerateCorruptedTailRecords", rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords},
    {"kAbsoluteConsistency", rocksdb::WALRecoveryMode::kAbsoluteConsistency},
    {"kPointInTimeRecovery", rocksdb::WALRecoveryMode::kPointInTimeRecovery}};

const char* RecoveryModeName(rocksdb::WALRecoveryMode mode) {
  for (const RecoveryMode& m : kRecoveryModes) {
    if (m.mode == mode) return m.name;
  }
  return "?";
}

struct Compression {
  const char* name;
  rocksdb::CompressionType type;
};
constexpr Compression kCompressions[] = {{"none", rocksdb::kNoCompression},
                                         {"snappy", rocksdb::kSnappyCompression},
                                         {"lz4", rocksdb::kLZ4Compression},
                                         {"zstd", rocksdb::kZSTD}};

const char* CompressionName(rocksdb::CompressionType type) {
  for (const Compression& c : kCompressions) {
    if (c.type == type) return c.name;
  }
  return "?";
}

// Memtables, the write path and the log; *transactions: whether the run
// asks for a write-committed TransactionDB.
void DrawWritePath(sim::ChoiceTape* rng, rocksdb::Options* o, bool* transactions) {
  o->write_buffer_size = size_t{64} << 10 << rng->Uniform(3);  // 64..256 KiB
  o->max_write_buffer_number = 2 + static_cast<int>(rng->Uniform(3));
  o->min_write_buffer_number_to_merge =
      1 + static_cast<int>(rng->Uniform(static_cast<uint64_t>(o->max_write_buffer_number - 1)));
  o->allow_concurrent_memtable_write = !rng->OneIn(4);
  o->enable_write_thread_adaptive_yield = !rng->OneIn(4);
  // One draw of eight values: a quarter of the runs write pipelined (the
  // top two bits); the low bit is kept for asking for transactions, so
  // that drawing them will leave a seed's other draws as they are. Until
  // the faults-on campaigns with transactions are triaged, they run only
  // where pinned (rocksdb.transactions=true).
  const uint64_t pipelined_and_txn = rng->Uniform(8);
  o->enable_pipelined_write = pipelined_and_txn >> 1 == 3;
  *transactions = false;
  // Half the runs in RocksDB's default mode, a quarter each in the two
  // that refuse what they find damaged; independently, half keep the log's
  // records in RocksDB's buffer until FlushWAL (manual_wal_flush). One
  // draw of eight values gives both (the mode is its top two bits), so a
  // seed's recovery mode is what it was before manual_wal_flush was drawn.
  const uint64_t mode_and_flush = rng->Uniform(8);
  o->wal_recovery_mode = kRecoveryModes[std::min<uint64_t>(mode_and_flush >> 1, 2)].mode;
  o->manual_wal_flush = (mode_and_flush & 1) != 0;
  // recycle_log_file_num stays 0: SanitizeOptions turns recycling off in
  // every recovery mode but skip-any (db_impl_open.cc), which is not drawn.
  o->recycle_log_file_num = 0;
  o->wal_compression = rng->OneIn(4) ? rocksdb::kZSTD : rocksdb::kNoCompression;
  o->wal_bytes_per_sync = rng->OneIn(4) ? uint64_t{32} << 10 : 0;
  o->track_and_verify_wals_in_manifest = rng->OneIn(4);
  // avoid_flush_during_recovery stays off (RocksDB's default): with it on,
  // the recovered memtables stay in the old logs, unsynced, so the state a
  // recovery returns is not durable, and the oracle still treats every
  // recovered state as the floor of the next check (docs/hosting_rocksdb.md).
  o->avoid_flush_during_recovery = false;
}

// Files, syncs and checks.
void DrawFiles(sim::ChoiceTape* rng, rocksdb::Options* o) {
  o->use_fsync = rng->OneIn(2);
  o->allow_fallocate = !rng->OneIn(4);
  o->bytes_per_sync = rng->OneIn(4) ? uint64_t{32} << 10 : 0;
  if (rng->OneIn(4)) o->max_manifest_file_size = uint64_t{4} << 10 << rng->Uniform(4);
  // Below any descriptor limit, so RocksDB never clips it to getrlimit's.
  o->max_open_files = rng->OneIn(2) ? -1 : 20 + static_cast<int>(rng->Uniform(200));
  o->max_file_opening_threads = 1 + static_cast<int>(rng->Uniform(16));
  o->paranoid_checks = !rng->OneIn(4);
  o->paranoid_file_checks = rng->OneIn(4);
}

void DrawCompaction(sim::ChoiceTape* rng, rocksdb::Options* o) {
  o->compaction_style =
      rng->OneIn(4) ? rocksdb::kCompactionStyleUniversal : rocksdb::kCompactionStyleLevel;
  o->level0_file_num_compaction_trigger = 2 + static_cast<int>(rng->Uniform(7));
  o->target_file_size_base = uint64_t{64} << 10 << rng->Uniform(4);      // 64..512 KiB
  o->max_bytes_for_level_base = uint64_t{256} << 10 << rng->Uniform(4);  // 256 KiB..2 MiB
  o->level_compaction_dynamic_level_bytes =
      o->compaction_style == rocksdb::kCompactionStyleLevel && rng->OneIn(3);
  o->max_background_jobs = 1 + static_cast<int>(rng->Uniform(4));
  o->max_subcompactions = 1 + static_cast<uint32_t>(rng->Uniform(3));
  o->disable_auto_compactions = rng->OneIn(8);
  o->compression = kCompressions[rng->Uniform(std::size(kCompressions))].type;
}

void DrawTable(sim::ChoiceTape* rng, RocksDbOptions* d) {
  rocksdb::BlockBasedTableOptions& t = d->table;
  t.block_size = size_t{1} << 10 << rng->Uniform(5);  // 1..16 KiB
  t.block_restart_interval = 1 + static_cast<int>(rng->Uniform(32));
  t.format_version = 2 + static_cast<uint32_t>(rng->Uniform(4));  // 2..5
  static constexpr rocksdb::ChecksumType kChecksums[] = {rocksdb::kCRC32c, rocksdb::kxxHash,
                                                         rocksdb::kxxHash64, rocksdb::kXXH3};
  t.checksum = kChecksums[rng->Uniform(std::size(kChecksums))];
  t.index_type = rng->OneIn(4) ? rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch
                               : rocksdb::BlockBasedTableOptions::kBinarySearch;
  t.cache_index_and_filter_blocks = rng->OneIn(3);
  t.whole_key_filtering = !rng->OneIn(4);
  d->bloom_bits_per_key = rng->OneIn(2) ? 10 : 0;
  d->block_cache_bytes = rng->OneIn(2) ? 0 : size_t{64} << 10 << rng->Uniform(6);
}

void ApplyPins(const std::map<std::string, std::string>& pins, rocksdb::Options* o,
               bool* transactions) {
  for (const auto& [name, value] : pins) {
    if (name == "rocksdb.transactions") *transactions = value == "true";
    for (const RecoveryMode& m : kRecoveryModes) {
      if (name == "rocksdb.wal_recovery_mode" && value == m.name) o->wal_recovery_mode = m.mode;
    }
    if (name == "rocksdb.wal_compression") {
      o->wal_compression = value == "zstd" ? rocksdb::kZSTD : rocksdb::kNoCompression;
    }
    if (name == "rocksdb.track_and_verify_wals_in_manifest") {
      o->track_and_verify_wals_in_manifest = value == "true";
    }
    if (name == "rocksdb.enable_pipelined_write") o->enable_pipelined_write = value == "true";
    if (name == "rocksdb.paranoid_checks") o->paranoid_checks = value == "true";
    if (name == "rocksdb.manual_wal_flush") o->manual_wal_flush = value == "true";
  }
}

void DescribeDb(const rocksdb::Options& o, std::map<std::string, std::string>* described) {
  auto& m = *described;
  m["rocksdb.write_buffer_size"] = std::to_string(o.write_buffer_size);
  m["rocksdb.max_write_buffer_number"] = std::to_string(o.max_write_buffer_number);
  m["rocksdb.min_write_buffer_number_to_merge"] =
      std::to_string(o.min_write_buffer_number_to_merge);
  m["rocksdb.allow_concurrent_memtable_write"] =
      scenario::OptionText(o.allow_concurrent_memtable_write);
  m["rocksdb.enable_write_thread_adaptive_yield"] =
      scenario::OptionText(o.enable_write_thread_adaptive_yield);
  m["rocksdb.enable_pipelined_write"] = scenario::OptionText(o.enable_pipelined_write);
  m["rocksdb.unordered_write"] = scenario::OptionText(o.unordered_write);
  m["rocksdb.two_write_queues"] = scenario::OptionText(o.two_write_queues);
  m["rocksdb.recycle_log_file_num"] = std::to_string(o.recycle_log_file_num);
  m["rocksdb.wal_compression"] = CompressionName(o.wal_compression);
  m["rocksdb.wal_bytes_per_sync"] = std::to_string(o.wal_bytes_per_sync);
  m["rocksdb.track_and_verify_wals_in_manifest"] =
      scenario::OptionText(o.track_and_verify_wals_in_manifest);
  m["rocksdb.avoid_flush_during_recovery"] = scenario::OptionText(o.avoid_flush_during_recovery);
  m["rocksdb.wal_recovery_mode"] = RecoveryModeName(o.wal_recovery_mode);
  m["rocksdb.manual_wal_flush"] = scenario::OptionText(o.manual_wal_flush);
  m["rocksdb.use_fsync"] = scenario::OptionText(o.use_fsync);
  m["rocksdb.allow_fallocate"] = scenario::OptionText(o.allow_fallocate);
  m["rocksdb.bytes_per_sync"] = std::to_string(o.bytes_per_sync);
  m["rocksdb.max_manifest_file_size"] = std::to_string(o.max_manifest_file_size);
  m["rocksdb.max_open_files"] = std::to_string(o.max_open_files);
  m["rocksdb.max_file_opening_threads"] = std::to_string(o.max_file_opening_threads);
  m["rocksdb.paranoid_checks"] = scenario::OptionText(o.paranoid_checks);
  m["rocksdb.paranoid_file_checks"] = scenario::OptionText(o.paranoid_file_checks);
  m["rocksdb.compaction_style"] =
      o.compaction_style == rocksdb::kCompactionStyleUniversal ? "universal" : "level";
  m["rocksdb.level0_file_num_compaction_trigger"] =
      std::to_string(o.level0_file_num_compaction_trigger);
  m["rocksdb.target_file_size_base"] = std::to_string(o.target_file_size_base);
  m["rocksdb.max_bytes_for_level_base"] = std::to_string(o.max_bytes_for_level_base);
  m["rocksdb.level_compaction_dynamic_level_bytes"] =
      scenario::OptionText(o.level_compaction_dynamic_level_bytes);
  m["rocksdb.max_background_jobs"] = std::to_string(o.max_background_jobs);
  m["rocksdb.max_subcompactions"] = std::to_string(o.max_subcompactions);
  m["rocksdb.disable_auto_compactions"] = scenario::OptionText(o.disable_auto_compactions);
  m["rocksdb.compression"] = CompressionName(o.compression);
}

void DescribeTable(const RocksDbOptions& d, std::map<std::string, std::string>* described) {
  auto& m = *described;
  const rocksdb::BlockBasedTableOptions& t = d.table;
  m["rocksdb.block_size"] = std::to_string(t.block_size);
  m["rocksdb.block_restart_interval"] = std::to_string(t.block_restart_interval);
  m["rocksdb.format_version"] = std::to_string(t.format_version);
  static const char* const kChecksumNames[] = {"none", "crc32c", "xxhash", "xxhash64", "xxh3"};
  m["rocksdb.checksum"] = kChecksumNames[t.checksum];
  m["rocksdb.index_type"] = t.index_type == rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch
                                ? "two-level"
                                : "binary-search";
  m["rocksdb.cache_index_and_filter_blocks"] =
      scenario::OptionText(t.cache_index_and_filter_blocks);
  m["rocksdb.whole_key_filtering"] = scenario::OptionText(t.whole_key_filtering);
  m["rocksdb.bloom_bits_per_key"] = std::to_string(d.bloom_bits_per_key);
  m["rocksdb.block_cache_bytes"] =
      d.block_cache_bytes == 0 ? "default" : std::to_string(d.block_cache_bytes);
}

// Every compression Draw offers must be built into the loaded library.
Status CheckCompressions() {
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  for (const Compression& c : kCompressions) {
    if (c.type == rocksdb::kNoCompression) continue;
    if (std::find(supported.begin(), supported.end(), c.type) == supported.end()) {
      return Status::NotSupported(std::string("this librocksdb lacks ") + c.name);
    }
  }
  return Status::OK();
}

class RocksDbHostedEngine final : public scenario::HostedEngine {
 public:
  const char* name() const override { return "rocksdb"; }
  std::string version() const override { return RocksDbVersion(); }

  scenario::EngineOffers offers() const override {
    scenario::EngineOffers o;
    o.transactions = true;  // write-committed (UseTransactions)
    // Close flushes only what skipped the log (avoid_flush_during_shutdown
    // off): the rest stays as durable as the log made it.
    o.close_flushes = false;
    o.write_modes = true;
    return o;
  }

  Status Prepare() const override {
    Status s = PrepareRocksDbHosting();
    if (s.ok()) s = CheckCompressions();
    return s;
  }

  const scenario::PromiseTable& promises() const override { return promises_; }

  std::map<std::string, std::string> PinnableOptions() const override {
    return {{"rocksdb.wal_recovery_mode",
             "kTolerateCorruptedTailRecords|kAbsoluteConsistency|kPointInTimeRecovery"},
            {"rocksdb.wal_compression", "none|zstd"},
            {"rocksdb.track_and_verify_wals_in_manifest", "true|false"},
            {"rocksdb.enable_pipelined_write", "true|false"},
            {"rocksdb.paranoid_checks", "true|false"},
            {"rocksdb.manual_wal_flush", "true|false"},
            {"rocksdb.transactions", "true|false"}};
  }

  std::unique_ptr<scenario::HostedOptions> Draw(
      sim::ChoiceTape* rng, const std::map<std::string, std::string>& pins,
      std::map<std::string, std::string>* described) const override {
    auto drawn = std::make_unique<DrawnRocksDb>();
    RocksDbOptions& d = drawn->options;
    DrawWritePath(rng, &d.db, &drawn->transactions);
    DrawFiles(rng, &d.db);
    DrawCompaction(rng, &d.db);
    DrawTable(rng, &d);
    d.identity_seed = rng->Next64();
    ApplyPins(pins, &d.db, &drawn->transactions);
    DescribeDb(d.db, described);
    DescribeTable(d, described);
    return drawn;
  }

  Status Open(const scenario::HostedOptions& options, Env* env, const std::string& path,
              std::unique_ptr<DB>* db) const override {
    const auto& drawn = static_cast<const DrawnRocksDb&>(options);
    RocksDbOptions o = drawn.options;
    o.identity_seed = drawn.options.identity_seed * 0x9e3779b97f4a7c15ull + drawn.opens++;
    o.planted_bugs = options.planted_bugs;
    drawn.refused = std::make_shared<RefusedLogs>();
    o.info_log_trace = [trace = options.info_log_trace,
                        refused = drawn.refused](const std::string& line) {
      if (trace) trace(line);
      refused->Note(line);
    };
    return RocksDbDb::Open(o, env, path, db);
  }

  bool one_run_per_process() const override { return true; }

  // options.h:1228-1231: with manual_wal_flush the log's records wait in
  // RocksDB's buffer for FlushWAL; a sync write (FlushWAL(true),
  // db_impl_write.cc), SyncWAL, a memtable switch and Close write it too.
  scenario::WalWrites wal_writes(const scenario::HostedOptions& options) const override {
    return static_cast<const DrawnRocksDb&>(options).options.db.manual_wal_flush
               ? scenario::WalWrites::kByBarrier
               : scenario::WalWrites::kAtAck;
  }

  // The last mode through a TransactionDB with the WRITE_PREPARED policy
  // and two write queues, as options.h:1076-1078 pairs it with
  // unordered_write; its key locks stay on (skip_concurrency_control off).
  bool SetWriteMode(scenario::WriteMode mode, scenario::HostedOptions* options,
                    std::map<std::string, std::string>* described) const override {
    RocksDbOptions& d = static_cast<DrawnRocksDb*>(options)->options;
    rocksdb::Options& o = d.db;
    d.write_prepared = mode == scenario::WriteMode::kUnorderedWritePrepared;
    o.enable_pipelined_write = mode == scenario::WriteMode::kPipelined;
    o.unordered_write = mode == scenario::WriteMode::kUnordered || d.write_prepared;
    o.two_write_queues = d.write_prepared;
    // Open refuses unordered_write without concurrent memtable writes.
    if (o.unordered_write) o.allow_concurrent_memtable_write = true;
    DescribeDb(o, described);
    (*described)["rocksdb.transaction_db"] = d.write_prepared ? "WRITE_PREPARED" : "none";
    return true;
  }

  // A TransactionDB under WRITE_COMMITTED (write-prepared is offered only
  // through the unordered-write scenario's mode). RocksDB's lock timeouts
  // are in milliseconds too.
  bool UseTransactions(const TransactionDBOptions& txn,
                       scenario::HostedOptions* options) const override {
    if (txn.write_policy != TxnWritePolicy::kWriteCommitted) return false;
    RocksDbOptions& d = static_cast<DrawnRocksDb*>(options)->options;
    d.write_committed = true;
    d.transaction_lock_timeout_ms = txn.transaction_lock_timeout_ms;
    d.default_lock_timeout_ms = txn.default_lock_timeout_ms;
    return true;
  }

  // options.h:345-382: point in time refuses nothing a crash leaves;
  // tolerate-tail refuses a corruption but tolerates "the last record in
  // any log to be incomplete due to a crash", so it may refuse only a log a
  // crash left other than a clean prefix; absolute consistency expects a
  // clean shutdown and may refuse any log a crash damaged. The proof is the
  // info log's report of the log it refused. An operator reopens in point
  // in time, which stops where the damage begins.
  bool RelaxAfterRefusal(const Status& s, const scenario::CrashedLogs& logs,
                         scenario::HostedOptions* options, std::string* why) const override {
    auto* drawn = static_cast<DrawnRocksDb*>(options);
    rocksdb::Options& o = drawn->options.db;
    const bool absolute = o.wal_recovery_mode == rocksdb::WALRecoveryMode::kAbsoluteConsistency;
    if (!absolute &&
        o.wal_recovery_mode != rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords) {
      return false;
    }
    const std::set<std::string>& refusable = absolute ? logs.torn : logs.unclean;
    const std::set<std::string>& refused = drawn->refused->paths;
    if (!s.IsCorruption() || refused.empty() || refusable.empty()) return false;
    for (const std::string& path : refused) {
      if (refusable.count(path) == 0) return false;
    }
    *why =
        std::string("RocksDB's info log reports it dropped bytes of ") + *refused.begin() +
        ", which a crash damaged; reopening in kPointInTimeRecovery, as an operator would after " +
        RecoveryModeName(o.wal_recovery_mode) + " refused it";
    o.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
    return true;
  }

  scenario::PromiseTable promises_;
};

}  // namespace

const scenario::HostedEngine& RocksDbEngine() {
  static const RocksDbHostedEngine* const engine = [] {
    auto* e = new RocksDbHostedEngine();
    e->promises_ = scenario::PromiseTable::ParseCompiledIn(RocksDbPromisesTsv(),
                                                           "hosted/rocksdb/promises.tsv");
    return e;
  }();
  return *engine;
}

void RegisterRocksDbEngine() { scenario::RegisterHostedEngine(&RocksDbEngine()); }

}  // namespace shale::hosted
