// The engine half of a scenario's run: see run_engine.h.
#include "scenarios/engine/run_engine.h"

#include <utility>

namespace shale::scenario {

bool PrepareRunEngine(const RunConfig& config, RunResult* result, const HostedEngine** hosted) {
  *hosted = FindHostedEngine(config.engine);
  if (IsShaleEngine(config.engine)) return true;
  const Status s = *hosted == nullptr ? Status::InvalidArgument("unknown engine", config.engine)
                                      : (*hosted)->Prepare();
  if (s.ok()) return true;
  result->passed = false;
  result->failure = Failure{"hosting",    "", "the engine ready to host",
                            s.ToString(), 0,  "the engine cannot be hosted here: " + s.ToString()};
  return false;
}

std::unique_ptr<HostedOptions> DrawHostedOptions(const HostedEngine& engine,
                                                 const RunConfig& config, sim::Simulation* sim,
                                                 std::map<std::string, std::string>* described) {
  std::unique_ptr<HostedOptions> options = engine.Draw(sim->rng(), config.pins, described);
  options->planted_bugs = config.planted_bugs;
  if (config.trace) {
    options->info_log_trace = [sim](const std::string& line) { sim->TraceEvent(line); };
  }
  (*described)["engine"] = std::string(engine.name()) + " " + engine.version();
  return options;
}

void KeepDescribed(std::initializer_list<const char*> keys,
                   std::map<std::string, std::string>* described) {
  std::map<std::string, std::string> kept;
  for (const char* key : keys) {
    const auto it = described->find(key);
    if (it != described->end()) kept[key] = it->second;
  }
  for (const auto& [key, value] : *described) {
    if (key.rfind("disk", 0) == 0) kept[key] = value;
  }
  *described = std::move(kept);
}

}  // namespace shale::scenario
