#include "worker_command.h"

#include <limits>

#include "command_table.h"
#include "flag_set.h"
#include "report/run_json.h"
#include "seed_range.h"

namespace shale::cli {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

int Usage(std::ostream& err, const std::string& message) {
  err << "shale worker: " << message << "\n";
  return kExitUsage;
}

}  // namespace

int RunWorkerCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  std::string scenario_name, seed_text, strategy, faults, bugs_text = "0";
  int64_t ops = 2000, crashes = 3;
  FlagSet flags("worker");
  flags.AddString("scenario", &scenario_name, "scenario name");
  flags.AddString("seed", &seed_text, "seed");
  flags.AddInt("ops", &ops, 0, kIntMax, "operations");
  flags.AddInt("crashes", &crashes, -1, kIntMax, "crashes");
  flags.AddString("strategy", &strategy, "random, pct or empty");
  flags.AddString("faults", &faults, "on, off or empty");
  flags.AddString("planted_bugs", &bugs_text, "shale::PlantedBug bits");
  std::string error;
  if (!flags.Parse(args, &error)) return Usage(err, error);
  if (!flags.positional().empty()) return Usage(err, "unexpected argument " + flags.positional()[0]);
  scenario::RegisterBuiltinScenarios();
  const scenario::Scenario* s = scenario::FindScenario(scenario_name);
  if (s == nullptr) return Usage(err, "unknown scenario '" + scenario_name + "'");
  scenario::RunConfig config;
  if (!ParseUint64(seed_text, &config.seed)) return Usage(err, "bad --seed '" + seed_text + "'");
  if (!ParseUint64(bugs_text, &config.planted_bugs)) {
    return Usage(err, "bad --planted_bugs '" + bugs_text + "'");
  }
  config.scenario = scenario_name;
  config.ops = static_cast<int>(ops);
  config.crashes = static_cast<int>(crashes);
  config.strategy = strategy;
  config.faults = faults;
  scenario::RunResult result = s->Run(config);
  result.trace.clear();
  out << "\n" << report::EncodeRunResultLine(result) << "\n" << std::flush;
  return out ? kExitOk : kExitFailure;
}

std::vector<std::string> WorkerArgv(const scenario::RunConfig& c) {
  return {"worker",
          "--scenario=" + c.scenario,
          "--seed=" + std::to_string(c.seed),
          "--ops=" + std::to_string(c.ops),
          "--crashes=" + std::to_string(c.crashes),
          "--strategy=" + c.strategy,
          "--faults=" + c.faults,
          "--planted_bugs=" + std::to_string(c.planted_bugs)};
}

}  // namespace shale::cli
