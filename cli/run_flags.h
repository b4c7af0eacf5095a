// The flags of `shale run`, parsed and checked into RunOptions.
//
//   --scenario NAME|all   required; "all" = every simulated scenario (real-backend
//                         runs only when named)
//   --seeds A..B          required; inclusive uint64 range (seed_range.h)
//   --shard K/N           keep seeds with seed % N == K-1 (default: all)
//   --jobs N              concurrent worker processes (0 = number of cores)
//   --ops N, --crashes N, --strategy random|pct|""  (scenario::RunConfig)
//   --out DIR             default out/run-<scenario>-<A>-<B>
//   --timeout_s S         wall-clock watchdog per worker (default 120)
//   --max_failures N      start no more seeds once N have failed (0 = no limit)
//   --planted_bugs NAMES  checker self-test: plant these engine bugs (planted_bugs.h)
//   --require_probes all|NAMES  fail unless every such coverage probe was
//                         reached (util/probes.h)
//   --recheck P           re-run P% of the seeds in another worker and fail
//                         those that run differently (default 5; cli/recheck.h)
//
// A campaign is capped at kMaxCampaignSeeds (scenario, seed) pairs; larger
// ranges are a usage error that says to shard them.
// Thread safety: stateless; call from one thread (reads the registry).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "seed_range.h"

namespace shale::cli {

inline constexpr uint64_t kMaxCampaignSeeds = 10'000'000;

struct RunOptions {
  std::string scenario_flag;           // as given: a name or "all"
  std::vector<std::string> scenarios;  // resolved, sorted
  std::string seeds_text;
  SeedRange seeds;
  std::string shard_text;  // "" when not sharded
  Shard shard;
  int jobs = 1;
  int ops = 0;  // 0: the scenario's default
  int crashes = 3;
  std::string strategy;
  std::string faults;                       // on | off | "" (drawn)
  std::string engine = "shale";             // see scenario::RunConfig::engine
  std::map<std::string, std::string> pins;  // see scenario::RunConfig::pins
  uint64_t planted_bugs = 0;
  std::string out_dir;
  int64_t timeout_ms = 120'000;
  uint64_t max_failures = 0;                 // 0: run every seed
  std::vector<std::string> required_probes;  // sorted, known names
  uint32_t recheck_basis_points = 500;       // share of seeds re-run (cli/recheck.h)
};

enum class RunParse { kRun, kHelp, kUsageError };

// args are the words after "run". kUsageError leaves one line in *error.
// REQUIRES: scenarios are registered (RegisterBuiltinScenarios, or tests').
RunParse ParseRunFlags(std::span<const std::string> args, RunOptions* options, std::string* error);

std::string RunUsage();

// Parses --pin's NAME=VALUE[,NAME=VALUE] into *pins, checking that every
// scenario named can pin NAME on engine and takes VALUE. False with *error.
bool ParsePins(const std::string& text, const std::vector<std::string>& scenarios,
               const std::string& engine, std::map<std::string, std::string>* pins,
               std::string* error);

// The one place a campaign's options become a seed's RunConfig (jobs and
// failure files must agree, or a failure would not replay).
scenario::RunConfig ConfigFor(const RunOptions& options, const std::string& scenario,
                              uint64_t seed);

}  // namespace shale::cli
