// Coverage probes: the simulator's runtime counts them and a run reports
// them, counting changes nothing the run does, and real scenarios' recovery
// paths reach the probes placed on them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "scenarios/crash_recovery/crash_recovery.h"
#include "shale/cache.h"
#include "sim/simulation.h"
#include "util/probes.h"

using namespace shale;
using namespace shale::scenario;

TEST_CASE("a probe counts on the simulator's runtime and nowhere else", "[probes]") {
  sim::SimulationOptions options;
  options.seed = 1;
  sim::Simulation sim(options);
  REQUIRE(sim.probe_counts().size() == probes::kCount);
  SHALE_PROBE(sim.runtime(), "write.slowdown");
  SHALE_PROBE(sim.runtime(), "write.slowdown");
  SHALE_PROBE(sim.runtime(), "cache.block_evicted");
  const size_t slowdown = probes::IndexOf("write.slowdown");
  REQUIRE(probes::kNames[slowdown] == "write.slowdown");
  REQUIRE(sim.probe_counts()[slowdown] == 2);
  REQUIRE(sim.probe_counts()[0] == 1);  // the first row
  uint64_t total = 0;
  for (uint64_t n : sim.probe_counts()) total += n;
  REQUIRE(total == 3);
  // The real runtime was given no counts: a probe there does nothing.
  SHALE_PROBE(Env::Default()->runtime(), "write.slowdown");
  REQUIRE(sim.probe_counts()[slowdown] == 2);
}

TEST_CASE("probe names are sorted and unique", "[probes]") {
  for (size_t i = 1; i < probes::kCount; i++) REQUIRE(probes::kNames[i - 1] < probes::kNames[i]);
  REQUIRE(probes::kCount >= 30);
}

TEST_CASE("crash-recovery runs report the probes they reach, the same on every run",
          "[probes][scenario]") {
  // Paths a share of seeds take in this shape: a crash tears the WAL's last
  // record (about one seed in 15), and recovery replays two or more WALs
  // (most seeds). Seeds run until both are reached, at most 60; the first
  // 8 run twice and must report the same hits.
  const std::set<std::string> wanted = {"recovery.wal_torn_tail_ended_replay",
                                        "recovery.multiple_wals_replayed"};
  std::set<std::string> reached;
  uint64_t seed = 1;
  for (; seed <= 60; seed++) {
    RunConfig config;
    config.scenario = "crash-recovery";
    config.seed = seed;
    config.ops = 400;
    config.crashes = 2;
    const RunResult a = CrashRecoveryScenario()->Run(config);
    INFO("seed " << seed);
    REQUIRE(a.passed);
    REQUIRE(a.probes_counted);
    if (seed <= 8) {
      const RunResult b = CrashRecoveryScenario()->Run(config);
      REQUIRE(a.probe_hits == b.probe_hits);
      REQUIRE(a.trace_hash == b.trace_hash);
    }
    for (const auto& [name, hits] : a.probe_hits) {
      REQUIRE(hits > 0);
      reached.insert(name);
    }
    if (seed >= 8 && std::includes(reached.begin(), reached.end(), wanted.begin(), wanted.end()))
      break;
  }
  INFO(seed << " seeds run");
  for (const std::string& name : wanted) CHECK(reached.count(name) == 1);
  REQUIRE(reached.size() >= 10);
}

TEST_CASE("a block cache from NewLRUCache counts its evictions as a probe", "[probes]") {
  sim::SimulationOptions options;
  options.seed = 1;
  sim::Simulation sim(options);
  const size_t evicted = probes::IndexOf("cache.block_evicted");
  uint64_t after_fill = 0, after_overflow = 0, after_erase = 0;
  bool oldest_gone = false;
  const Status run = sim.Run([&] {
    const std::shared_ptr<Cache> cache = NewLRUCache(/*capacity_bytes=*/100, 0, sim.runtime());
    const Cache::Deleter keep = [](const Slice&, void*) {};
    int value = 0;
    cache->Release(cache->Insert("a", &value, 60, keep));
    cache->Release(cache->Insert("b", &value, 30, keep));
    after_fill = sim.probe_counts()[evicted];
    cache->Release(cache->Insert("c", &value, 30, keep));
    after_overflow = sim.probe_counts()[evicted];
    oldest_gone = cache->Lookup("a") == nullptr;
    cache->Erase("b");  // an erase is not an eviction
    after_erase = sim.probe_counts()[evicted];
  });
  REQUIRE(run.ok());
  CHECK(after_fill == 0);  // within capacity
  CHECK(oldest_gone);      // the oldest went to make room
  CHECK(after_overflow == 1);
  CHECK(after_erase == 1);
}
