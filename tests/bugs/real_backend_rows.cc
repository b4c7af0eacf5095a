#include "real_backend_rows.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include "common/temp_dir.h"
#include "report/failure_file.h"
#include "shale_binary.h"

namespace shale_test {

namespace {

constexpr const char* kScenario = "real-backend";
// Seeds per campaign: the search stops after the first campaign that
// holds the bug's failure, so a bug found early costs one short campaign.
constexpr uint64_t kFirstBatchSeeds = 10;
constexpr uint64_t kBatchSeeds = 50;

struct Found {
  uint64_t seed = 0;  // 0: not found
  std::string property;
  std::string failure_file;
};

// The first seed of the bug's campaigns that fails naming one of
// properties (see the header for pass_over_others).
Found FindFailure(const TempDir& dir, const char* bug, const std::string& shape_flags,
                  const std::set<std::string>& properties, uint64_t seed_limit,
                  bool pass_over_others) {
  uint64_t batch = kFirstBatchSeeds;
  for (uint64_t first = 1; first <= seed_limit; first += batch, batch = kBatchSeeds) {
    const uint64_t last = std::min(seed_limit, first + batch - 1);
    const std::string out = dir.Child("bug-" + std::to_string(first));
    const CommandResult run = RunShale(
        std::string("run --scenario ") + kScenario + " --seeds " + std::to_string(first) + ".." +
        std::to_string(last) + shape_flags + " --jobs 2 --planted_bugs " + bug + " --out " + out);
    INFO(run.out);
    REQUIRE((run.exit_code == 0 || run.exit_code == 1));
    for (const auto& [seed, property] : FailedSeeds(out + "/report.json")) {
      INFO("seed " << seed << " fails on " << property);
      if (properties.count(property) == 1) {
        return Found{seed, property,
                     out + "/failures/" + shale::report::FailureFileName(kScenario, seed)};
      }
      REQUIRE(pass_over_others);
    }
  }
  return Found{};
}

}  // namespace

void CheckRealBackendRow(const char* bug, const std::string& shape_flags,
                         const std::set<std::string>& properties, uint64_t seed_limit,
                         bool pass_over_others) {
  INFO("planted bug " << bug << " in " << kScenario);
  TempDir dir;
  REQUIRE(dir.ok());
  const Found found = FindFailure(dir, bug, shape_flags, properties, seed_limit, pass_over_others);
  REQUIRE(found.seed != 0);
  const std::string seed = std::to_string(found.seed);
  INFO("seed " << seed << " fails on " << found.property);
  const CommandResult control =
      RunShale(std::string("run --scenario ") + kScenario + " --seeds " + seed + ".." + seed +
               shape_flags + " --jobs 1 --out " + dir.Child("control"));
  INFO(control.out);
  CHECK(control.exit_code == 0);
  const CommandResult replay =
      RunShale("replay " + found.failure_file + " --tries " + std::to_string(kRealReplayTries));
  INFO(replay.out);
  CHECK(replay.exit_code == 1);
  CHECK(replay.out.find("failure: " + found.property + " ") != std::string::npos);
  CHECK(replay.out.find("reproduced on try ") != std::string::npos);
}

}  // namespace shale_test
