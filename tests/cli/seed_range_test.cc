// Seed ranges (A..B) and shard math (K/N keeps seed % N == K-1).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <set>

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
