// Named fault points: a Runtime that fires one chosen point shows that each
// failure stops writes with a background error and that nothing
// acknowledged is lost after reopening.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>

#include "common/temp_dir.h"
#include "db/armed_runtime.h"
#include "shale/db.h"
#include "shale/env.h"

using namespace shale;

namespace {

// Scattered keys, so L0 files overlap and compactions really merge.
std::string Key(int i) { return "key" + std::to_string(10000 + (i * 7919) % 5000); }

// Writes keys until the armed point fires (driving flushes and compactions),
// then checks that writes stop and that a reopen has every acknowledged key.
void RunWithFault(const std::string& point, bool sync_writes) {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Env* real = Env::Default();
  shale_test::ArmedRuntime runtime(real->runtime(), point);
  Env env(real->fs(), real->clock(), &runtime);
  Options o;
  o.create_if_missing = true;
  o.env = &env;
  o.write_buffer_size = 2048;
  o.level0_file_num_compaction_trigger = 2;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  WriteOptions wo;
  wo.sync = sync_writes;
  int acknowledged = 0;
  Status failure;
  for (int i = 0; i < 5000 && failure.ok(); i++) {  // 5000 distinct keys
    failure = db->Put(wo, Key(i), std::string(64, 'v'));
    if (failure.ok()) acknowledged = i + 1;
    if (i % 50 == 49 && failure.ok()) failure = db->Flush(FlushOptions());
  }
  INFO("acknowledged " << acknowledged << " writes before " << point << " fired");
  CHECK(acknowledged > 0);
  REQUIRE(runtime.fired());
  REQUIRE(failure.IsIOError());
  // The error sticks: the DB refuses writes until it is reopened.
  REQUIRE(db->Put(wo, "after", "x").IsIOError());
  db.reset();
  Options plain;
  REQUIRE(DB::Open(plain, dir.Child("db"), &db).ok());
  for (int i = 0; i < acknowledged; i++) {
    std::string v;
    REQUIRE(db->Get(ReadOptions(), Key(i), &v).ok());
  }
  REQUIRE(db->Put(WriteOptions(), "after", "x").ok());
}

}  // namespace

TEST_CASE("fault point flush.before_install", "[db][faults]") {
  RunWithFault("flush.before_install", false);
}

TEST_CASE("fault point compaction.before_install", "[db][faults]") {
  RunWithFault("compaction.before_install", false);
}

TEST_CASE("fault point write.wal_sync", "[db][faults]") { RunWithFault("write.wal_sync", true); }
