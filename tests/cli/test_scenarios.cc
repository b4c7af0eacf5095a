#include "test_scenarios.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace shale::cli::testing {
namespace {

using scenario::RunConfig;
using scenario::RunResult;

RunResult Passing(const RunConfig& c) {
  RunResult r;
  r.scenario = c.scenario;
  r.seed = c.seed;
  r.trace_hash = c.seed * 0x9e3779b97f4a7c15ull;
  r.ops = static_cast<uint64_t>(c.ops);
  r.crashes = 1;
  r.steps = 10;
  r.sim_time_ns = 1000;
  r.faults_by_kind = {{"eio", 2}, {"power_loss", 1}};
  r.options_drawn = {{"write_buffer_size", "65536"}};
  if (c.trace) r.trace = {"step 1: put k", "step 2: crash"};
  return r;
}

class FailOn7 : public scenario::Scenario {
 public:
  const char* name() const override { return "test-fail-on-7"; }
  const char* summary() const override { return "fails multiples of 7"; }
  std::vector<std::string> properties() const override { return {"durability"}; }
  RunResult Run(const RunConfig& c) const override {
    RunResult r = Passing(c);
    if (c.seed % 7 != 0) return r;
    r.passed = false;
    r.failure = {"durability", "k7", "v1", "<missing>", 12, "acknowledged sync write lost"};
    return r;
  }
};

class Crash : public scenario::Scenario {
 public:
  const char* name() const override { return "test-crash"; }
  const char* summary() const override { return "aborts on seed 3, hangs on seed 4"; }
  std::vector<std::string> properties() const override { return {}; }
  RunResult Run(const RunConfig& c) const override {
    if (c.seed == 3) std::abort();
    if (c.seed == 4) {
      for (;;) ::pause();
    }
    return Passing(c);
  }
};

}  // namespace

void RegisterTestScenarios() {
  static const bool registered = [] {
    static const FailOn7 fail_on_7;
    static const Crash crash;
    scenario::RegisterScenario(&fail_on_7);
    scenario::RegisterScenario(&crash);
    return true;
  }();
  (void)registered;
}

}  // namespace shale::cli::testing
