// The event trace (`shale replay --trace`) tells each disk call, with its
// task, file, size and status, and keeping it changes nothing a run does.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/crash_recovery/crash_recovery.h"

using namespace shale::scenario;

TEST_CASE("the trace holds every disk call and leaves the trace hash alone", "[scenario][trace]") {
  RunConfig config;
  config.scenario = "crash-recovery";
  config.seed = 5;
  config.ops = 300;
  const RunResult plain = CrashRecoveryScenario()->Run(config);
  config.trace = true;
  const RunResult traced = CrashRecoveryScenario()->Run(config);
  REQUIRE(plain.trace.empty());
  REQUIRE(traced.trace_hash == plain.trace_hash);
  REQUIRE(traced.passed == plain.passed);
  size_t io = 0, syncs = 0, appends = 0;
  for (const std::string& line : traced.trace) {
    if (line.rfind("io t=", 0) != 0) continue;
    ++io;
    INFO(line);
    REQUIRE(line.find(" task '") != std::string::npos);
    REQUIRE(line.find(" bytes: ") != std::string::npos);
    if (line.find("' sync /db/") != std::string::npos) ++syncs;
    if (line.find("' append /db/") != std::string::npos) ++appends;
  }
  REQUIRE(io > 100);
  REQUIRE(syncs > 0);
  REQUIRE(appends > 0);
  REQUIRE(traced.trace.front() == "spawn task 0 'main'");
  // A call's line comes when it returns (after its latency's timer), and
  // spans the call from its start to that timer.
  const std::string& timer = traced.trace[1];
  const std::string timer_suffix = " timer fires for task 0 'main'";
  REQUIRE(timer.rfind("t=", 0) == 0);
  REQUIRE(timer.size() > timer_suffix.size() + 2);
  REQUIRE(timer.compare(timer.size() - timer_suffix.size(), timer_suffix.size(), timer_suffix) ==
          0);
  const std::string returned_ns = timer.substr(2, timer.size() - timer_suffix.size() - 2);
  REQUIRE(std::stoull(returned_ns) > 0);
  REQUIRE(traced.trace[2] == "io t=0.." + returned_ns + " task 'main' mkdir /db 0 bytes: OK");
}

TEST_CASE("the trace tells injected faults and what each power loss kept and lost",
          "[scenario][trace]") {
  size_t faults = 0, fates = 0;
  for (uint64_t seed = 6; seed <= 11; seed++) {
    RunConfig config;
    config.scenario = "crash-recovery";
    config.seed = seed;
    config.trace = true;
    const RunResult r = CrashRecoveryScenario()->Run(config);
    for (const std::string& line : r.trace) {
      INFO(line);
      if (line.rfind("fault t=", 0) == 0) {
        ++faults;
        REQUIRE(line.find(" task '") != std::string::npos);
      }
      if (line.find(" unsynced sectors of /db/") != std::string::npos) {
        ++fates;
        REQUIRE(line.rfind("disk: power loss kept ", 0) == 0);
        REQUIRE(line.find(" garbage), lost ") != std::string::npos);
      }
    }
  }
  REQUIRE(faults > 0);
  REQUIRE(fates > 0);
}
