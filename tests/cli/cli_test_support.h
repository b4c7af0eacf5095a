// Shared by the CLI tests: a bench command that only parses its flags, a
// dispatcher over a test command table, the bench flags parsed, and the
// one-error-line check that every bad-input test makes.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "command_table.h"

namespace shale::cli::testing {

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

// A bench command that only parses, so no engine is needed.
inline int ParseOnlyBench(std::span<const std::string> args, std::ostream&, std::ostream& err) {
  bench::BenchConfig config;
  std::string error;
  if (ParseBenchFlags(args, &config, &error) != BenchParse::kUsageError) return kExitOk;
  err << "shale: " << error << "\n";
  return kExitUsage;
}

inline CliRun DispatchTo(std::span<const Command> commands, std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = Dispatch(commands, args, out, err);
  return {code, out.str(), err.str()};
}

// `shale bench ARGS...` through a command table whose bench only parses.
inline CliRun RunParseOnlyBench(std::vector<std::string> args) {
  static constexpr Command kCommands[] = {
      {"bench", "parse bench flags", ParseOnlyBench, BenchUsage},
  };
  return DispatchTo(kCommands, std::move(args));
}

// The bench flags parsed into a config; REQUIREs that they parse.
inline bench::BenchConfig ParseBench(const std::vector<std::string>& args) {
  bench::BenchConfig config;
  std::string error;
  const BenchParse parsed = ParseBenchFlags(args, &config, &error);
  INFO("error: " << error);
  REQUIRE(parsed == BenchParse::kRun);
  return config;
}

// Exit 2 and exactly one newline-terminated "shale: ..." line containing
// needle; nothing on stdout.
inline void RequireOneErrorLine(const CliRun& run, const std::string& needle) {
  INFO("stderr: " << run.err);
  REQUIRE(run.exit_code == kExitUsage);
  REQUIRE(std::count(run.err.begin(), run.err.end(), '\n') == 1);
  REQUIRE(run.err.back() == '\n');
  REQUIRE(run.err.rfind("shale: ", 0) == 0);
  REQUIRE(run.err.find(needle) != std::string::npos);
  REQUIRE(run.out.empty());
}

// run(args) exits 2 with exactly one "<prefix>..." line containing needle,
// and nothing on stdout (the commands whose errors name themselves, e.g.
// "shale shrink: ").
inline void RequireCommandError(CommandFn run, std::vector<std::string> args,
                                const std::string& prefix, const std::string& needle) {
  std::ostringstream out, err;
  const int code = run(args, out, err);
  const std::string text = err.str();
  INFO("stderr: " << text);
  CHECK(code == kExitUsage);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  CHECK(text.rfind(prefix, 0) == 0);
  CHECK(text.find(needle) != std::string::npos);
  CHECK(out.str().empty());
}

}  // namespace shale::cli::testing
