// Each PlantedBug switch really plants its bug: shown here directly on the
// real backend (the simulator's campaigns must then find them by search).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "common/temp_dir.h"
#include "db/armed_runtime.h"
#include "shale/db.h"

using namespace shale;
namespace fs = std::filesystem;

namespace {

Options WithBug(uint32_t bugs) {
  Options o;
  o.create_if_missing = true;
  o.planted_bugs = bugs;
  return o;
}

std::string Key(int i) { return "key" + std::to_string(10000 + i); }

}  // namespace

TEST_CASE("kBugAckSyncWriteBeforeWalSync acknowledges without a WAL sync", "[db][bugs]") {
  for (const bool planted : {false, true}) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    std::unique_ptr<DB> db;
    REQUIRE(DB::Open(WithBug(planted ? uint32_t{kBugAckSyncWriteBeforeWalSync} : 0u),
                     dir.Child("db"), &db)
                .ok());
    const uint64_t before = db->GetStats().wal_syncs;
    WriteOptions wo;
    wo.sync = true;
    REQUIRE(db->Put(wo, "k", "v").ok());
    REQUIRE((db->GetStats().wal_syncs > before) == !planted);
  }
}

TEST_CASE("kBugSkipDirSyncAfterCurrent leaves CURRENT's rename unsynced", "[db][bugs]") {
  uint64_t dir_syncs[2];
  for (const bool planted : {false, true}) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    std::unique_ptr<DB> db;  // Open writes a new MANIFEST and switches CURRENT
    REQUIRE(DB::Open(WithBug(planted ? uint32_t{kBugSkipDirSyncAfterCurrent} : 0u), dir.Child("db"),
                     &db)
                .ok());
    dir_syncs[planted] = db->GetStats().dir_syncs;
  }
  REQUIRE(dir_syncs[1] + 1 == dir_syncs[0]);
}

TEST_CASE("kBugDeleteWalBeforeManifest loses writes when the install fails", "[db][bugs]") {
  for (const bool planted : {false, true}) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    Env* real = Env::Default();
    shale_test::ArmedRuntime runtime(real->runtime(), "flush.before_install");
    Env env(real->fs(), real->clock(), &runtime);
    Options o = WithBug(planted ? uint32_t{kBugDeleteWalBeforeManifest} : 0u);
    o.env = &env;
    std::unique_ptr<DB> db;
    REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
    int acknowledged = 0;
    Status s;
    for (int i = 0; i < 100 && s.ok(); i++) {
      s = db->Put(WriteOptions(), Key(i), "v");
      if (s.ok()) acknowledged = i + 1;
      if (s.ok()) s = db->Flush(FlushOptions());  // the 4th flush's install fails
    }
    REQUIRE(runtime.fired());
    db.reset();
    REQUIRE(DB::Open(Options(), dir.Child("db"), &db).ok());
    int found = 0;
    for (int i = 0; i < acknowledged; i++) {
      std::string v;
      if (db->Get(ReadOptions(), Key(i), &v).ok()) found++;
    }
    REQUIRE((found == acknowledged) == !planted);
  }
}

TEST_CASE("kBugCompactionIgnoresSnapshots changes what a snapshot reads", "[db][bugs]") {
  for (const bool planted : {false, true}) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    std::unique_ptr<DB> db;
    REQUIRE(DB::Open(WithBug(planted ? uint32_t{kBugCompactionIgnoresSnapshots} : 0u),
                     dir.Child("db"), &db)
                .ok());
    REQUIRE(db->Put(WriteOptions(), "k", "old").ok());
    const Snapshot* snap = db->GetSnapshot();
    REQUIRE(db->Put(WriteOptions(), "k", "new").ok());
    REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
    ReadOptions ro;
    ro.snapshot = snap;
    std::string v;
    Status s = db->Get(ro, "k", &v);
    REQUIRE((s.ok() && v == "old") == !planted);
    db->ReleaseSnapshot(snap);
  }
}

TEST_CASE("kBugRecoveryStopsAtCorruption hides mid-WAL damage", "[db][bugs]") {
  for (const bool planted : {false, true}) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    const std::string live = dir.Child("live"), crashed = dir.Child("crashed");
    {
      std::unique_ptr<DB> db;
      Options written = WithBug(0);
      written.allow_mmap_writes = false;  // the flip lands by file size: no zero tail
      REQUIRE(DB::Open(written, live, &db).ok());
      for (int i = 0; i < 600; i++)
        REQUIRE(db->Put(WriteOptions(), Key(i), std::string(100, 'v')).ok());
      fs::copy(live, crashed);  // a process crash: the files as they stand
    }
    std::string wal;
    for (const auto& e : fs::directory_iterator(crashed)) {
      if (e.path().extension() == ".log" && e.path().string() > wal) wal = e.path().string();
    }
    std::fstream f(wal, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(wal) / 3));
    f.put('\x5a');
    f.close();
    Options o = WithBug(planted ? uint32_t{kBugRecoveryStopsAtCorruption} : 0u);
    o.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
    std::unique_ptr<DB> db;
    const Status s = DB::Open(o, crashed, &db);
    REQUIRE(s.ok() == planted);
    if (!planted) REQUIRE(s.IsCorruption());
  }
}
