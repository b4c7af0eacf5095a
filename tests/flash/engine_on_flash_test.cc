// The engine on the flash backend: WAL, tables and MANIFEST on the
// simulated open-channel device, CURRENT and LOCK on the POSIX side.
// Writes enough to flush and compact, reopens after a clean close, after a
// process crash and after a power loss, and checks every key.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <vector>

#include "flash_fixture.h"
#include "shale/db.h"

namespace shale_test {
namespace {

using shale::DB;
using shale::Status;

shale::Options SmallOptions(shale::Env* env) {
  shale::Options o;
  o.env = env;
  o.create_if_missing = true;
  o.write_buffer_size = 8 << 10;
  o.target_file_size_base = 16 << 10;
  o.max_bytes_for_level_base = 64 << 10;
  o.level0_file_num_compaction_trigger = 2;
  return o;
}

// Puts keys [first, first + n) with values from round; syncs each if sync.
Status PutKeys(DB* db, int first, int n, int round, bool sync) {
  shale::WriteOptions w;
  w.sync = sync;
  for (int i = first; i < first + n; i++) {
    Status s = db->Put(w, "key" + std::to_string(i % 700),
                       "value-" + std::to_string(round) + "-" + std::to_string(i));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

std::map<std::string, std::string> Contents(DB* db) {
  std::map<std::string, std::string> out;
  std::unique_ptr<shale::Iterator> it(db->NewIterator(shale::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next())
    out[it->key().ToString()] = it->value().ToString();
  if (!it->status().ok()) out["<error>"] = it->status().ToString();
  return out;
}

TEST_CASE("flash fs: the engine flushes, compacts and recovers on the flash backend") {
  for (uint64_t seed : {1, 2, 3}) {
    FlashFixture f(seed);
    std::map<std::string, std::string> before, after_close, after_crash, after_power;
    uint64_t flushes = 0;
    REQUIRE(f.Run([&] {
               // One Env per incarnation: a crashed one's DB keeps pointing at its own.
               std::vector<std::unique_ptr<shale::Env>> envs;
               std::unique_ptr<DB> db;
               const auto mount_and_open = [&] {
                 if (!f.Mount().ok()) return false;
                 envs.push_back(
                     std::make_unique<shale::Env>(f.fs(), f.sim()->clock(), f.sim()->runtime()));
                 return DB::Open(SmallOptions(envs.back().get()), "/db", &db).ok();
               };
               if (!mount_and_open()) return;
               if (!PutKeys(db.get(), 0, 3000, 1, false).ok()) return;
               before = Contents(db.get());
               flushes = db->GetStats().flushes;
               if (!db->Close().ok()) return;
               db.reset();
               if (!DB::Open(SmallOptions(envs.back().get()), "/db", &db).ok()) return;
               after_close = Contents(db.get());
               // Acknowledged writes survive a process crash.
               if (!PutKeys(db.get(), 3000, 500, 2, false).ok()) return;
               const auto acknowledged = Contents(db.get());
               (void)db.release();
               f.ProcessCrash();
               if (!mount_and_open()) return;
               after_crash = Contents(db.get());
               CHECK(after_crash == acknowledged);
               // Synced writes survive a power loss.
               if (!PutKeys(db.get(), 3500, 300, 3, true).ok()) return;
               const auto synced = Contents(db.get());
               (void)db.release();
               f.PowerLoss();
               if (!mount_and_open()) return;
               after_power = Contents(db.get());
               CHECK(after_power == synced);
               CHECK(db->Close().ok());
               db.reset();
             }).ok());
    INFO("seed " << seed);
    CHECK(flushes > 3);
    CHECK(before.size() == 700);
    CHECK(after_close == before);
    CHECK(after_crash.size() == 700);
    CHECK(after_power.size() == 700);
    CHECK(f.device()->stats().rule_violations == 0);
  }
}

}  // namespace
}  // namespace shale_test
