// Close and stall edge cases: Close racing live writers loses nothing that
// was acknowledged; with auto compactions off, L0 never stalls writes.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_dir.h"
#include "shale/db.h"

using namespace shale;

TEST_CASE("Close while writers run keeps every acknowledged write", "[db][close]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 4096;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  constexpr int kThreads = 4;
  std::vector<std::vector<std::string>> acked(kThreads);
  // Each writer's first error; checked after the join (Catch's assertions
  // are not thread safe).
  std::vector<Status> ended(kThreads);
  std::atomic<bool> go{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; t++) {
    writers.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 100000; i++) {
        WriteOptions wo;
        wo.sync = i % 3 == 0;
        wo.disable_wal = !wo.sync && i % 5 == 0;  // forces Close's flush path
        const std::string key = "t" + std::to_string(t) + "." + std::to_string(i);
        Status s = db->Put(wo, key, std::string(40, 'v'));
        if (!s.ok()) {
          ended[t] = s;
          return;
        }
        acked[t].push_back(key);
      }
    });
  }
  go.store(true);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  REQUIRE(db->Close().ok());
  for (auto& w : writers) w.join();
  for (const Status& s : ended) CHECK((s.ok() || s.IsShutdownInProgress()));
  db.reset();
  REQUIRE(DB::Open(Options(), dir.Child("db"), &db).ok());
  size_t total = 0;
  for (const auto& keys : acked) {
    for (const std::string& key : keys) {
      std::string v;
      REQUIRE(db->Get(ReadOptions(), key, &v).ok());
    }
    total += keys.size();
  }
  REQUIRE(total > 0);
}

TEST_CASE("with auto compactions off, L0 never stalls writes", "[db][close]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  o.create_if_missing = true;
  o.disable_auto_compactions = true;
  o.level0_file_num_compaction_trigger = 2;
  o.level0_slowdown_writes_trigger = 3;
  o.level0_stop_writes_trigger = 4;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  for (int i = 0; i < 12; i++) {
    REQUIRE(db->Put(WriteOptions(), "k" + std::to_string(i), "v").ok());
    REQUIRE(db->Flush(FlushOptions()).ok());
  }
  std::string files;
  REQUIRE(db->GetProperty("shale.num-files-at-level0", &files));
  REQUIRE(files == "12");
  REQUIRE(db->GetStats().write_stops == 0);
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(db->GetProperty("shale.num-files-at-level0", &files));
  REQUIRE(files == "0");
}
