// Coverage-guided simulation: the input is a choice tape (sim/choice_tape.h)
// for one run of the scenario named at build time (SHALE_FUZZ_SCENARIO), so
// libFuzzer's edge coverage of the engine and the simulator steers it
// toward new schedules, faults and workloads. Every input is a valid run
// (a tape that runs out goes on from its hash).
//
// An oracle failure aborts with the failure's message, so libFuzzer saves
// the input. It replays with
//   shale replay --scenario S --tape CRASH_FILE [--planted_bugs B]
// and shrinks with `shale shrink --scenario S --tape CRASH_FILE`.
// SHALE_FUZZ_PLANTED_BUGS (names, as --planted_bugs takes them) plants bugs:
// checker self-tests and the seeds-versus-fuzzer benchmark. `shale fuzz`
// runs these targets.
//
// SHALE_FUZZ_SWEEP_FROM=N turns the target into a seed sweep for that
// benchmark: each call ignores its input and runs seed N, N+1, ... as
// `shale run` would, so libFuzzer's edge count measures what a seed sweep
// covers, in the same instrumented binary as the fuzzer.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "planted_bugs.h"
#include "report/run_json.h"
#include "scenarios/scenario.h"

#ifndef SHALE_FUZZ_SCENARIO
#error "build with -DSHALE_FUZZ_SCENARIO=\"<scenario>\""
#endif

namespace {

uint64_t g_planted_bugs = 0;
bool g_sweep = false;
uint64_t g_next_seed = 0;  // with g_sweep: the seed the next call runs

// Reads SHALE_FUZZ_SWEEP_FROM (absent: no sweep); false if it is not a number.
bool ReadSweepStart() {
  const char* from = std::getenv("SHALE_FUZZ_SWEEP_FROM");
  if (from == nullptr) return true;
  char* end = nullptr;
  errno = 0;
  g_next_seed = std::strtoull(from, &end, 10);
  g_sweep = true;
  return errno == 0 && end != from && *end == '\0';
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  shale::scenario::RegisterBuiltinScenarios();
  if (shale::scenario::FindScenario(SHALE_FUZZ_SCENARIO) == nullptr) {
    std::fprintf(stderr, "sim fuzzer: unknown scenario %s\n", SHALE_FUZZ_SCENARIO);
    std::exit(2);
  }
  const char* bugs = std::getenv("SHALE_FUZZ_PLANTED_BUGS");
  std::string error;
  if (bugs != nullptr && !shale::cli::ParsePlantedBugs(bugs, &g_planted_bugs, &error)) {
    std::fprintf(stderr, "sim fuzzer: SHALE_FUZZ_PLANTED_BUGS: %s\n", error.c_str());
    std::exit(2);
  }
  if (!ReadSweepStart()) {
    std::fprintf(stderr, "sim fuzzer: SHALE_FUZZ_SWEEP_FROM: not a seed number\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  shale::scenario::RunConfig config;
  config.scenario = SHALE_FUZZ_SCENARIO;
  if (g_sweep) {
    config.seed = g_next_seed++;
  } else {
    config.tape = std::string(reinterpret_cast<const char*>(data), size);
  }
  config.planted_bugs = g_planted_bugs;
  const shale::scenario::RunResult r = shale::scenario::FindScenario(config.scenario)->Run(config);
  if (!r.passed) {
    std::fprintf(stderr, "SHALE FAILURE (%s): %s\n", SHALE_FUZZ_SCENARIO,
                 shale::report::DescribeFailure(r.failure).c_str());
    std::abort();
  }
  return 0;
}
