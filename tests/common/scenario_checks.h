// Shared checks for the scenario tests.
#pragma once

#include <catch2/catch.hpp>

#include "scenarios/scenario.h"

namespace shale_test {

// A failing seed run again gives the same failure: the simulator's replay
// promise, which every planted-bug test checks for the failure it found.
inline void RequireSameFailure(const shale::scenario::RunResult& failure,
                               const shale::scenario::RunResult& again) {
  REQUIRE_FALSE(again.passed);
  REQUIRE(again.trace_hash == failure.trace_hash);
  REQUIRE(again.failure.property == failure.failure.property);
  REQUIRE(again.failure.key == failure.failure.key);
  REQUIRE(again.failure.message == failure.failure.message);
}

}  // namespace shale_test
