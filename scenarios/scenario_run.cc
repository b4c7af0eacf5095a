#include "scenarios/scenario_run.h"

#include "util/random.h"

namespace shale::scenario {

sim::SimulationOptions SimOptionsFor(const RunConfig& config) {
  sim::SimulationOptions o;
  o.seed = config.seed;
  Random pick(config.seed ^ 0x5ca1ab1eull);
  o.strategy = config.strategy == "pct"      ? sim::Strategy::kPct
               : config.strategy == "random" ? sim::Strategy::kRandom
               : pick.OneIn(2)               ? sim::Strategy::kPct
                                             : sim::Strategy::kRandom;
  return o;
}

void CaptureTrace(const RunConfig& config, sim::Simulation* sim, RunResult* result) {
  if (!config.trace) return;
  sim->set_trace_sink([result](const std::string& line) {
    if (result->trace.size() < kMaxTraceLines) result->trace.push_back(line);
  });
}

void RecordSimulation(sim::Simulation* sim, RunResult* result) {
  result->trace_hash = sim->trace()->value();
  result->sim_time_ns = sim->now_ns();
  result->steps = sim->steps();
}

const char* SimulationFailureProperty(const Status& run_status) {
  return run_status.message().rfind("deadlock", 0) == 0 ? "deadlock" : "simulation";
}

}  // namespace shale::scenario
