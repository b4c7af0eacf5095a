// build/shale: the one binary users touch. main only
// builds the argument list and hands it to the subcommand table below; each
// subcommand parses its own flags (cli/flag_set.h says why not absl flags).
#include <iostream>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "bench_runner.h"
#include "command_table.h"
#include "diff_command.h"
#include "fuzz_command.h"
#include "kv_store.h"
#include "replay_command.h"
#include "run_command.h"
#include "scenarios/diff/diff_engine.h"
#ifdef SHALE_HOSTED
#include "hosted/leveldb/leveldb_engine.h"
#include "hosted/rocksdb/rocksdb_engine.h"
#endif
#include "shrink_command.h"

namespace shale::cli {
namespace {

constexpr std::string_view kShaleVersion = "0.1.0-dev";

int RunBenchCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  bench::BenchConfig config;
  std::string error;
  switch (ParseBenchFlags(args, &config, &error)) {
    case BenchParse::kUsageError:
      err << "shale: " << error << "\n";
      return kExitUsage;
    case BenchParse::kHelp:
      out << BenchUsage();
      return kExitOk;
    case BenchParse::kRun:
      break;
  }
  return bench::RunBench(config, out, err);
}

int RunVersion(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (!args.empty()) {
    err << "shale: version takes no arguments\n";
    return kExitUsage;
  }
  out << "shale " << kShaleVersion << "\n";
  return kExitOk;
}

int RunHelpCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);

// The subcommands, in `shale help` order. New subcommands are new rows.
constexpr Command kCommands[] = {
    {"bench", "db_bench-style benchmarks on Shale, LevelDB and RocksDB", RunBenchCommand,
     BenchUsage},
    {"diff", "differential runs: one log on Shale under drawn options, or on Shale and RocksDB",
     RunDiffCommand, DiffUsage},
    {"fuzz", "coverage-guided simulation: libFuzzer over a scenario's choice tapes", RunFuzzCommand,
     FuzzUsage},
    {"help", "list commands, or show one command's flags", RunHelpCommand, nullptr},
    {"replay", "re-run one seed in-process (a failure file, or --scenario --seed)",
     RunReplayCommand, ReplayUsage},
    {"probes", "list the coverage probes a campaign counts (--require_probes)", RunProbesCommand,
     nullptr},
    {"report", "report merge OUT.json IN...: join shard reports", RunReportCommand, ReportUsage},
    {"run", "run scenarios over a seed range in worker processes", RunRunCommand, RunUsage},
    {"scenarios", "list the registered scenarios and their properties", RunScenariosCommand,
     nullptr},
    {"shrink", "cut a failure file down to a minimal failing run, and tell its story",
     RunShrinkCommand, ShrinkUsage},
    {"version", "print the version", RunVersion, nullptr},
};

int RunHelpCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  return RunHelp(kCommands, args, out, err);
}

}  // namespace
}  // namespace shale::cli

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
#ifdef SHALE_HOSTED
  // Engines Shale did not write, hosted through the interposer this
  // executable carries.
  shale::hosted::RegisterLevelDbEngine();
  shale::hosted::RegisterRocksDbEngine();
#endif
  // Null unless the comparison engines are built in.
  shale::scenario::SetRocksDbDiffEngineFactory(shale::bench::RocksDbDiffEngineFactory());
  return shale::cli::Dispatch(shale::cli::kCommands, args, std::cout, std::cerr);
}
