// The open-channel scenario: the crash-recovery workload on the flash
// backend passes on the correct engine and is deterministic; its power
// losses tear the device cache and its media faults fire, and the engine
// survives both; the drawn write buffer decides the process-crash rule;
// and each seed reports wear and write amplification.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "scenarios/open_channel/open_channel.h"
#include "shale/options.h"

using namespace shale::scenario;

namespace {

RunResult RunSeed(uint64_t seed, const char* faults = "") {
  RunConfig config;
  config.scenario = "open-channel";
  config.seed = seed;
  config.ops = 400;
  config.crashes = 3;
  config.faults = faults;
  return OpenChannelScenario()->Run(config);
}

uint64_t Count(const std::map<std::string, uint64_t>& counts, const std::string& name) {
  const auto it = counts.find(name);
  return it == counts.end() ? 0 : it->second;
}

std::string Describe(const RunResult& r) {
  return "seed " + std::to_string(r.seed) + ": " + r.failure.property + " key " + r.failure.key +
         " expected " + r.failure.expected + " observed " + r.failure.observed + " -- " +
         r.failure.message;
}

}  // namespace

TEST_CASE("open-channel passes on the correct engine and is deterministic", "[scenario][flash]") {
  uint64_t torn = 0, program_failures = 0, erase_failures = 0;
  for (uint64_t seed = 1; seed <= 24; seed++) {
    const RunResult r = RunSeed(seed, "on");
    INFO(Describe(r));
    REQUIRE(r.passed);
    REQUIRE(r.options_drawn.at("disk") == "open-channel");
    torn += Count(r.observed, "flash: torn units");
    program_failures += Count(r.faults_by_kind, "flash_program_failure");
    erase_failures += Count(r.faults_by_kind, "flash_erase_failure");
    if (seed % 8 == 0) {
      const RunResult again = RunSeed(seed, "on");
      REQUIRE(again.trace_hash == r.trace_hash);
      REQUIRE(again.steps == r.steps);
    }
  }
  // The crashes and faults the scenario promises did happen.
  CHECK(torn > 0);
  CHECK(program_failures > 0);
  CHECK(erase_failures > 0);
}

TEST_CASE("open-channel: decay found at read time is damage its table's errors name",
          "[scenario][flash]") {
  // Seed 15 draws a read of table 12 that finds a sector gone; the crash
  // check then cannot read 379 of its 400 keys, naming the table, and the
  // run ends there as detected damage.
  RunConfig config;
  config.scenario = "open-channel";
  config.seed = 15;
  config.ops = 400;
  config.crashes = 3;
  config.faults = "on";
  config.trace = true;
  const RunResult r = OpenChannelScenario()->Run(config);
  INFO(Describe(r));
  REQUIRE(r.passed);
  CHECK(Count(r.faults_by_kind, "flash_unreadable_at_read") == 1);
  CHECK(r.ended_early == "damage detected");
  const auto ends_naming_table = [](const std::string& line) {
    return line.find("keys unreadable") != std::string::npos &&
           line.find("unrecoverable read error") != std::string::npos &&
           line.find("/db/000012.sst") != std::string::npos;
  };
  CHECK(std::any_of(r.trace.begin(), r.trace.end(), ends_naming_table));
}

TEST_CASE("open-channel: a chunk lost whole at a crash is damage its WAL's recovery names",
          "[scenario][flash]") {
  // Seed 99 loses a chunk of WAL 60 at a crash; the mount keeps the range
  // it held, recovery's read of it fails naming the WAL, and the run ends
  // there as detected damage. Planted, the mount cuts the WAL short
  // instead, and the seed fails durability.
  RunConfig config;
  config.scenario = "open-channel";
  config.seed = 99;
  config.faults = "on";
  config.trace = true;
  const RunResult r = OpenChannelScenario()->Run(config);
  INFO(Describe(r));
  REQUIRE(r.passed);
  CHECK(Count(r.faults_by_kind, "flash_lost_chunk") == 1);
  CHECK(r.ended_early == "damage detected");
  const auto names_lost_range = [](const std::string& line) {
    return line.find("chunk lost whole") != std::string::npos &&
           line.find("/db/000060.log") != std::string::npos;
  };
  CHECK(std::any_of(r.trace.begin(), r.trace.end(), names_lost_range));
  config.trace = false;
  config.planted_bugs = shale::kBugFlashMountIgnoresLostChunk;
  const RunResult planted = OpenChannelScenario()->Run(config);
  CHECK_FALSE(planted.passed);
  CHECK(planted.failure.property == "durability");
  CHECK(planted.failure.key == "/db/000060.log");
}

TEST_CASE("open-channel holds flushed WAL data to a process crash unless the buffer holds it",
          "[scenario][flash]") {
  uint64_t strict_with_flush = 0, strict_with_buffer = 0, relaxed_with_buffer = 0;
  for (uint64_t seed = 1; seed <= 24; seed++) {
    const RunResult r = RunSeed(seed, "off");
    INFO(Describe(r));
    REQUIRE(r.passed);
    const bool buffered = r.options_drawn.at("flash.buffer_across_flush") == "true";
    const uint64_t strict = Count(r.observed, "process-crash checks, strict");
    const uint64_t relaxed = Count(r.observed, "process-crash checks, power-loss rules");
    (buffered ? strict_with_buffer : strict_with_flush) += strict;
    if (buffered) relaxed_with_buffer += relaxed;
  }
  CHECK(strict_with_flush > 0);
  CHECK(strict_with_buffer == 0);
  CHECK(relaxed_with_buffer > 0);
}

TEST_CASE("open-channel reports wear and write amplification per seed", "[scenario][flash]") {
  const RunResult r = RunSeed(5);
  REQUIRE(r.passed);
  const uint64_t written = Count(r.observed, "flash: bytes the engine wrote");
  const uint64_t programmed = Count(r.observed, "flash: bytes programmed");
  CHECK(written > 0);
  CHECK(programmed > written);  // metadata and padding come on top
  CHECK(Count(r.observed, "flash: chunk resets") > 0);
  CHECK(Count(r.observed, "flash: max wear") > 0);
  CHECK(Count(r.observed, "flash: chunks") >= 512);
}
