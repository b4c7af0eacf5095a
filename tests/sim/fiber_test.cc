// Fiber: switching between the host and fibers, finishing, abandoning.
#include "sim/fiber.h"

#include <catch2/catch.hpp>

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

}  // namespace shale::sim
