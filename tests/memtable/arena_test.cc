#include "memtable/arena.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "shale/env.h"
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

namespace {

// Records AdviseHugePages calls; nothing else of it is used.
class AdviceRecorder final : public Runtime {
 public:
  struct Advice {
    char* memory;
    size_t bytes;
  };
  std::unique_ptr<Mutex> NewMutex() override { return nullptr; }
  std::unique_ptr<CondVar> NewCondVar(Mutex*) override { return nullptr; }
  std::unique_ptr<Thread> StartThread(const std::string&, std::function<void()>) override {
    return nullptr;
  }
  void SleepForMicroseconds(uint64_t) override {}
  void AdviseHugePages(char* memory, size_t bytes) override { advice.push_back({memory, bytes}); }
  std::vector<Advice> advice;
};

bool HugePageAligned(const char* p) {
  return reinterpret_cast<uintptr_t>(p) % Runtime::kHugePageBytes == 0;
}

}  // namespace

TEST_CASE("arena blocks of a huge page or more are whole huge pages, aligned and advised",
          "[arena]") {
  AdviceRecorder recorder;
  // 3 MiB rounds up to two huge pages.
  Arena arena(3 << 20, &recorder);
  char* first = arena.Allocate(100);
  REQUIRE(HugePageAligned(first));
  REQUIRE(recorder.advice.size() == 1);
  REQUIRE(recorder.advice[0].memory == first);
  REQUIRE(recorder.advice[0].bytes == 2 * Runtime::kHugePageBytes);
  REQUIRE(arena.MemoryUsage() >= 2 * Runtime::kHugePageBytes);
  std::memset(first, 0x5a, 100);
  // The block serves requests up to its rounded size before the next one.
  for (size_t used = 100; used + 4096 <= 2 * Runtime::kHugePageBytes; used += 4096) {
    arena.Allocate(4096);
  }
  REQUIRE(recorder.advice.size() == 1);
  char* next_block = arena.Allocate(8192);
  REQUIRE(recorder.advice.size() == 2);
  REQUIRE(HugePageAligned(next_block));
  REQUIRE(first[99] == 0x5a);
}

TEST_CASE("arena blocks smaller than a huge page are never advised", "[arena]") {
  AdviceRecorder recorder;
  Arena arena(1 << 20, &recorder);
  for (int i = 0; i < 1000; i++) arena.Allocate(4096);  // several 1 MiB blocks
  REQUIRE(arena.MemoryUsage() >= (size_t{4} << 20));
  REQUIRE(recorder.advice.empty());
}

TEST_CASE("arena without an advisor keeps normal blocks at any size", "[arena]") {
  Arena arena(Arena::kMaxBlockBytes);
  arena.Allocate(100);
  REQUIRE(arena.MemoryUsage() >= Arena::kMaxBlockBytes);
  REQUIRE(arena.MemoryUsage() < Arena::kMaxBlockBytes + 4096);
}
