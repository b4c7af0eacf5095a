// RocksDB's two strict WAL recovery modes refuse a log with a damaged
// record, and the hosting accepts a refusal only as its contract allows:
// absolute consistency may refuse any log a crash damaged, tolerate-tail
// only one a crash left other than a clean prefix, each proven by the info
// log naming the log it dropped bytes of; point in time refuses nothing.
// After an accepted refusal the options are point in time, which opens.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hosted/hosted_rig.h"
#include "hosted/rocksdb/rocksdb_db.h"
#include "hosted/rocksdb/rocksdb_engine.h"
#include "sim/choice_tape.h"

namespace shale::hosted {
namespace {

const scenario::HostedEngine& Engine() {
  REQUIRE(PrepareRocksDbHosting().ok());
  return RocksDbEngine();
}

// Writes 40 keys into a fresh DB in mode and closes it (their WAL stays:
// Close flushes nothing the log holds), then flips one byte inside the
// first record of the largest WAL. Returns that WAL's path.
std::string WriteAndDamageLog(const scenario::HostedEngine& engine,
                              const scenario::HostedOptions& options, HostedRig* rig) {
  std::unique_ptr<DB> db;
  REQUIRE(engine.Open(options, &rig->env, "/db", &db).ok());
  for (int i = 0; i < 40; i++) {
    REQUIRE(db->Put(WriteOptions(), "key" + std::to_string(i), std::string(100, 'v')).ok());
  }
  REQUIRE(db->Close().ok());
  db.reset();
  std::vector<std::string> children;
  REQUIRE(rig->disk.GetChildren("/db", &children).ok());
  std::string wal, contents;
  for (const std::string& child : children) {
    std::string data;
    const std::string path = "/db/" + child;
    if (child.size() > 4 && child.substr(child.size() - 4) == ".log" &&
        ReadFileToString(&rig->disk, path, &data).ok() && data.size() > contents.size()) {
      wal = path;
      contents = data;
    }
  }
  REQUIRE(contents.size() > 200);
  contents[100] = static_cast<char>(contents[100] ^ 0x40);
  REQUIRE(WriteStringToFile(&rig->disk, contents, wal, /*sync=*/true).ok());
  return wal;
}

struct Refusals {
  std::string wal;
  std::string refused;  // the reopen's status
  bool outside_set = true, torn_only = true, accepted = false;
  std::string why;
  std::string reopened;  // the status of Open after an accepted refusal
};

Refusals RunMode(const std::string& mode) {
  const scenario::HostedEngine& engine = Engine();
  HostedRig rig(31);
  sim::ChoiceTape tape(31);
  std::map<std::string, std::string> described;
  const std::unique_ptr<scenario::HostedOptions> options =
      engine.Draw(&tape, {{"rocksdb.wal_recovery_mode", mode}, {"rocksdb.paranoid_checks", "true"}},
                  &described);
  REQUIRE(described["rocksdb.wal_recovery_mode"] == mode);
  Refusals r;
  const Status run = rig.sim.Run([&] {
    r.wal = WriteAndDamageLog(engine, *options, &rig);
    std::unique_ptr<DB> db;
    const Status s = engine.Open(*options, &rig.env, "/db", &db);
    r.refused = s.ToString();
    if (s.ok()) {
      (void)db->Close();
      return;
    }
    r.outside_set = engine.RelaxAfterRefusal(s, {{"/db/999999.log"}, {"/db/999999.log"}},
                                             options.get(), &r.why);
    r.torn_only = engine.RelaxAfterRefusal(s, {{r.wal}, {}}, options.get(), &r.why);
    r.accepted =
        r.torn_only || engine.RelaxAfterRefusal(s, {{r.wal}, {r.wal}}, options.get(), &r.why);
    if (!r.accepted) return;
    r.reopened = engine.Open(*options, &rig.env, "/db", &db).ToString();
    if (db != nullptr) (void)db->Close();
  });
  INFO(run.ToString());
  REQUIRE(run.ok());
  return r;
}

TEST_CASE("RocksDB's absolute consistency may refuse any log a crash damaged",
          "[hosted][rocksdb]") {
  const Refusals r = RunMode("kAbsoluteConsistency");
  INFO(r.refused);
  CHECK(r.refused.find("Corruption") != std::string::npos);
  CHECK_FALSE(r.outside_set);
  CHECK(r.torn_only);
  CHECK(r.why.find(r.wal) != std::string::npos);
  CHECK(r.reopened == "OK");
}

TEST_CASE("RocksDB's tolerate-tail may refuse only a log a crash left unclean",
          "[hosted][rocksdb]") {
  const Refusals r = RunMode("kTolerateCorruptedTailRecords");
  INFO(r.refused);
  CHECK(r.refused.find("Corruption") != std::string::npos);
  CHECK_FALSE(r.outside_set);
  CHECK_FALSE(r.torn_only);
  CHECK(r.accepted);
  CHECK(r.reopened == "OK");
}

TEST_CASE("RocksDB's point in time opens past a damaged record", "[hosted][rocksdb]") {
  const Refusals r = RunMode("kPointInTimeRecovery");
  CHECK(r.refused == "OK");
}

}  // namespace
}  // namespace shale::hosted
