// `shale bench` write-path flags (--allow_concurrent_memtable_write,
// --enable_pipelined_write, --unordered_write) and multi-writer fills:
// the flags parse into BenchConfig and reach the engine's Options, bad
// values exit 2 with one line, the header names the mode, and fillrandom
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

constexpr Command kTestCommands[] = {
    {"bench", "parse bench flags", ParseOnlyBench, BenchUsage},
};

CliRun Run(std::vector<std::string> args) { return DispatchTo(kTestCommands, std::move(args)); }

bench::BenchConfig Parse(const std::vector<std::string>& args) {
  bench::BenchConfig config;
  std::string error;
  const BenchParse parsed = ParseBenchFlags(args, &config, &error);
  INFO("error: " << error);
  REQUIRE(parsed == BenchParse::kRun);
  return config;
}

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

  Status Write(std::span<const bench::KvPair> pairs) override {
    std::unique_lock<std::mutex> lock(mu_);
    ThreadLog& log = logs_[std::this_thread::get_id()];
    log.batch_sizes.push_back(pairs.size());
    for (const bench::KvPair& p : pairs) log.keys.push_back(p.key.ToString());
    max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
    if (log.batch_sizes.size() == 1) {
      ++arrived_;
      all_arrived_.notify_all();
      all_arrived_.wait_for(lock, std::chrono::seconds(5),
                            [this] { return arrived_ >= writers_; });
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

  const std::string usage = BenchUsage();
  for (const char* flag : {"--allow_concurrent_memtable_write", "--enable_pipelined_write",
                           "--unordered_write"}) {
    REQUIRE(usage.find(flag) != std::string::npos);
  }
  REQUIRE(usage.find("--transaction_db") == std::string::npos);
}

TEST_CASE("bad write-path bench flags exit 2 with one line", "[cli][bench]") {
  RequireOneErrorLine(Run({"bench", "--unordered_write=maybe"}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--enable_pipelined_write=yes"}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--allow_concurrent_memtable_write="}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--unordered_writes"}), "unknown flag --unordered_writes");
  RequireOneErrorLine(Run({"bench", "--unordered_write", "--enable_pipelined_write"}),
                      "cannot be combined");
  RequireOneErrorLine(Run({"bench", "--transaction_db"}), "unknown flag --transaction_db");
}

TEST_CASE("the bench header names the write path, except for LevelDB alone", "[cli][bench]") {
  bench::BenchConfig config = Parse({"--unordered_write", "--allow_concurrent_memtable_write"});
  std::ostringstream shale_header;
  bench::PrintHeader(config, shale_header);
  REQUIRE(shale_header.str().find("WritePath:  allow_concurrent_memtable_write=1 "
                                  "enable_pipelined_write=0 unordered_write=1\n") !=
          std::string::npos);
  config.engine = "leveldb";
  std::ostringstream leveldb_header;
  bench::PrintHeader(config, leveldb_header);
  REQUIRE(leveldb_header.str().find("WritePath") == std::string::npos);
}

TEST_CASE("fillrandom --threads=N runs N concurrent writers of --num keys each",
          "[cli][bench]") {
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

TEST_CASE("a tiny multi-writer fillrandom on Shale completes in every write mode",
          "[cli][bench]") {
  const std::vector<std::string> mode = GENERATE(
      std::vector<std::string>{}, std::vector<std::string>{"--unordered_write"},
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

TEST_CASE("shale bench runs a tiny unordered multi-writer fillrandom end to end",
          "[cli][bench]") {
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
