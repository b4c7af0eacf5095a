// Bloom filter: no false negatives, false-positive rate near theory.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "table/filter_block.h"
#include "util/coding.h"

using namespace shale;

namespace {
std::string Key(uint64_t i) {
  std::string k;
  PutFixed64(&k, i * 0x9e3779b97f4a7c15ull);
  return "user" + k;
}
}  // namespace

TEST_CASE("probe count follows bits_per_key", "[bloom]") {
  REQUIRE(BloomNumProbes(1) == 1);
  REQUIRE(BloomNumProbes(10) == 7);
  REQUIRE(BloomNumProbes(100) == 30);
}

TEST_CASE("empty filter matches nothing, unknown encodings match everything", "[bloom]") {
  BloomFilterBuilder builder(10);
  const std::string empty = builder.Finish().ToString();
  BloomFilterReader reader(empty);
  REQUIRE(!reader.KeyMayMatch("a"));
  REQUIRE(!reader.KeyMayMatch(""));
  std::string odd = empty;
  odd.back() = 31;
  REQUIRE(BloomFilterReader(odd).KeyMayMatch("a"));
  REQUIRE(BloomFilterReader(Slice()).KeyMayMatch("a"));
}

TEST_CASE("no false negatives, and fp rate near theory at 10 bits/key", "[bloom]") {
  for (int n : {1, 10, 100, 1000, 10000, 100000}) {
    BloomFilterBuilder builder(10);
    for (int i = 0; i < n; i++) {
      builder.AddKey(Key(i));
      builder.AddKey(Key(i));  // consecutive duplicates are dropped
    }
    REQUIRE(builder.num_keys() == static_cast<size_t>(n));
    const std::string filter = builder.Finish().ToString();
    REQUIRE(filter.size() >= static_cast<size_t>(n) * 10 / 8);
    BloomFilterReader reader(filter);
    for (int i = 0; i < n; i++) REQUIRE(reader.KeyMayMatch(Key(i)));
    int false_positives = 0;
    const int probes = 100000;
    for (int i = 0; i < probes; i++) false_positives += reader.KeyMayMatch(Key(1000000000 + i));
    const double rate = static_cast<double>(false_positives) / probes;
    if (n >= 1000) {
      // Theory for m/n = 10, k = 7: (1 - e^{-0.7})^7 ~ 0.82%.
      const double theory = std::pow(1 - std::exp(-7.0 / 10), 7);
      INFO("n=" << n << " rate=" << rate << " theory=" << theory);
      REQUIRE(rate < theory * 1.5);
      REQUIRE(rate > theory * 0.5);
    } else {
      REQUIRE(rate < 0.05);  // tiny filters have a 64-bit floor
    }
  }
}
