// The real engine on the simulated runtime: three client tasks and the DB's
// flush/compaction threads all run as tasks of one Simulation, on SimDisk
// with zero (and, for one seed, NVMe) latency. Checks each client's reads
// against its own model, that flushes and compactions happened, and that the
// run is deterministic.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shale/db.h"
#include "shale/env.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::sim {
namespace {

struct EngineRun {
  Status run_status;
  uint64_t hash = 0;
  uint64_t now_ns = 0;
  uint64_t steps = 0;
  uint64_t flushes = 0;
  uint64_t compactions = 0;
  int mismatches = 0;
  std::vector<std::string> errors;
};

// One client: puts/gets/deletes on its own keys, checking each Get.
void ClientLoop(DB* db, sim::ChoiceTape* rng, int client, EngineRun* out) {
  std::map<std::string, std::string> model;
  for (int op = 0; op < 400; op++) {
    const std::string key = "c" + std::to_string(client) + "-k" + std::to_string(rng->Uniform(60));
    const uint64_t choice = rng->Uniform(10);
    if (choice < 5) {
      const std::string value(50 + rng->Uniform(100), static_cast<char>('a' + op % 26));
      Status s = db->Put(WriteOptions(), key, value);
      if (!s.ok()) out->errors.push_back("put: " + s.ToString());
      model[key] = value;
    } else if (choice < 7) {
      Status s = db->Delete(WriteOptions(), key);
      if (!s.ok()) out->errors.push_back("delete: " + s.ToString());
      model.erase(key);
    } else {
      std::string value;
      Status s = db->Get(ReadOptions(), key, &value);
      const auto it = model.find(key);
      if (it == model.end() ? !s.IsNotFound() : (!s.ok() || value != it->second)) {
        out->mismatches++;
      }
    }
  }
}

// real_fs_dir: if not empty, the DB lives there on the real file system
// (Env::Default()->fs()) instead of on a SimDisk.
EngineRun RunEngine(uint64_t seed, const LatencyProfile& latency,
                    const std::string& real_fs_dir = "") {
  SimulationOptions options;
  options.seed = seed;
  Simulation sim(options);
  SimDisk disk(&sim, latency);
  FileSystem* fs = real_fs_dir.empty() ? &disk : Env::Default()->fs();
  const std::string path = real_fs_dir.empty() ? "/db" : real_fs_dir + "/db";
  Env env(fs, sim.clock(), sim.runtime());
  EngineRun out;
  out.run_status = sim.Run([&] {
    Options db_options;
    db_options.env = &env;
    db_options.create_if_missing = true;
    db_options.write_buffer_size = 8 << 10;
    db_options.level0_file_num_compaction_trigger = 2;
    db_options.target_file_size_base = 16 << 10;
    db_options.max_bytes_for_level_base = 64 << 10;
    std::unique_ptr<DB> db;
    Status s = DB::Open(db_options, path, &db);
    if (!s.ok()) {
      out.errors.push_back("open: " + s.ToString());
      return;
    }
    std::vector<std::unique_ptr<Thread>> clients;
    for (int c = 0; c < 3; c++) {
      clients.push_back(sim.runtime()->StartThread(
          "client" + std::to_string(c), [&, c] { ClientLoop(db.get(), sim.rng(), c, &out); }));
    }
    for (auto& client : clients) client->Join();
    const DBStats stats = db->GetStats();
    out.flushes = stats.flushes;
    out.compactions = stats.compactions;
    s = db->Close();
    if (!s.ok()) out.errors.push_back("close: " + s.ToString());
  });
  out.hash = sim.trace()->value();
  out.now_ns = sim.now_ns();
  out.steps = sim.steps();
  return out;
}

}  // namespace

TEST_CASE("the engine runs on the simulated runtime and disk, deterministically", "[sim][engine]") {
  for (uint64_t seed : {1, 2, 3, 4}) {
    // Zero latency, and NVMe latency so that timers and the clock take part.
    const LatencyProfile latency = seed < 4 ? LatencyProfile::Zero() : LatencyProfile::NVMe();
    const EngineRun a = RunEngine(seed, latency);
    INFO(a.run_status.ToString());
    for (const auto& error : a.errors) INFO(error);
    REQUIRE(a.run_status.ok());
    REQUIRE(a.errors.empty());
    REQUIRE(a.mismatches == 0);
    REQUIRE(a.flushes > 0);
    REQUIRE(a.compactions > 0);
    const EngineRun b = RunEngine(seed, latency);
    REQUIRE(b.run_status.ok());
    REQUIRE(a.hash == b.hash);
    REQUIRE(a.now_ns == b.now_ns);
    if (seed == 4) REQUIRE(a.now_ns > 0);
    REQUIRE(a.steps == b.steps);
    REQUIRE(a.flushes == b.flushes);
    REQUIRE(a.compactions == b.compactions);
  }
}

// The same workload on the real file system (a fresh /dev/shm directory per
// run). Not a CI check: the real disk is not part of the simulation.
TEST_CASE("print engine trace hashes on the real file system", "[.][hashes]") {
  for (int run = 0; run < 2; run++) {
    char dir[] = "/dev/shm/shale-sim-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const EngineRun result = RunEngine(1, LatencyProfile::Zero(), dir);
    REQUIRE(result.run_status.ok());
    REQUIRE(result.errors.empty());
    std::printf("real fs run %d hash %016llx steps %llu\n", run,
                static_cast<unsigned long long>(result.hash),
                static_cast<unsigned long long>(result.steps));
    REQUIRE(std::system((std::string("rm -rf ") + dir).c_str()) == 0);
  }
}

}  // namespace shale::sim

namespace shale::sim {

// Prints trace hashes so builds (gcc/clang, Debug/Release) can be compared.
TEST_CASE("print engine trace hashes", "[.][hashes]") {
  for (uint64_t seed : {1, 4}) {
    const LatencyProfile latency = seed < 4 ? LatencyProfile::Zero() : LatencyProfile::NVMe();
    const EngineRun run = RunEngine(seed, latency);
    std::printf("engine seed %llu hash %016llx now_ns %llu steps %llu\n",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(run.hash),
                static_cast<unsigned long long>(run.now_ns),
                static_cast<unsigned long long>(run.steps));
  }
}

}  // namespace shale::sim
