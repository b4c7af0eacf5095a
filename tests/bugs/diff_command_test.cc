// `shale diff` in a fresh process: bad input exits 2 with one line; a
// short campaign of each mode the binary has passes on the correct engine.
#include <catch2/catch.hpp>

#include <string>

#include "common/temp_dir.h"
#include "kv_store.h"
#include "shale_binary.h"

namespace {

using Command = shale_test::CommandResult;

void RequireUsageError(const std::string& args, const std::string& words) {
  const Command c = shale_test::RunShale(args);
  INFO(args << " -> " << c.out);
  REQUIRE(c.exit_code == 2);
  REQUIRE(c.out.find(words) != std::string::npos);
  REQUIRE(c.out.find('\n') == c.out.size() - 1);  // one line
}

TEST_CASE("shale diff refuses bad input with one line and exit 2", "[diff]") {
  RequireUsageError("diff --against nothing --seeds 1..2", "unknown --against 'nothing'");
  RequireUsageError("diff --against", "--against needs a value");
  RequireUsageError("diff --scenario crash-recovery --seeds 1..2", "--scenario is not taken");
  RequireUsageError("diff --seeds 2..1", "shale diff: malformed seed range");
  RequireUsageError("diff --seeds 1..2 --faults on", "--faults is not taken");
  RequireUsageError("diff --seeds 1..2 --crashes=2", "--crashes is not taken");
  RequireUsageError("diff --seeds 1..2 --ops 100001", "--ops takes at most 100000");
  RequireUsageError("diff --seeds 1..2 --ops=99999999999999999999999", "--ops takes at most");
  if (!shale::bench::CompareEnginesBuilt()) {
    RequireUsageError("diff --against rocksdb --seeds 1..2", "SHALE_BENCH_COMPARE");
  }
}

TEST_CASE("shale diff passes on the correct engine, in each mode built in", "[diff]") {
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  Command c = shale_test::RunShale("diff --seeds 1..20 --jobs 2 --out " + dir.path() + "/options");
  INFO(c.out);
  REQUIRE(c.exit_code == 0);
  REQUIRE(c.out.find("20 seeds, 20 passed") != std::string::npos);
  if (shale::bench::CompareEnginesBuilt()) {
    c = shale_test::RunShale("diff --against rocksdb --seeds 1..10 --jobs 2 --out " + dir.path() +
                             "/rocksdb");
    INFO(c.out);
    REQUIRE(c.exit_code == 0);
    REQUIRE(c.out.find("10 seeds, 10 passed") != std::string::npos);
  }
}

}  // namespace
