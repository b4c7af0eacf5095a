#include "shale_binary.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "report/file_io.h"

namespace shale_test {

std::vector<std::pair<uint64_t, std::string> > FailedSeeds(const std::string& report_path) {
  std::string report, error;
  REQUIRE(shale::report::ReadWholeFile(report_path, &report, &error));
  std::vector<std::pair<uint64_t, std::string> > failed;
  const nlohmann::json parsed = nlohmann::json::parse(report);
  for (const nlohmann::json& e : parsed["entries"]) {
    if (e["verdict"] == "fail") failed.emplace_back(e["seed"], e["failure"]["property"]);
  }
  std::sort(failed.begin(), failed.end());
  return failed;
}

}  // namespace shale_test
