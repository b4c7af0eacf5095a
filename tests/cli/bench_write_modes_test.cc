// `shale bench` write-path flags (--allow_concurrent_memtable_write,
// --enable_pipelined_write, --unordered_write, --two_write_queues,
// --transaction_db, --txn_skip_concurrency_control) and multi-writer fills:
// the flags parse into BenchConfig and reach the engine's Options, bad
// values and combinations exit 2 with one line, the header names the mode
// and the DB kind, and fillrandom
// with --threads=N runs N concurrent writers, each writing --num keys in
// batches of --batch_size (db_bench's meaning).
//
// Every case is tiny (a few thousand writes) so the file runs in well
// under a second.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_flags.h"
#include "bench_report.h"
#include "bench_runner.h"
#include "cli_test_support.h"
#include "command_table.h"
#include "common/temp_dir.h"
#include "kv_store.h"
#include "workloads.h"

using namespace shale;
using namespace shale::cli;
using namespace shale::cli::testing;

namespace {

CliRun Run(std::vector<std::string> args) { return RunParseOnlyBench(std::move(args)); }

bench::BenchConfig Parse(const std::vector<std::string>& args) { return ParseBench(args); }

// A KvStore that only records the Write calls. Each thread's first Write
// waits (up to 5 s) until `writers` threads are inside Write at once, so
// the workload passes only if its writers really run concurrently.
class RecordingStore final : public bench::KvStore {
 public:
  explicit RecordingStore(int writers) : writers_(writers) {}

  std::string_view name() const override { return "Recording"; }
  std::string Notes(const bench::KvOptions&) const override { return ""; }
  Status Destroy(const std::string&) override { return Status::OK(); }
  Status Open(const std::string&, const bench::KvOptions&) override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  Status Put(const Slice&, const Slice&) override { return Status::NotSupported("Put"); }
  Status Get(const Slice&, std::string*) override { return Status::NotFound(); }
  std::unique_ptr<bench::KvCursor> NewCursor() override { return nullptr; }
  std::string StatsText() override { return ""; }
  Status CompactAll() override { return Status::OK(); }

  Status Write(std::span<const bench::KvPair> pairs) override {
    std::unique_lock<std::mutex> lock(mu_);
    ThreadLog& log = logs_[std::this_thread::get_id()];
    log.batch_sizes.push_back(pairs.size());
    for (const bench::KvPair& p : pairs) log.keys.push_back(p.key.ToString());
    max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
    if (log.batch_sizes.size() == 1) {
      ++arrived_;
      all_arrived_.notify_all();
      all_arrived_.wait_for(lock, std::chrono::seconds(5), [this] { return arrived_ >= writers_; });
    }
    --in_flight_;
    return Status::OK();
  }

  struct ThreadLog {
    std::vector<size_t> batch_sizes;
    std::vector<std::string> keys;
  };
  // Read only after the workload has returned (its threads are joined).
  const std::map<std::thread::id, ThreadLog>& logs() const { return logs_; }
  int max_in_flight() const { return max_in_flight_; }

 private:
  const int writers_;
  std::mutex mu_;
  std::condition_variable all_arrived_;
  std::map<std::thread::id, ThreadLog> logs_;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
  int arrived_ = 0;
};

}  // namespace

TEST_CASE("write-path bench flags parse with db_bench's defaults", "[cli][bench]") {
  const bench::BenchConfig defaults = Parse({});
  REQUIRE(defaults.allow_concurrent_memtable_write);
  REQUIRE_FALSE(defaults.enable_pipelined_write);
  REQUIRE_FALSE(defaults.unordered_write);
  REQUIRE_FALSE(defaults.two_write_queues);
  REQUIRE_FALSE(defaults.transaction_db);
  REQUIRE_FALSE(defaults.txn_skip_concurrency_control);

  const bench::BenchConfig unordered = Parse({"--unordered_write"});
  REQUIRE(unordered.unordered_write);
  REQUIRE(unordered.allow_concurrent_memtable_write);

  const bench::BenchConfig pipelined =
      Parse({"--enable_pipelined_write=true", "--allow_concurrent_memtable_write=false"});
  REQUIRE(pipelined.enable_pipelined_write);
  REQUIRE_FALSE(pipelined.allow_concurrent_memtable_write);
  REQUIRE_FALSE(pipelined.unordered_write);

  const bench::BenchConfig off =
      Parse({"--allow_concurrent_memtable_write=0", "--unordered_write=1"});
  REQUIRE_FALSE(off.allow_concurrent_memtable_write);
  REQUIRE(off.unordered_write);

  const bench::BenchConfig txn =
      Parse({"--transaction_db", "--unordered_write", "--two_write_queues=true",
             "--txn_skip_concurrency_control=1"});
  REQUIRE(txn.transaction_db);
  REQUIRE(txn.unordered_write);
  REQUIRE(txn.two_write_queues);
  REQUIRE(txn.txn_skip_concurrency_control);

  // Each on its own where it stands alone.
  REQUIRE(Parse({"--two_write_queues"}).two_write_queues);
  REQUIRE_FALSE(Parse({"--two_write_queues"}).transaction_db);
  REQUIRE(Parse({"--transaction_db"}).transaction_db);
  REQUIRE(Parse({"--transaction_db", "--enable_pipelined_write"}).transaction_db);

  const std::string usage = BenchUsage();
  for (const char* flag :
       {"--allow_concurrent_memtable_write", "--enable_pipelined_write", "--unordered_write",
        "--two_write_queues", "--transaction_db", "--txn_skip_concurrency_control"}) {
    REQUIRE(usage.find(flag) != std::string::npos);
  }
}

TEST_CASE("bad write-path bench flags exit 2 with one line", "[cli][bench]") {
  RequireOneErrorLine(Run({"bench", "--unordered_write=maybe"}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--enable_pipelined_write=yes"}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--allow_concurrent_memtable_write="}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--unordered_writes"}), "unknown flag --unordered_writes");
  RequireOneErrorLine(Run({"bench", "--unordered_write", "--enable_pipelined_write"}),
                      "cannot be combined");
  RequireOneErrorLine(Run({"bench", "--two_write_queues=2"}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--transaction_db=yes"}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--transaction_dbs"}), "unknown flag --transaction_dbs");
  RequireOneErrorLine(Run({"bench", "--two_write_queues", "--enable_pipelined_write"}),
                      "--two_write_queues cannot be combined with --enable_pipelined_write");
  RequireOneErrorLine(
      Run({"bench", "--transaction_db", "--two_write_queues", "--enable_pipelined_write"}),
      "--two_write_queues cannot be combined with --enable_pipelined_write");
  RequireOneErrorLine(Run({"bench", "--transaction_db", "--unordered_write"}),
                      "--transaction_db with --unordered_write needs --two_write_queues");
  RequireOneErrorLine(
      Run({"bench", "--transaction_db", "--unordered_write", "--two_write_queues=false"}),
      "needs --two_write_queues");
  RequireOneErrorLine(Run({"bench", "--txn_skip_concurrency_control"}),
                      "--txn_skip_concurrency_control needs --transaction_db");
}

TEST_CASE("the bench header names the write path, except for LevelDB alone", "[cli][bench]") {
  bench::BenchConfig config = Parse({"--unordered_write", "--allow_concurrent_memtable_write"});
  std::ostringstream shale_header;
  bench::PrintHeader(config, shale_header);
  REQUIRE(shale_header.str().find("WritePath:  allow_concurrent_memtable_write=1 "
                                  "enable_pipelined_write=0 unordered_write=1 "
                                  "two_write_queues=0 db=DB\n") != std::string::npos);
  config = Parse({"--unordered_write", "--two_write_queues", "--transaction_db"});
  std::ostringstream txn_header;
  bench::PrintHeader(config, txn_header);
  REQUIRE(txn_header.str().find("WritePath:  allow_concurrent_memtable_write=1 "
                                "enable_pipelined_write=0 unordered_write=1 "
                                "two_write_queues=1 db=TransactionDB(WritePrepared)\n") !=
          std::string::npos);
  config.txn_skip_concurrency_control = true;
  std::ostringstream no_locks_header;
  bench::PrintHeader(config, no_locks_header);
  REQUIRE(no_locks_header.str().find("db=TransactionDB(WritePrepared, no locks)\n") !=
          std::string::npos);
  config.engine = "leveldb";
  std::ostringstream leveldb_header;
  bench::PrintHeader(config, leveldb_header);
  REQUIRE(leveldb_header.str().find("WritePath") == std::string::npos);
}

TEST_CASE("fillrandom --threads=N runs N concurrent writers of --num keys each", "[cli][bench]") {
  bench::BenchConfig config = Parse({"--num=2000", "--threads=3", "--batch_size=8"});
  RecordingStore store(3);
  const bench::BenchResult r = bench::RunWorkload("fillrandom", &store, config, /*seed=*/7);
  REQUIRE(r.status.ok());
  REQUIRE(r.ops == 3 * 2000);
  REQUIRE(r.bytes == 3 * 2000 * (16 + 100));
  REQUIRE(store.max_in_flight() == 3);
  REQUIRE(store.logs().size() == 3);
  std::vector<std::vector<std::string>> sequences;
  for (const auto& [id, log] : store.logs()) {
    // 2000 keys in batches of 8: 250 full batches.
    REQUIRE(log.batch_sizes.size() == 250);
    REQUIRE(std::all_of(log.batch_sizes.begin(), log.batch_sizes.end(),
                        [](size_t n) { return n == 8; }));
    REQUIRE(log.keys.size() == 2000);
    for (const std::string& key : log.keys) {
      REQUIRE(key.size() == 16);
      REQUIRE(std::stoull(key) < 2000);
    }
    sequences.push_back(log.keys);
  }
  // Each thread draws its own key sequence.
  REQUIRE(sequences[0] != sequences[1]);
  REQUIRE(sequences[1] != sequences[2]);

  // A count that is not a multiple of the batch: the last batch is short.
  config = Parse({"--num=21", "--threads=2", "--batch_size=8"});
  RecordingStore uneven(2);
  REQUIRE(bench::RunWorkload("fillrandom", &uneven, config, 7).ops == 2 * 21);
  for (const auto& [id, log] : uneven.logs()) {
    REQUIRE(log.batch_sizes == std::vector<size_t>{8, 8, 5});
  }
}

TEST_CASE("a tiny multi-writer fillrandom on Shale completes in every write mode", "[cli][bench]") {
  const std::vector<std::string> mode =
      GENERATE(std::vector<std::string>{}, std::vector<std::string>{"--unordered_write"},
               std::vector<std::string>{"--enable_pipelined_write"},
               std::vector<std::string>{"--allow_concurrent_memtable_write=false"});
  std::vector<std::string> args = {"--num=2000", "--threads=3", "--batch_size=8"};
  args.insert(args.end(), mode.begin(), mode.end());
  const bench::BenchConfig config = Parse(args);
  INFO("mode: " << (mode.empty() ? "default" : mode[0]));

  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  std::unique_ptr<bench::KvStore> store;
  REQUIRE(bench::NewKvStore("shale", &store).ok());
  bench::KvOptions options;
  options.allow_concurrent_memtable_write = config.allow_concurrent_memtable_write;
  options.enable_pipelined_write = config.enable_pipelined_write;
  options.unordered_write = config.unordered_write;
  REQUIRE(store->Open(dir.Child("db"), options).ok());
  const bench::BenchResult r = bench::RunWorkload("fillrandom", store.get(), config, 11);
  REQUIRE(r.status.ok());
  REQUIRE(r.ops == 3 * 2000);

  // Every write is in: distinct keys, all in [0, num). 6000 uniform draws
  // from 2000 keys leave about 2000 * (1 - e^-3) ~ 1900 distinct ones.
  std::set<std::string> keys;
  std::unique_ptr<bench::KvCursor> cursor = store->NewCursor();
  for (cursor->SeekToFirst(); cursor->Valid(); cursor->Next()) {
    keys.insert(cursor->key().ToString());
    REQUIRE(cursor->value().size() == 100);
  }
  REQUIRE(cursor->status().ok());
  cursor.reset();
  REQUIRE(keys.size() > 1800);
  REQUIRE(keys.size() <= 2000);
  REQUIRE(std::stoull(*keys.rbegin()) < 2000);
  REQUIRE(store->Close().ok());
}

TEST_CASE("shale bench runs a tiny unordered multi-writer fillrandom end to end", "[cli][bench]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  const bench::BenchConfig config =
      Parse({"--benchmarks=fillrandom", "--num=2000", "--threads=3", "--batch_size=8",
             "--unordered_write", "--db=" + dir.Child("db")});
  std::ostringstream out, err;
  REQUIRE(bench::RunBench(config, out, err) == kExitOk);
  INFO("stdout: " << out.str());
  REQUIRE(err.str().empty());
  REQUIRE(out.str().find("Threads:    3\n") != std::string::npos);
  REQUIRE(out.str().find("batch_size=8") != std::string::npos);
  REQUIRE(out.str().find("unordered_write=1") != std::string::npos);
  REQUIRE(out.str().find("\nfillrandom   : ") != std::string::npos);
}

TEST_CASE("shale bench runs a tiny fillrandom through a WritePrepared TransactionDB",
          "[cli][bench]") {
  const std::vector<std::string> mode =
      GENERATE(std::vector<std::string>{"--unordered_write", "--two_write_queues"},
               std::vector<std::string>{"--unordered_write", "--two_write_queues",
                                        "--txn_skip_concurrency_control"},
               std::vector<std::string>{"--two_write_queues"}, std::vector<std::string>{});
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  std::vector<std::string> args = {"--benchmarks=fillrandom,readrandom",
                                   "--num=200",
                                   "--threads=2",
                                   "--batch_size=8",
                                   "--transaction_db",
                                   "--db=" + dir.Child("db")};
  args.insert(args.end(), mode.begin(), mode.end());
  const bench::BenchConfig config = Parse(args);
  std::ostringstream out, err;
  const int code = bench::RunBench(config, out, err);
  INFO("stdout: " << out.str() << "\nstderr: " << err.str());
  REQUIRE(code == kExitOk);
  REQUIRE(err.str().empty());
  const std::string expected_db = config.txn_skip_concurrency_control
                                      ? "db=TransactionDB(WritePrepared, no locks)\n"
                                      : "db=TransactionDB(WritePrepared)\n";
  REQUIRE(out.str().find(expected_db) != std::string::npos);
  REQUIRE(out.str().find(config.two_write_queues ? "two_write_queues=1" : "two_write_queues=0") !=
          std::string::npos);
  REQUIRE(out.str().find("\nfillrandom   : ") != std::string::npos);
  // readrandom runs on the DB fillrandom left (2 threads * 200 draws of 200
  // keys leave ~173 distinct ones), so most reads find their key.
  REQUIRE(out.str().find("\nreadrandom   : ") != std::string::npos);
  REQUIRE(out.str().find(" of 400 found)") != std::string::npos);
}

TEST_CASE("a TransactionDB the engine refuses to open is one error line and exit 2",
          "[cli][bench]") {
  // The parser refuses this combination; build it by hand to reach the
  // engine's own check (TransactionDB::Open: WritePrepared with
  // unordered_write needs two_write_queues).
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  bench::BenchConfig config =
      Parse({"--benchmarks=fillrandom", "--num=10", "--transaction_db", "--db=" + dir.Child("db")});
  config.unordered_write = true;
  std::ostringstream out, err;
  const int code = bench::RunBench(config, out, err);
  const std::string error = err.str();
  INFO("stderr: " << error);
  REQUIRE(code == kExitUsage);
  REQUIRE(std::count(error.begin(), error.end(), '\n') == 1);
  REQUIRE(error.rfind("shale: cannot open Shale DB at ", 0) == 0);
  REQUIRE(out.str().find("\nfillrandom") == std::string::npos);
}

TEST_CASE("RocksDB's store runs --transaction_db too, when it is built in", "[cli][bench]") {
  if (!bench::CompareEnginesBuilt()) {
    WARN("built without SHALE_BENCH_COMPARE: no RocksDB store to run");
    return;
  }
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  bench::BenchConfig config = Parse(
      {"--engine=rocksdb", "--benchmarks=fillrandom", "--num=200", "--threads=2", "--batch_size=8",
       "--transaction_db", "--unordered_write", "--two_write_queues", "--db=" + dir.Child("db")});
  std::ostringstream out, err;
  REQUIRE(bench::RunBench(config, out, err) == kExitOk);
  INFO("stdout: " << out.str());
  REQUIRE(err.str().empty());
  REQUIRE(out.str().find("two_write_queues=1 db=TransactionDB(WritePrepared)\n") !=
          std::string::npos);
  REQUIRE(out.str().find("\nfillrandom   : ") != std::string::npos);

  // RocksDB refuses WritePrepared + unordered_write without two_write_queues
  // as Shale does: one line, exit 2.
  config.two_write_queues = false;
  std::ostringstream refused_out, refused_err;
  REQUIRE(bench::RunBench(config, refused_out, refused_err) == kExitUsage);
  const std::string error = refused_err.str();
  INFO("stderr: " << error);
  REQUIRE(std::count(error.begin(), error.end(), '\n') == 1);
  REQUIRE(error.rfind("shale: cannot open RocksDB DB at ", 0) == 0);
}
