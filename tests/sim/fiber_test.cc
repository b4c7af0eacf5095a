// Fiber: switching between the host and fibers, finishing, abandoning.
#include "sim/fiber.h"

#include <catch2/catch.hpp>

#include <cfenv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace shale::sim {

TEST_CASE("fiber runs, suspends and resumes in order", "[fiber]") {
  std::vector<std::string> log;
  Fiber* self = nullptr;
  Fiber fiber(64 << 10, [&] {
    log.push_back("a1");
    REQUIRE(Fiber::Current() == self);
    self->Suspend();
    log.push_back("a2");
    self->Suspend();
    log.push_back("a3");
  });
  self = &fiber;
  REQUIRE(Fiber::Current() == nullptr);
  fiber.Resume();
  log.push_back("h1");
  fiber.Resume();
  log.push_back("h2");
  REQUIRE_FALSE(fiber.finished());
  fiber.Resume();
  REQUIRE(fiber.finished());
  REQUIRE(Fiber::Current() == nullptr);
  REQUIRE(log == std::vector<std::string>{"a1", "h1", "a2", "h2", "a3"});
}

TEST_CASE("many fibers interleave with deep stacks", "[fiber]") {
  constexpr int kFibers = 16;
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::vector<int> counts(kFibers, 0);
  for (int i = 0; i < kFibers; i++) {
    fibers.push_back(std::make_unique<Fiber>(128 << 10, [&, i] {
      char buffer[32 << 10];  // touches a good part of the stack
      for (int round = 0; round < 10; round++) {
        buffer[round * 1000] = static_cast<char>(round);
        counts[i] += buffer[round * 1000] >= 0 ? 1 : 0;
        fibers[i]->Suspend();
      }
    }));
  }
  for (int round = 0; round <= 10; round++) {
    for (auto& fiber : fibers) fiber->Resume();
  }
  for (int i = 0; i < kFibers; i++) {
    REQUIRE(fibers[i]->finished());
    REQUIRE(counts[i] == 10);
  }
}

TEST_CASE("an abandoned fiber's stack is freed without unwinding", "[fiber]") {
  bool destructor_ran = false;
  struct Guard {
    bool* flag;
    ~Guard() { *flag = true; }
  };
  auto fiber = std::make_unique<Fiber>(64 << 10, [&] {
    Guard guard{&destructor_ran};
    Fiber::Current()->Suspend();
  });
  fiber->Resume();
  REQUIRE_FALSE(fiber->finished());
  fiber.reset();  // abandoned mid-body
  REQUIRE_FALSE(destructor_ran);
}

TEST_CASE("a fiber starts on an aligned stack and can call varargs with doubles", "[fiber]") {
  uintptr_t address = 0;
  char text[32] = {};
  Fiber fiber(64 << 10, [&] {
    alignas(64) char local[64];
    address = reinterpret_cast<uintptr_t>(local);
    // printf's varargs prologue stores xmm registers with aligned moves.
    std::snprintf(text, sizeof(text), "%.2f %.1f", 3.14159, 2.5);
  });
  fiber.Resume();
  REQUIRE(fiber.finished());
  REQUIRE(address % 64 == 0);
  REQUIRE(std::strcmp(text, "3.14 2.5") == 0);
}

TEST_CASE("floating-point control state is per fiber", "[fiber]") {
  REQUIRE(std::fegetround() == FE_TONEAREST);
  int seen_in_fiber = -1;
  int seen_after_resume = -1;
  Fiber fiber(64 << 10, [&] {
    seen_in_fiber = std::fegetround();  // inherited from the host
    std::fesetround(FE_UPWARD);
    Fiber::Current()->Suspend();
    seen_after_resume = std::fegetround();
    std::fesetround(FE_TONEAREST);
  });
  fiber.Resume();
  REQUIRE(seen_in_fiber == FE_TONEAREST);
  REQUIRE(std::fegetround() == FE_TONEAREST);  // the fiber's mode stayed with it
  fiber.Resume();
  REQUIRE(fiber.finished());
  REQUIRE(seen_after_resume == FE_UPWARD);
  REQUIRE(std::fegetround() == FE_TONEAREST);
}

// Run with: test_sim "[.bench]". Prints switches per second (a resume and a
// suspend count as two switches).
TEST_CASE("fiber switch throughput", "[.bench][fiber]") {
  constexpr int kRounds = 2'000'000;
  int counter = 0;
  Fiber fiber(64 << 10, [&] {
    while (true) {
      counter++;
      Fiber::Current()->Suspend();
    }
  });
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; i++) fiber.Resume();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(counter == kRounds);
  std::printf("fiber switches: %d in %.3f s = %.1f M switches/s (%.1f ns each)\n", 2 * kRounds,
              seconds, 2 * kRounds / seconds / 1e6, seconds * 1e9 / (2 * kRounds));
}

}  // namespace shale::sim
