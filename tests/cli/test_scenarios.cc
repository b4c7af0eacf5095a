#include "test_scenarios.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

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
  // Probes as a simulated run counts them: even seeds reach one, multiples
  // of three another.
  r.probes_counted = true;
  if (c.seed % 2 == 0) r.probe_hits["write.slowdown"] = 3;
  if (c.seed % 3 == 0) r.probe_hits["compaction.trivial_move"] = 1;
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

// Planted nondeterminism: the run's trace holds, and its hash is, the
// address of a fresh map, a pointer value that other processes see
// elsewhere (a recheck's worker shifts its maps first).
class ReadsAPointer : public scenario::Scenario {
 public:
  const char* name() const override { return "test-reads-a-pointer"; }
  const char* summary() const override { return "hashes a pointer value (nondeterministic)"; }
  std::vector<std::string> properties() const override { return {}; }
  RunResult Run(const RunConfig& c) const override {
    constexpr size_t kBytes = size_t{1} << 20;
    void* map = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const auto address = reinterpret_cast<uintptr_t>(map);
    if (map != MAP_FAILED) ::munmap(map, kBytes);
    RunResult r = Passing(c);
    r.trace_hash = (address ^ c.seed) * 0x9e3779b97f4a7c15ull;
    if (c.trace) {
      r.trace = {"step 1: seed " + std::to_string(c.seed),
                 "step 2: map at " + std::to_string(address), "step 3: done"};
    }
    return r;
  }
};

}  // namespace

void RegisterTestScenarios() {
  static const bool registered = [] {
    static const FailOn7 fail_on_7;
    static const Crash crash;
    static const ReadsAPointer reads_a_pointer;
    scenario::RegisterScenario(&fail_on_7);
    scenario::RegisterScenario(&crash);
    scenario::RegisterScenario(&reads_a_pointer);
    return true;
  }();
  (void)registered;
}

}  // namespace shale::cli::testing
