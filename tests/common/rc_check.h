// CheckProperty: runs a rapidcheck property for a fixed number of cases from
// a fixed seed, so CI runs the same cases every time (a failure reproduces
// from the printed seed). RC_PARAMS in the environment still overrides
// nothing here on purpose: the case count is part of the test's contract.
// Test-only helper.
#pragma once

#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <rapidcheck.h>

namespace shale_test {

template <typename Testable>
void CheckProperty(const std::string& name, int cases, uint64_t seed, Testable&& testable) {
  rc::detail::TestMetadata metadata;
  metadata.id = name;
  metadata.description = name;
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = cases;
  params.maxSize = 100;
  const auto result =
      rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
  if (!result.template is<rc::detail::SuccessResult>()) {
    std::ostringstream ss;
    rc::detail::printResultMessage(result, ss);
    INFO(name << " (seed " << seed << "):\n" << ss.str());
    FAIL();
  }
  SUCCEED();
}

}  // namespace shale_test
