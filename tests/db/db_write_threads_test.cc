// Real threads through every write mode, with waiting writers spinning
// before they block (enable_write_thread_adaptive_yield) and without:
// every acknowledged write is readable, and the sequences the writes were
// given are exactly 1..N, each once. A writer queued behind a leader ends
// its wait while spinning, and never spins when spinning is off.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/forwarding_runtime.h"
#include "common/temp_dir.h"
#include "shale/db.h"
#include "shale/write_batch.h"

using namespace shale;

namespace {

constexpr int kThreads = 4;
constexpr int kWritesPerThread = 3000;

struct WriteMode {
  const char* name;
  bool concurrent_memtable;
  bool pipelined;
  bool unordered;
  bool two_queues;
};

const WriteMode kModes[] = {
    {"serial inserts", false, false, false, false}, {"parallel inserts", true, false, false, false},
    {"pipelined", true, true, false, false},        {"unordered", true, false, true, false},
    {"two write queues", true, false, false, true},
};

// Each thread's writes: a Put, or every seventh a two-entry batch. Returns
// each write's first sequence (0 where a write failed).
std::vector<std::vector<uint64_t>> WriteFromThreads(DB* db) {
  std::vector<std::vector<uint64_t>> sequences(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([db, t, &sequences] {
      for (int i = 0; i < kWritesPerThread; i++) {
        const std::string key = "k" + std::to_string(t) + "." + std::to_string(i);
        WriteBatch batch;
        batch.Put(key, key);
        if (i % 7 == 0) batch.Put(key + "+", key);
        WriteOptions wo;
        wo.sync = i % 500 == 0;
        sequences[t].push_back(db->Write(wo, &batch).ok() ? batch.Sequence() : 0);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return sequences;
}

void CheckMode(const WriteMode& mode, bool spin) {
  INFO(mode.name << (spin ? ", spinning" : ", blocking"));
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;  // memtable switches under the writers
  o.allow_concurrent_memtable_write = mode.concurrent_memtable;
  o.enable_pipelined_write = mode.pipelined;
  o.unordered_write = mode.unordered;
  o.two_write_queues = mode.two_queues;
  o.enable_write_thread_adaptive_yield = spin;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  const std::vector<std::vector<uint64_t>> sequences = WriteFromThreads(db.get());
  // Sequences: a write with n entries takes n of them; all of 1..N are used.
  std::vector<uint64_t> used;
  for (int t = 0; t < kThreads; t++) {
    for (int i = 0; i < kWritesPerThread; i++) {
      const uint64_t first = sequences[t][i];
      REQUIRE(first != 0);
      used.push_back(first);
      if (i % 7 == 0) used.push_back(first + 1);
    }
  }
  std::sort(used.begin(), used.end());
  for (size_t i = 0; i < used.size(); i++) REQUIRE(used[i] == i + 1);
  REQUIRE(db->GetLatestSequenceNumber() == used.size());
  if (!spin) REQUIRE(db->GetStats().writer_waits_spun == 0);
  for (int t = 0; t < kThreads; t++) {
    for (int i = 0; i < kWritesPerThread; i += 13) {
      const std::string key = "k" + std::to_string(t) + "." + std::to_string(i);
      std::string value;
      REQUIRE(db->Get(ReadOptions(), key, &value).ok());
      REQUIRE(value == key);
    }
  }
  REQUIRE(db->Close().ok());
}

// The real runtime, except that it can always spin, and the first write
// group's leader holds before its WAL append until a queued writer spins.
// Both waits give up after kMaxWait (then the test fails on the counts).
class HoldLeaderRuntime final : public shale_test::ForwardingRuntime {
 public:
  using ForwardingRuntime::ForwardingRuntime;
  bool CanSpin() const override { return true; }
  bool SpinWhileEqual(const std::atomic<uint64_t>& word, uint64_t value,
                      uint64_t max_micros) override {
    (void)max_micros;  // spins until the wake-up, so the wait ends here
    spinning_.store(true);
    WaitUntil([&] { return word.load(std::memory_order_acquire) != value; });
    return word.load(std::memory_order_acquire) != value;
  }
  void YieldPoint(const char* name) override {
    if (std::strcmp(name, "write.before_wal_append") == 0 && !held_.exchange(true)) {
      WaitUntil([this] { return spinning_.load(); });
    }
    ForwardingRuntime::YieldPoint(name);
  }
  bool held() const { return held_.load(); }

 private:
  static constexpr std::chrono::seconds kMaxWait{10};
  template <typename Done>
  static void WaitUntil(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + kMaxWait;
    while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  }
  std::atomic<bool> held_{false};
  std::atomic<bool> spinning_{false};
};

}  // namespace

TEST_CASE("a writer queued behind a leader ends its wait spinning, without blocking",
          "[db][write]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Env* const real = Env::Default();
  HoldLeaderRuntime runtime(real->runtime());
  Env env(real->fs(), real->clock(), &runtime);
  Options o;
  o.create_if_missing = true;
  o.env = &env;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  Status leader_status, follower_status;
  std::thread leader([&] { leader_status = db->Put(WriteOptions(), "a", "1"); });
  while (!runtime.held()) std::this_thread::yield();
  std::thread follower([&] { follower_status = db->Put(WriteOptions(), "b", "2"); });
  leader.join();
  follower.join();
  REQUIRE(leader_status.ok());
  REQUIRE(follower_status.ok());
  const DBStats stats = db->GetStats();
  CHECK(stats.writer_waits_spun == 1);
  CHECK(stats.writer_waits_blocked == 0);
  REQUIRE(db->Close().ok());
}

TEST_CASE("writer threads get each sequence once and read back, in every write mode",
          "[db][write]") {
  for (const WriteMode& mode : kModes) {
    CheckMode(mode, /*spin=*/true);
    CheckMode(mode, /*spin=*/false);
  }
}

TEST_CASE("write_thread_max_yield_usec is bounded", "[db][write]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  o.create_if_missing = true;
  o.write_thread_max_yield_usec = 10001;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).IsInvalidArgument());
  o.write_thread_max_yield_usec = 10000;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
}
