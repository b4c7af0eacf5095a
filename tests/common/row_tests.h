// One Catch test case per row of a table, registered at static
// initialisation. ctest lists each row as its own test, so `ctest -j`
// runs the rows of a long table (one campaign per row) side by side
// instead of one after another inside a single test.
//
//   const bool registered = shale_test::RegisterRowTests(
//       kRows, [](const Row& r) { return std::string("row ") + r.name; },
//       [](const Row& r) { REQUIRE(Check(r)); }, "[tag]");
//
// REQUIRES: `rows` outlives the test run (a namespace-scope array); every
// name is distinct (Catch refuses a duplicate name at start-up).
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>

namespace shale_test {

namespace row_tests_internal {

template <typename Row, typename Check>
class RowInvoker : public Catch::ITestInvoker {
 public:
  RowInvoker(const Row* row, Check check) : row_(row), check_(check) {}
  void invoke() const override { check_(*row_); }

 private:
  const Row* row_;
  Check check_;
};

}  // namespace row_tests_internal

template <typename Row, size_t N, typename Name, typename Check>
bool RegisterRowTests(const Row (&rows)[N], Name name, Check check, const char* tags) {
  for (size_t i = 0; i < N; i++) {
    // Catch copies the name and tags into its registry.
    const std::string row_name = name(rows[i]);
    Catch::AutoReg(new row_tests_internal::RowInvoker<Row, Check>(&rows[i], check),
                   Catch::SourceLineInfo(__FILE__, static_cast<size_t>(__LINE__)),
                   Catch::StringRef(), Catch::NameAndTags{row_name, tags});
  }
  return true;
}

}  // namespace shale_test
