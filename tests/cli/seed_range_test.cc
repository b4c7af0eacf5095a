// Seed ranges (A..B) and shard math (K/N keeps seed % N == K-1).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "seed_range.h"

using namespace shale::cli;

TEST_CASE("seed ranges parse strictly", "[cli][seeds]") {
  SeedRange r;
  std::string error;
  REQUIRE(ParseSeedRange("1..1000", &r, &error));
  REQUIRE((r.first == 1 && r.last == 1000));
  REQUIRE(ParseSeedRange("0..18446744073709551615", &r, &error));
  REQUIRE(r.last == std::numeric_limits<uint64_t>::max());
  REQUIRE(ParseSeedRange("5..5", &r, &error));
  for (const char* bad : {"", "1", "1..", "..5", "a..b", "1...5", "5..1", "-1..5", "1..2x", "1 ..5",
                          "0..18446744073709551616", "+1..5"}) {
    INFO(bad);
    error.clear();
    REQUIRE_FALSE(ParseSeedRange(bad, &r, &error));
    REQUIRE(error.find("malformed seed range") != std::string::npos);
  }
}

TEST_CASE("shards parse strictly", "[cli][seeds]") {
  Shard s;
  std::string error;
  REQUIRE(ParseShard("2/8", &s, &error));
  REQUIRE((s.index == 2 && s.count == 8));
  for (const char* bad : {"", "0/4", "5/4", "1/0", "1", "/4", "1/", "a/b", "1/4/2"}) {
    INFO(bad);
    REQUIRE_FALSE(ParseShard(bad, &s, &error));
  }
}

namespace {
// A pod's environment, as ResolveAutoShard's lookup reads it.
const char* g_index = nullptr;
const char* g_count = nullptr;
const char* FakeEnv(const char* name) {
  if (std::strcmp(name, "JOB_COMPLETION_INDEX") == 0) return g_index;
  if (std::strcmp(name, "SHALE_SHARD_COUNT") == 0) return g_count;
  return nullptr;
}
std::string Resolve(const char* text, const char* index, const char* count, std::string* error) {
  g_index = index;
  g_count = count;
  std::string resolved;
  error->clear();
  if (!ResolveAutoShard(text, &FakeEnv, &resolved, error)) return "ERROR";
  return resolved;
}
}  // namespace

TEST_CASE("shard auto takes the shard from an Indexed Job's environment", "[cli][seeds]") {
  std::string error;
  // Explicit shards and no shard pass through untouched.
  CHECK(Resolve("2/8", "5", "9", &error) == "2/8");
  CHECK(Resolve("", "5", "9", &error) == "");
  // JOB_COMPLETION_INDEX is 0-based; shards are 1-based.
  CHECK(Resolve("auto", "0", "4", &error) == "1/4");
  CHECK(Resolve("auto", "3", "4", &error) == "4/4");
  CHECK(Resolve("auto/8", "7", nullptr, &error) == "8/8");
  CHECK(Resolve("auto/8", "2", "4", &error) == "3/8");  // the flag's N wins
  // Missing or bad environment: one line naming what is wrong.
  CHECK(Resolve("auto", nullptr, "4", &error) == "ERROR");
  CHECK(error.find("JOB_COMPLETION_INDEX") != std::string::npos);
  CHECK(Resolve("auto", "1", nullptr, &error) == "ERROR");
  CHECK(error.find("SHALE_SHARD_COUNT") != std::string::npos);
  CHECK(Resolve("auto", "4", "4", &error) == "ERROR");  // index past the count
  CHECK(Resolve("auto", "-1", "4", &error) == "ERROR");
  CHECK(Resolve("auto", "1", "0", &error) == "ERROR");
  for (const char* bad : {"auto/", "auto/x", "auto8", "auto/0", "autox/2"}) {
    INFO(bad);
    CHECK(Resolve(bad, "0", "4", &error) == "ERROR");
    CHECK(error.find('\n') == std::string::npos);
  }
}

TEST_CASE("shards partition the range", "[cli][seeds]") {
  const SeedRange range{3, 100};
  for (uint64_t n : {1u, 2u, 3u, 7u, 200u}) {
    std::set<uint64_t> seen;
    uint64_t total = 0;
    for (uint64_t k = 1; k <= n; ++k) {
      const Shard shard{k, n};
      const auto seeds = ShardSeeds(range, shard);
      REQUIRE(seeds.size() == ShardSeedCount(range, shard));
      for (uint64_t s : seeds) {
        REQUIRE(InShard(s, shard));
        REQUIRE(seen.insert(s).second);
      }
      total += seeds.size();
    }
    REQUIRE(total == 98);
    REQUIRE(*seen.begin() == 3);
    REQUIRE(*seen.rbegin() == 100);
  }
}

TEST_CASE("shard math does not overflow at the top of uint64", "[cli][seeds]") {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const SeedRange range{kMax - 9, kMax};
  REQUIRE(ShardSeedCount(range, Shard{1, 1}) == 10);
  uint64_t total = 0;
  for (uint64_t k = 1; k <= 3; ++k) total += ShardSeedCount(range, Shard{k, 3});
  REQUIRE(total == 10);
  REQUIRE(ShardSeedCount(range, Shard{kMax, kMax}) == 1);  // seed kMax-1
  REQUIRE(ShardSeeds(range, Shard{kMax, kMax}) == std::vector<uint64_t>{kMax - 1});
  REQUIRE(ShardSeedCount(SeedRange{5, 5}, Shard{1, 2}) == 0);
  REQUIRE(ShardSeedCount(SeedRange{0, kMax}, Shard{1, 1}) == kMax);  // saturates
  REQUIRE(ShardSeedCount(SeedRange{0, kMax}, Shard{2, 2}) == (kMax >> 1) + 1);
}
