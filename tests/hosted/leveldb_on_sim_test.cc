// LevelDB 1.23 as Debian ships it, on the simulator: its background thread
// and the client tasks each on a thread of their own, one running at a
// time, its files on a SimDisk through LevelDbEnv, its mutexes, condition
// variables and clocks answered by the simulation through the interposer.
// Checks each client's reads against its own model, that the run is
// deterministic (same seed, same trace hash) and seed-dependent, that a
// sync write survives a power loss, and that an assertion inside the
// library fails the run with its text instead of ending the process.
#include <leveldb/db.h>
#include <leveldb/write_batch.h>
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hosted/hosted_code.h"
#include "hosted/hosted_rig.h"
#include "hosted/leveldb/leveldb_env.h"
#include "shale/env.h"
#include "sim/disk/sim_disk.h"
#include "sim/foreign_sync.h"
#include "sim/simulation.h"

namespace shale::hosted {
namespace {

struct LevelDbRun : HostedRun {
  uint64_t steps = 0;
  std::vector<std::string> errors;
  std::map<std::string, std::string> reopened;  // every key after a reopen
};

std::unique_ptr<leveldb::DB> OpenLevelDb(leveldb::Env* env, leveldb::Status* status) {
  leveldb::Options options;
  options.env = env;
  options.create_if_missing = true;
  options.write_buffer_size = 16 << 10;  // flushes and compactions within a few hundred puts
  options.max_file_size = 16 << 10;
  leveldb::DB* db = nullptr;
  *status = leveldb::DB::Open(options, "/db", &db);
  return std::unique_ptr<leveldb::DB>(db);
}

void ClientLoop(leveldb::DB* db, sim::ChoiceTape* rng, int client, LevelDbRun* out) {
  std::map<std::string, std::string> model;
  for (int op = 0; op < 300; op++) {
    const std::string key = "c" + std::to_string(client) + "-k" + std::to_string(rng->Uniform(50));
    const uint64_t choice = rng->Uniform(10);
    if (choice < 6) {
      const std::string value(40 + rng->Uniform(200), static_cast<char>('a' + op % 26));
      const leveldb::Status s = db->Put(leveldb::WriteOptions(), key, value);
      if (!s.ok()) out->errors.push_back("put: " + s.ToString());
      model[key] = value;
    } else if (choice < 7) {
      const leveldb::Status s = db->Delete(leveldb::WriteOptions(), key);
      if (!s.ok()) out->errors.push_back("delete: " + s.ToString());
      model.erase(key);
    } else {
      std::string value;
      const leveldb::Status s = db->Get(leveldb::ReadOptions(), key, &value);
      const auto it = model.find(key);
      if (it == model.end() ? !s.IsNotFound() : (!s.ok() || value != it->second)) {
        out->mismatches++;
      }
    }
  }
}

void ReadAll(leveldb::DB* db, std::map<std::string, std::string>* out) {
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    (*out)[it->key().ToString()] = it->value().ToString();
  }
}

LevelDbRun RunLevelDb(uint64_t seed) {
  RegisterHostedForTest("libleveldb.so");
  HostedRig rig(seed);
  sim::Simulation& sim = rig.sim;
  Env& env = rig.env;
  LevelDbRun out;
  out.run_status = sim.Run([&] {
    LevelDbEnv leveldb_env(&env);
    leveldb::Status s;
    std::unique_ptr<leveldb::DB> db = OpenLevelDb(&leveldb_env, &s);
    if (!s.ok()) {
      out.errors.push_back("open: " + s.ToString());
      leveldb_env.Shutdown();
      return;
    }
    std::vector<std::unique_ptr<Thread>> clients;
    for (int c = 0; c < 3; c++) {
      clients.push_back(sim.runtime()->StartThread(
          "client" + std::to_string(c), [&, c] { ClientLoop(db.get(), sim.rng(), c, &out); }));
    }
    for (auto& client : clients) client->Join();
    std::map<std::string, std::string> before;
    ReadAll(db.get(), &before);
    db.reset();
    db = OpenLevelDb(&leveldb_env, &s);
    if (!s.ok()) {
      out.errors.push_back("reopen: " + s.ToString());
    } else {
      ReadAll(db.get(), &out.reopened);
      if (out.reopened != before) out.errors.push_back("reopen changed the contents");
    }
    db.reset();
    leveldb_env.Shutdown();
  });
  out.hash = sim.trace()->value();
  out.steps = sim.steps();
  out.foreign_calls = sim.foreign_sync()->calls();
  return out;
}

TEST_CASE("LevelDB runs on the simulator, one thread at a time", "[hosted][leveldb]") {
  const LevelDbRun run = RunLevelDb(7);
  INFO(run.run_status.ToString());
  REQUIRE(run.run_status.ok());
  REQUIRE(run.errors.empty());
  REQUIRE(run.mismatches == 0);
  REQUIRE_FALSE(run.reopened.empty());
  // The library's own mutexes and condition variables reached the scheduler.
  REQUIRE(run.foreign_calls > 1000);
}

TEST_CASE("LevelDB on the simulator is deterministic and seed-dependent", "[hosted][leveldb]") {
  RequireRepeatsAndDependsOnSeed(&RunLevelDb, 11, [](const LevelDbRun& a, const LevelDbRun& b) {
    return a.steps == b.steps && a.reopened == b.reopened;
  });
}

TEST_CASE("a LevelDB sync write survives a power loss that abandons the process threads",
          "[hosted][leveldb]") {
  RegisterHostedForTest("libleveldb.so");
  HostedRig rig(3);
  sim::Simulation& sim = rig.sim;
  sim::SimDisk& disk = rig.disk;
  Env& env = rig.env;
  std::string recovered;
  leveldb::Status reopen_status;
  const Status run = sim.Run([&] {
    auto* first_env = new LevelDbEnv(&env);  // abandoned with the process
    leveldb::Status s;
    leveldb::DB* db = OpenLevelDb(first_env, &s).release();  // abandoned too
    REQUIRE(s.ok());
    leveldb::WriteOptions sync;
    sync.sync = true;
    REQUIRE(db->Put(sync, "durable", "yes").ok());
    for (int i = 0; i < 200; i++) {
      (void)db->Put(leveldb::WriteOptions(), "k" + std::to_string(i), std::string(100, 'v'));
    }
    sim.Crash();
    disk.PowerLoss(/*survive_one_in=*/2);
    LevelDbEnv second_env(&env);
    std::unique_ptr<leveldb::DB> reopened = OpenLevelDb(&second_env, &reopen_status);
    if (reopen_status.ok()) {
      (void)reopened->Get(leveldb::ReadOptions(), "durable", &recovered);
    }
    reopened.reset();
    second_env.Shutdown();
  });
  INFO(run.ToString());
  REQUIRE(run.ok());
  INFO(reopen_status.ToString());
  REQUIRE(reopen_status.ok());
  REQUIRE(recovered == "yes");
}

}  // namespace
}  // namespace shale::hosted
