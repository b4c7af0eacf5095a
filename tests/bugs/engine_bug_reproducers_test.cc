// The README's table "Bugs Shale found in engines it did not write" gives
// each bug a property column and a reproducer command. Both are read from
// the README itself, so the document cannot drift from what the binary
// does: each reproducer, run in a fresh process of `shale`, must fail, and
// with one of its row's properties.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/run_binary.h"
#include "common/temp_dir.h"
#include "report/file_io.h"

namespace {

struct EngineBug {
  std::set<std::string> properties;  // the row's property column
  std::string command;               // the reproducer's `shale run` arguments
};

// What "..." abbreviates in the README's reproducers (LevelDB's rows; a
// RocksDB row, R1 and on, gives its whole command).
constexpr const char* kRunPrefix = "shale run --engine leveldb --scenario crash-recovery";

// Rows ("| L1 | what | property, property | ...", R1 alike) and reproducers
// ("- **L1**: `shale run ...`" or "- **L2**: `... --seeds ...`"), by name.
std::map<std::string, EngineBug> ReadEngineBugs(const std::string& readme) {
  static const std::regex kRow(R"(^\| ([LR]\d+) \| [^|]* \| ([^|]*) \|)");
  static const std::regex kReproducer(R"(^- \*\*([LR]\d+)\*\*: `([^`]*)`)");
  std::map<std::string, EngineBug> bugs;
  std::istringstream lines(readme);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, kRow)) {
      for (const absl::string_view p : absl::StrSplit(m[2].str(), ", ")) {
        bugs[m[1]].properties.insert(std::string(absl::StripAsciiWhitespace(p)));
      }
    } else if (std::regex_search(line, m, kReproducer)) {
      const std::string command = m[2];
      absl::string_view rest = command;
      bugs[m[1]].command =
          absl::ConsumePrefix(&rest, "...") ? kRunPrefix + std::string(rest) : command;
    }
  }
  return bugs;
}

}  // namespace

TEST_CASE("every engine bug the README lists fails its reproducer with its row's property",
          "[bugs][hosted]") {
  std::ifstream in(SHALE_README);
  std::stringstream text;
  text << in.rdbuf();
  const std::map<std::string, EngineBug> bugs = ReadEngineBugs(text.str());
  REQUIRE(bugs.size() >= 10);
  for (const auto& [name, bug] : bugs) {
    INFO(name << ": " << bug.command);
    REQUIRE_FALSE(bug.properties.empty());
    REQUIRE(absl::StartsWith(bug.command, "shale run "));
  }
#ifndef SHALE_HOSTED
  WARN("this build hosts no engine (it is left out under the sanitizers): reproducers not run");
#else
  for (const auto& [name, bug] : bugs) {
    INFO(name << ": " << bug.command);
    absl::string_view args = bug.command;
    REQUIRE(absl::ConsumePrefix(&args, "shale "));
    shale_test::TempDir dir;
    REQUIRE(dir.ok());
    const shale_test::CommandResult run = shale_test::RunCommandLine(
        std::string(SHALE_BINARY) + " " + std::string(args) + " --jobs 1 --out " + dir.path());
    INFO(run.out);
    REQUIRE(run.exit_code == 1);
    std::string report;
    std::string error;
    REQUIRE(shale::report::ReadWholeFile(dir.Child("report.json"), &report, &error));
    const auto entries = nlohmann::json::parse(report)["entries"];
    REQUIRE(entries.size() == 1);
    REQUIRE(entries[0]["verdict"] == "fail");
    CHECK(bug.properties.count(entries[0]["failure"]["property"]) == 1);
  }
#endif
}
