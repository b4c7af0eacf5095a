// Bad command lines get one error line on stderr and exit code 2, never a
// crash or a usage dump (the contract in cli/command_table.h).
//
// tests/cli links only the engine, so the CLI's parsing sources (which need
// only the standard library) are compiled into this binary directly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "cli_test_support.h"
#include "command_table.h"
#include "flag_set.h"

using namespace shale;
using namespace shale::cli;
using namespace shale::cli::testing;

namespace {

int NoopVersion(std::span<const std::string>, std::ostream& out, std::ostream&) {
  out << "shale test\n";
  return kExitOk;
}

constexpr Command kTestCommands[] = {
    {"bench", "parse bench flags", ParseOnlyBench, BenchUsage},
    {"version", "print the version", NoopVersion, nullptr},
};

CliRun Run(std::vector<std::string> args) { return DispatchTo(kTestCommands, std::move(args)); }

}  // namespace

TEST_CASE("unknown or missing subcommand exits 2 with one line", "[cli]") {
  RequireOneErrorLine(Run({"frobnicate"}), "unknown subcommand 'frobnicate'");
  RequireOneErrorLine(Run({}), "no subcommand");
}

TEST_CASE("unknown flag exits 2 with one line", "[cli]") {
  RequireOneErrorLine(Run({"bench", "--foo"}), "unknown flag --foo");
  RequireOneErrorLine(Run({"bench", "--foo=1"}), "unknown flag --foo");
  RequireOneErrorLine(Run({"bench", "stray"}), "unexpected argument 'stray'");
}

// A second value would replace the first without a word.
TEST_CASE("a flag given twice exits 2 with one line", "[cli]") {
  RequireOneErrorLine(Run({"bench", "--num=1", "--num=2"}), "flag --num given twice");
  RequireOneErrorLine(Run({"bench", "--num", "1", "--num", "1"}), "flag --num given twice");
}

TEST_CASE("malformed numbers exit 2 with one line", "[cli]") {
  for (const char* bad : {"--num=abc", "--num=12x", "--num=", "--num=-5", "--threads=0",
                          "--key_size=99999", "--num=99999999999999999999999",
                          "--max_open_files=-2", "--bloom_bits=65", "--block_size=100"}) {
    RequireOneErrorLine(Run({"bench", bad}), "bad value for --");
  }
  for (const char* bad : {"--memtable_bloom_size_ratio=abc",
                          "--memtable_bloom_size_ratio=", "--memtable_bloom_size_ratio=0.1x",
                          "--memtable_bloom_size_ratio=nan", "--memtable_bloom_size_ratio=inf"}) {
    RequireOneErrorLine(Run({"bench", bad}), "is not a number");
  }
  for (const char* bad : {"--memtable_bloom_size_ratio=0.3", "--memtable_bloom_size_ratio=-0.1",
                          "--memtable_bloom_size_ratio=1e999"}) {
    RequireOneErrorLine(Run({"bench", bad}), "is out of range [0, 0.25]");
  }
  RequireOneErrorLine(Run({"bench", "--cache_size=64Q"}), "not a byte count");
  RequireOneErrorLine(Run({"bench", "--sync=maybe"}), "not true/false");
  RequireOneErrorLine(Run({"bench", "--num"}), "needs a value");
}

TEST_CASE("bad benchmark or engine names exit 2 with one line", "[cli]") {
  RequireOneErrorLine(Run({"bench", "--benchmarks=fillrandom,nope"}), "unknown benchmark 'nope'");
  RequireOneErrorLine(Run({"bench", "--benchmarks=,"}), "names no benchmark");
  RequireOneErrorLine(Run({"bench", "--engine=sqlite"}), "unknown engine 'sqlite'");
}

TEST_CASE("good bench flags parse into the config", "[cli]") {
  const std::vector<std::string> args = {"--benchmarks=fillseq,readseq",
                                         "--num",
                                         "500",
                                         "--cache_size=8M",
                                         "--sync",
                                         "--disable_wal=false",
                                         "--engine=all",
                                         "--db=/tmp/x",
                                         "--max_open_files=30",
                                         "--bloom_bits=0",
                                         "--block_size=16384"};
  bench::BenchConfig config;
  std::string error;
  REQUIRE(ParseBenchFlags(args, &config, &error) == BenchParse::kRun);
  REQUIRE(config.benchmarks == std::vector<std::string>{"fillseq", "readseq"});
  REQUIRE(config.num == 500);
  REQUIRE(config.EffectiveReads() == 500);
  REQUIRE(config.cache_size_bytes == 8ull << 20);
  REQUIRE(config.sync);
  REQUIRE_FALSE(config.disable_wal);
  REQUIRE(config.engine == "all");
  REQUIRE(config.db_path == "/tmp/x");
  REQUIRE(config.max_open_files == 30);
  REQUIRE(config.bloom_bits == 0);
  REQUIRE(config.block_size_bytes == 16384);
}

TEST_CASE("help and version succeed", "[cli]") {
  const std::vector<std::string> help_args = {"--help"};
  bench::BenchConfig config;
  std::string error;
  REQUIRE(ParseBenchFlags(help_args, &config, &error) == BenchParse::kHelp);
  std::ostringstream out, err;
  REQUIRE(RunHelp(kTestCommands, std::vector<std::string>{"bench"}, out, err) == kExitOk);
  REQUIRE(out.str().find("--num") != std::string::npos);
  REQUIRE(Run({"--version"}).exit_code == kExitOk);
  REQUIRE(BenchUsage().find("--write_buffer_size") != std::string::npos);
}
