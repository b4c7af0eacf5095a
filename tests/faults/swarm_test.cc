// Swarm fault configurations: deterministic per seed, varied across seeds,
// rates log-uniform in the documented range, and described for reports.
#include <catch2/catch.hpp>

#include <set>

#include "faults/swarm.h"

namespace shale_test {
namespace {

using shale::faults::DrawFaultConfig;
using shale::faults::FaultConfig;
using shale::faults::FaultKind;
using shale::faults::kFaultKindCount;
using shale::faults::kMaxOneIn;
using shale::faults::kMinOneIn;
using shale::sim::ChoiceTape;

FaultConfig Draw(uint64_t seed) {
  ChoiceTape rng(seed);
  return DrawFaultConfig(&rng);
}

TEST_CASE("swarm: the same seed draws the same config", "[faults]") {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    CHECK(Describe(Draw(seed)) == Describe(Draw(seed)));
  }
}

TEST_CASE("swarm: configs vary across seeds, every kind is sometimes on, sometimes off",
          "[faults]") {
  std::set<std::map<std::string, std::string>> distinct;
  std::array<int, kFaultKindCount> on{};
  int points_on = 0;
  uint64_t lowest = kMaxOneIn, highest = kMinOneIn;
  constexpr int kSeeds = 400;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const FaultConfig c = Draw(seed);
    distinct.insert(Describe(c));
    for (size_t k = 0; k < kFaultKindCount; ++k) {
      if (c.one_in[k] == 0) continue;
      ++on[k];
      const shale::faults::RateRange range = shale::faults::RateRangeOf(static_cast<FaultKind>(k));
      CHECK(c.one_in[k] >= range.lo);
      CHECK(c.one_in[k] <= range.hi);
      if (range.lo != kMinOneIn) continue;
      lowest = std::min(lowest, c.one_in[k]);
      highest = std::max(highest, c.one_in[k]);
    }
    if (c.fault_point_activate_one_in != 0) {
      ++points_on;
      CHECK(c.fault_point_activate_one_in >= 2);
      CHECK(c.fault_point_activate_one_in <= 4);
      CHECK(c.fault_point_fire_one_in >= 2);
      CHECK(c.fault_point_fire_one_in <= 1000);
    }
    CHECK((c.slow_io_max_ns != 0) == c.enabled(FaultKind::kSlowIo));
  }
  CHECK(distinct.size() == kSeeds);
  for (size_t k = 0; k < kFaultKindCount; ++k) {
    CHECK(on[k] > kSeeds / 4);
    CHECK(on[k] < 3 * kSeeds / 4);
  }
  CHECK(points_on > kSeeds / 4);
  CHECK(points_on < 3 * kSeeds / 4);
  CHECK(lowest < 100);  // the range is really spanned
  CHECK(highest > 50'000);
}

TEST_CASE("swarm: LogUniform gives each octave about the same share", "[faults]") {
  ChoiceTape rng(uint64_t{3});
  std::array<int, 64> octaves{};
  constexpr int kDraws = 22000;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t v = shale::faults::LogUniform(&rng, 64, (uint64_t{1} << 17) - 1);
    REQUIRE(v >= 64);
    REQUIRE(v < (uint64_t{1} << 17));
    ++octaves[63 - __builtin_clzll(v)];
  }
  for (int b = 6; b <= 16; ++b) {  // 11 octaves, ~2000 each
    CHECK(octaves[b] > 1700);
    CHECK(octaves[b] < 2300);
  }
}

TEST_CASE("swarm: Describe names every kind and the fault points", "[faults]") {
  FaultConfig c;
  c.set(FaultKind::kBitFlip, 1234);
  c.fault_point_activate_one_in = 3;
  c.fault_point_fire_one_in = 77;
  const auto d = Describe(c);
  CHECK(d.size() == kFaultKindCount + 2);
  CHECK(d.at("faults.bit_flip") == "1/1234");
  CHECK(d.at("faults.eio_read") == "off");
  CHECK(d.at("faults.sticky_unreadable_sector") == "off");
  CHECK(d.at("faults.fault_points") == "activate 1/3, fire 1/77");
  CHECK(Describe(FaultConfig()).at("faults.fault_points") == "off");
}

}  // namespace
}  // namespace shale_test
