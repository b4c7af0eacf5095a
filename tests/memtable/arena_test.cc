#include "memtable/arena.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "util/random.h"

using namespace shale;

TEST_CASE("arena starts empty", "[arena]") {
  Arena arena;
  REQUIRE(arena.MemoryUsage() == 0);
}

TEST_CASE("arena allocations keep their bytes and are aligned on request", "[arena]") {
  Arena arena;
  Random rnd(301);
  std::vector<std::pair<size_t, char*>> allocated;
  size_t total_bytes = 0;
  for (int i = 0; i < 5000; i++) {
    size_t bytes = (i % 500 == 0) ? (i == 0 ? 1 : static_cast<size_t>(rnd.Uniform(6000) + 1))
                                  : static_cast<size_t>(rnd.Skewed(7) + 1);
    char* p = rnd.OneIn(3) ? arena.AllocateAligned(bytes) : arena.Allocate(bytes);
    for (size_t b = 0; b < bytes; b++) p[b] = static_cast<char>(i % 256);
    allocated.emplace_back(bytes, p);
    total_bytes += bytes;
    REQUIRE(arena.MemoryUsage() >= total_bytes);
    REQUIRE(arena.MemoryUsage() <= total_bytes * 2 + 64 * Arena::kDefaultBlockBytes);
  }
  for (size_t i = 0; i < allocated.size(); i++) {
    const auto& [bytes, p] = allocated[i];
    for (size_t b = 0; b < bytes; b++) {
      REQUIRE(static_cast<unsigned char>(p[b]) == i % 256);
    }
  }
}

TEST_CASE("arena aligned allocations are aligned after odd-sized ones", "[arena]") {
  Arena arena;
  for (size_t odd = 1; odd < 40; odd++) {
    REQUIRE(arena.Allocate(odd) != nullptr);
    char* p = arena.AllocateAligned(odd * 8);
    REQUIRE(reinterpret_cast<uintptr_t>(p) % Arena::kAlignBytes == 0);
    REQUIRE(reinterpret_cast<uintptr_t>(p) % alignof(void*) == 0);
  }
}

TEST_CASE("arena gives large allocations their own block", "[arena]") {
  Arena arena;
  char* small = arena.Allocate(10);
  const size_t after_small = arena.MemoryUsage();
  REQUIRE(after_small >= Arena::kDefaultBlockBytes);
  char* big = arena.Allocate(3 * Arena::kDefaultBlockBytes);
  REQUIRE(arena.MemoryUsage() >= after_small + 3 * Arena::kDefaultBlockBytes);
  REQUIRE(arena.MemoryUsage() < after_small + 4 * Arena::kDefaultBlockBytes);
  // The current block still serves small requests right after the first.
  char* small2 = arena.Allocate(10);
  REQUIRE(small2 == small + 10);
  REQUIRE(big != nullptr);
  REQUIRE(arena.MemoryUsage() < after_small + 4 * Arena::kDefaultBlockBytes);
}
