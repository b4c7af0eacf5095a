// `shale bench --fs=sim-flash`: the flash flags parse, bad values and
// combinations exit 2 with one line, and a tiny run on the simulated
// open-channel SSD prints the device, the raw and engine benchmark lines
// and the backend's figures, the same on every run (simulated time).
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "bench_runner.h"
#include "cli_test_support.h"
#include "command_table.h"

using namespace shale;
using namespace shale::cli;
using namespace shale::cli::testing;

namespace {

// The MB/s figure on benchmark name's line of out, or -1.
double MiBPerSecond(const std::string& out, const std::string& name) {
  const size_t line = out.find("\n" + name + " ");
  if (line == std::string::npos) return -1;
  const size_t unit = out.find(" MB/s", line);
  const size_t number = out.rfind(' ', unit - 1);
  return std::stod(out.substr(number + 1, unit - number - 1));
}

std::string RunBench(const bench::BenchConfig& config) {
  std::ostringstream out, err;
  const int code = bench::RunBench(config, out, err);
  INFO("stderr: " << err.str());
  REQUIRE(code == kExitOk);
  return out.str();
}

}  // namespace

TEST_CASE("bench flash flags parse into the config", "[cli][bench][flash]") {
  const bench::BenchConfig c =
      ParseBench({"--fs=sim-flash", "--flash_units=8", "--flash_read_cache_bytes=1048576",
                  "--flash_buffer_across_flush", "--flash_host_ns_per_op=500",
                  "--benchmarks=rawwrite,rawread,fillrandom"});
  CHECK(c.fs == "sim-flash");
  CHECK(c.flash_units == 8);
  CHECK(c.flash_read_cache_bytes == 1048576);
  CHECK(c.flash_buffer_across_flush);
  CHECK(c.flash_host_ns_per_op == 500);
  CHECK(c.benchmarks == std::vector<std::string>{"rawwrite", "rawread", "fillrandom"});
}

TEST_CASE("bad flash flags are one error line and exit 2", "[cli][bench][flash]") {
  RequireOneErrorLine(RunParseOnlyBench({"bench", "--fs=zns"}), "unknown --fs 'zns'");
  RequireOneErrorLine(RunParseOnlyBench({"bench", "--benchmarks=rawwrite"}),
                      "needs --fs=sim-flash");
  RequireOneErrorLine(RunParseOnlyBench({"bench", "--fs=sim-flash", "--benchmarks=rawread"}),
                      "right after rawwrite");
  RequireOneErrorLine(RunParseOnlyBench({"bench", "--fs=sim-flash", "--engine=leveldb"}),
                      "Shale only");
  RequireOneErrorLine(RunParseOnlyBench({"bench", "--fs=sim-flash", "--flash_units=0"}),
                      "flash_units");
  RequireOneErrorLine(RunParseOnlyBench({"bench", "--fs=sim-flash", "--flash_units=513"}),
                      "flash_units");
}

TEST_CASE("a sim-flash bench runs on the simulated device, in simulated time",
          "[cli][bench][flash]") {
  const bench::BenchConfig c =
      ParseBench({"--fs=sim-flash", "--flash_units=2", "--num=3000", "--reads=1000",
                  "--write_buffer_size=65536", "--cache_size=65536",
                  "--benchmarks=rawwrite,rawread,fillrandom,readrandom"});
  const std::string out = RunBench(c);
  INFO(out);
  CHECK(out.find("Device:     simulated open-channel SSD, 1 groups x 2 units") !=
        std::string::npos);
  CHECK(out.find("\nrawwrite     : ") != std::string::npos);
  CHECK(out.find("\nrawread      : ") != std::string::npos);
  CHECK(out.find("\nfillrandom   : ") != std::string::npos);
  CHECK(out.find("\nreadrandom   : ") != std::string::npos);
  CHECK(out.find("\nFlash:      engine wrote ") != std::string::npos);
  // Two units program in parallel: the raw write rate is about twice one
  // unit's 32 KiB per ms (31.25 MiB/s); the last programs overlap the end.
  const double raw_write = MiBPerSecond(out, "rawwrite");
  CHECK(raw_write > 60.0);
  CHECK(raw_write < 66.0);
  // Simulated time: the same run prints the same figures.
  CHECK(RunBench(c) == out);
}
