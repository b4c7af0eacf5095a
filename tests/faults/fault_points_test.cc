// Named engine fault points (BUGGIFY): off draws nothing; a point is
// activated once per run and then fires at its rate; all deterministic.
#include <catch2/catch.hpp>

#include "faults/fault_points.h"
#include "sim_disk/test_disk_context.h"

namespace shale_test {
namespace {

using shale::faults::FaultConfig;
using shale::faults::FaultCounts;
using shale::faults::MakeFaultPointHook;

FaultConfig Points(uint64_t activate_one_in, uint64_t fire_one_in) {
  FaultConfig c;
  c.fault_point_activate_one_in = activate_one_in;
  c.fault_point_fire_one_in = fire_one_in;
  return c;
}

TEST_CASE("fault points: off answers false and draws nothing", "[faults]") {
  TestDiskContext ctx;
  FaultCounts counts;
  auto hook = MakeFaultPointHook(FaultConfig{}, &ctx, &counts);
  for (int i = 0; i < 100; ++i) CHECK_FALSE(hook("flush.before_install"));
  CHECK(ctx.folds.empty());
  CHECK(counts.empty());
  TestDiskContext fresh;
  CHECK(ctx.rng()->Next64() == fresh.rng()->Next64());
}

TEST_CASE("fault points: always-on points always fire and are counted", "[faults]") {
  TestDiskContext ctx;
  FaultCounts counts;
  auto hook = MakeFaultPointHook(Points(1, 1), &ctx, &counts);
  for (int i = 0; i < 10; ++i) CHECK(hook("write.wal_sync"));
  CHECK(hook("flush.before_install"));
  CHECK(counts.at("fault_point.write.wal_sync") == 10);
  CHECK(counts.at("fault_point.flush.before_install") == 1);
}

TEST_CASE("fault points: activation is decided once per name, active ones fire at their rate",
          "[faults]") {
  TestDiskContext ctx(5);
  FaultCounts counts;
  auto hook = MakeFaultPointHook(Points(2, 10), &ctx, &counts);
  int active = 0;
  for (int p = 0; p < 200; ++p) {
    const std::string name = "point." + std::to_string(p);
    int fired = 0;
    for (int i = 0; i < 1000; ++i) fired += hook(name.c_str()) ? 1 : 0;
    if (fired == 0) continue;  // never activated (or, rarely, unlucky)
    ++active;
    CHECK(fired > 50);  // expected 100
    CHECK(fired < 150);
  }
  CHECK(active > 70);  // expected 100
  CHECK(active < 130);
  CHECK(counts.size() == static_cast<size_t>(active));
}

TEST_CASE("fault points: the same seed makes the same decisions", "[faults]") {
  auto run = [](uint64_t seed) {
    TestDiskContext ctx(seed);
    FaultCounts counts;
    auto hook = MakeFaultPointHook(Points(3, 4), &ctx, &counts);
    std::string answers;
    const char* names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (int i = 0; i < 400; ++i) answers += hook(names[i % 8]) ? '1' : '0';
    return answers;
  };
  CHECK(run(1) == run(1));
  CHECK(run(1) != run(2));
}

}  // namespace
}  // namespace shale_test
