// Fixed-seed rapidcheck properties, so every run checks the same cases and a
// failure reproduces from the printed seed (plain rc::prop draws a fresh
// seed per process). Test-only helpers.
//   CheckProperty(name, cases, seed, fn): runs the property directly.
//   FixedSeedProp(name, fn, seed, cases): the same inside a Catch SECTION,
//       used exactly like rc::prop.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include <rapidcheck.h>
#include <catch2/catch.hpp>

namespace shale_test {

template <typename Testable>
void CheckProperty(const std::string& name, int cases, uint64_t seed, Testable&& testable) {
  rc::detail::TestMetadata metadata;
  metadata.id = name;
  metadata.description = name;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.seed = seed;
  params.maxSuccess = cases;
  const auto result = rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
  if (!result.template is<rc::detail::SuccessResult>()) {
    std::ostringstream ss;
    rc::detail::printResultMessage(result, ss);
    INFO(name << " (seed " << seed << "):\n" << ss.str());
    FAIL();
  }
  SUCCEED();
}

template <typename Testable>
void FixedSeedProp(const std::string& name, Testable&& testable, uint64_t seed = 20240611,
                   int cases = 100) {
  SECTION(name) { CheckProperty(name, cases, seed, std::forward<Testable>(testable)); }
}

}  // namespace shale_test
