// shale fuzz: bad input exits 2 with one line and starts nothing (the
// sessions themselves need the libFuzzer build; fuzz/sim_fuzz_target.cc).
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "command_table.h"
#include "fuzz_command.h"

using namespace shale::cli;

namespace {

void RequireFuzzError(std::vector<std::string> args, const std::string& needle) {
  testing::RequireCommandError(RunFuzzCommand, std::move(args), "shale fuzz: ", needle);
}

}  // namespace

TEST_CASE("shale fuzz rejects bad input with one line", "[cli][fuzz]") {
  RequireFuzzError({}, "give --scenario");
  RequireFuzzError({"--scenario", "nope"}, "unknown scenario 'nope'");
  RequireFuzzError({"--scenario", "crash-recovery", "--seconds", "0"}, "seconds");
  RequireFuzzError({"--scenario", "crash-recovery", "--planted_bugs", "no_such_bug"},
                   "no_such_bug");
  RequireFuzzError({"--scenario", "crash-recovery", "--fuzzer", "/nonexistent/fuzzer"},
                   "no fuzzer binary at /nonexistent/fuzzer");
  RequireFuzzError({"--scenario", "crash-recovery", "extra"}, "unexpected argument 'extra'");
}
