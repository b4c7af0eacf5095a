// The flags of `shale bench`, parsed into a BenchConfig. db_bench's names
// and defaults; see BenchUsage() for the list.
//
// A separate function (not main) so tests can feed it bad input and check
// that it yields one error line and kExitUsage.
// Thread safety: stateless; call from one thread.
#pragma once

#include <span>
#include <string>

// Relative so that tests/cli, which links only the engine, can compile this
// file into its own binary (see tests/cli/cli_args_test.cc).
#include "../bench/bench_config.h"

namespace shale::cli {

enum class BenchParse { kRun, kHelp, kUsageError };

// Fills *config from args (words after "bench"). kUsageError leaves one line
// (no "shale:" prefix) in *error; kHelp means --help was given.
BenchParse ParseBenchFlags(std::span<const std::string> args, bench::BenchConfig* config,
                           std::string* error);

// The flag list with defaults, one line per flag.
std::string BenchUsage();

}  // namespace shale::cli
