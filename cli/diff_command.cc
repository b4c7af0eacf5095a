// `shale diff`. See diff_command.h.
#include "diff_command.h"

#include <charconv>
#include <vector>

#include "command_table.h"
#include "kv_store.h"
#include "run_command.h"
#include "run_flags.h"
#include "scenarios/diff/diff_log.h"

namespace shale::cli {

namespace {

int DiffUsageError(std::ostream& err, const std::string& message) {
  err << "shale diff: " << message << " (see 'shale help diff')\n";
  return kExitUsage;
}

// True if value is a whole number above the longest log; other bad values
// are left to shale run's parser, which names them.
bool OpsOverLimit(const std::string& value) {
  int64_t n = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, n);
  return ec == std::errc::result_out_of_range ||
         (ec == std::errc() && ptr == end && n > scenario::kMaxDiffOps);
}

}  // namespace

int RunDiffCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  std::string against = "options";
  std::vector<std::string> run_args;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out << DiffUsage();
      return kExitOk;
    }
    if (a == "--scenario" || a.rfind("--scenario=", 0) == 0) {
      return DiffUsageError(err, "--against names what to compare with; --scenario is not taken");
    }
    for (const char* unused : {"--faults", "--crashes"}) {
      const std::string flag = unused;
      if (a == flag || a.rfind(flag + "=", 0) == 0) {
        return DiffUsageError(err, flag + " is not taken: a diff injects no faults or crashes");
      }
    }
    if (a == "--against") {
      if (i + 1 == args.size()) return DiffUsageError(err, "--against needs a value");
      against = args[++i];
    } else if (a.rfind("--against=", 0) == 0) {
      against = a.substr(10);
    } else {
      const bool ops_next = a == "--ops" && i + 1 < args.size();
      if (OpsOverLimit(ops_next ? args[i + 1] : a.rfind("--ops=", 0) == 0 ? a.substr(6) : "")) {
        return DiffUsageError(
            err, "--ops takes at most " + std::to_string(scenario::kMaxDiffOps) + " ops per log");
      }
      run_args.push_back(a);
    }
  }
  if (against != "options" && against != "rocksdb") {
    return DiffUsageError(err, "unknown --against '" + against + "' (want options or rocksdb)");
  }
  if (against == "rocksdb" && !bench::CompareEnginesBuilt()) {
    return DiffUsageError(err, "--against rocksdb needs a build with -DSHALE_BENCH_COMPARE=ON");
  }
  run_args.insert(run_args.begin(), {"--scenario", "diff-" + against});
  return RunRunCommandAs("diff", run_args, out, err);
}

std::string DiffUsage() {
  return "  --against options|rocksdb  what every answer is compared with (default options: "
         "Shale under drawn option sets; rocksdb: Debian's RocksDB 7.8, needs "
         "-DSHALE_BENCH_COMPARE=ON)\n"
         "  every other flag is shale run's (--seeds, --jobs, --out, --ops: ops per log, "
         "default 600, --max_failures, --shard):\n" +
         RunUsage();
}

}  // namespace shale::cli
