// shale run's --engine and --pin: known engines only, scenarios that run on
// the engine, pins only of options the scenario can pin, with a value they
// take; each refusal is one error line (exit 2 in the binary).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "run_flags.h"
#include "scenarios/scenario.h"
#include "worker_pool.h"

namespace shale::cli {
namespace {

std::string ErrorOf(const std::vector<std::string>& args) {
  RunOptions options;
  std::string error;
  REQUIRE(ParseRunFlags(args, &options, &error) == RunParse::kUsageError);
  REQUIRE(error.find('\n') == std::string::npos);
  return error;
}

TEST_CASE("run takes known engines and pins of drawn options", "[cli][run]") {
  scenario::RegisterBuiltinScenarios();
  RunOptions options;
  std::string error;
  const std::vector<std::string> args = {
      "--scenario=crash-recovery", "--seeds=1..3",
      "--pin=crash.power_loss=false,disk.fsync_commits_metadata=true"};
  REQUIRE(ParseRunFlags(args, &options, &error) == RunParse::kRun);
  REQUIRE(options.engine == "shale");
  REQUIRE(options.pins.at("crash.power_loss") == "false");
  REQUIRE(options.pins.at("disk.fsync_commits_metadata") == "true");
  for (const char* mix : {"default", "swarm", "write:2+compact:1", "batch:1000"}) {
    INFO(mix);
    RunOptions mixed;
    const std::vector<std::string> with_mix = {"--scenario=crash-recovery", "--seeds=1..3",
                                               std::string("--pin=workload.mix=") + mix};
    REQUIRE(ParseRunFlags(with_mix, &mixed, &error) == RunParse::kRun);
    REQUIRE(mixed.pins.at("workload.mix") == mix);
  }
  const scenario::RunConfig config = ConfigFor(options, "crash-recovery", 2);
  REQUIRE(config.pins == options.pins);
  REQUIRE(config.engine == "shale");
}

TEST_CASE("run refuses unknown engines, unpinnable options and bad values", "[cli][run]") {
  scenario::RegisterBuiltinScenarios();
  const std::vector<std::string> base = {"--scenario=crash-recovery", "--seeds=1..3"};
  auto with = [&](const std::string& flag) {
    std::vector<std::string> args = base;
    args.push_back(flag);
    return args;
  };
  REQUIRE(ErrorOf(with("--engine=sqlite")).find("unknown engine 'sqlite'") != std::string::npos);
  REQUIRE(ErrorOf(with("--pin=bogus=1")).find("cannot pin 'bogus'") != std::string::npos);
  REQUIRE(ErrorOf(with("--pin=crash.power_loss=maybe")).find("takes true|false") !=
          std::string::npos);
  REQUIRE(ErrorOf(with("--pin=noequals")).find("bad --pin item") != std::string::npos);
  // A second --pin would drop the first one's options.
  std::vector<std::string> two_pins = with("--pin=crash.power_loss=false");
  two_pins.push_back("--pin=fault.faults.eio_read=off");
  REQUIRE(ErrorOf(two_pins).find("flag --pin given twice") != std::string::npos);
  for (const char* mix : {"write", "write:0", "write:1001", "write:x", "shuffle:1",
                          "get:1+compact:2", "write:1+", "write:1:2"}) {
    INFO(mix);
    REQUIRE(ErrorOf(with(std::string("--pin=workload.mix=") + mix)).find("workload.mix") !=
            std::string::npos);
  }
  const std::vector<std::string> snapshot = {"--scenario=snapshot", "--seeds=1..3",
                                             "--pin=crash.power_loss=false"};
  REQUIRE(ErrorOf(snapshot).find("cannot pin") != std::string::npos);
}

TEST_CASE("a worker that died in a hosted engine's code is that engine's crash", "[cli][run]") {
  scenario::RunConfig config;
  config.scenario = "crash-recovery";
  config.seed = 7;
  const std::string died = "signal 11 (Segmentation fault)";
  const scenario::RunResult engine =
      CrashedRunFailure(config, died,
                        "a line\nengine crash operation marks: 0 17 40 3100\n"
                        "engine crashed: SIGSEGV in libleveldb.so.1d+0x16bf0 (address 0x4)\n"
                        "engine crash after tape bytes: 3130\n");
  REQUIRE(engine.failure.property == "engine crash");
  REQUIRE(engine.failure.observed == "SIGSEGV in libleveldb.so.1d+0x16bf0 (address 0x4)");
  REQUIRE(engine.failure.message.find(died) != std::string::npos);
  REQUIRE(engine.seed == 7);
  REQUIRE(engine.tape_bytes == 3130);  // what a shrinker keeps of the tape
  // Where each operation began, so a shrinker can cut whole operations.
  REQUIRE(engine.operation_marks == std::vector<uint64_t>{0, 17, 40, 3100});
  REQUIRE(engine.ops == 4);
  // A list whose start a reader keeping only the tail cut off is none; the
  // crash line and the tape bytes after it still count.
  const scenario::RunResult cut =
      CrashedRunFailure(config, died,
                        "17 40 3100\nengine crashed: SIGSEGV in x+0x1 (address 0x0)\n"
                        "engine crash after tape bytes: 3130\n");
  REQUIRE(cut.failure.property == "engine crash");
  REQUIRE(cut.tape_bytes == 3130);
  REQUIRE(cut.operation_marks.empty());
  // Only a line of its own counts; anything else is a crash of Shale.
  for (const std::string& text : {std::string(""), std::string("noise engine crashed: x\n")}) {
    const scenario::RunResult shale = CrashedRunFailure(config, died, text);
    REQUIRE(shale.failure.property == "worker crashed");
    REQUIRE(shale.failure.observed == died);
  }
}

}  // namespace
}  // namespace shale::cli
