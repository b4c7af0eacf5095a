// LevelDB's promise table (hosted/leveldb/promises.tsv): it parses, it has a
// row for every property crash-recovery checks, and each header it cites
// exists, as Debian ships it, with the lines it names. PromiseTable refuses
// malformed tables.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <string>

#include "hosted/leveldb/leveldb_engine.h"
#include "scenarios/crash_recovery/crash_recovery.h"
#include "scenarios/engine/promise_table.h"
#include "scenarios/scenario.h"

namespace shale::hosted {
namespace {

int LineCount(const std::string& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) lines++;
  return lines;
}

TEST_CASE("LevelDB's promise table covers every property crash-recovery and snapshot check",
          "[hosted]") {
  const scenario::PromiseTable& table = LevelDbEngine().promises();
  scenario::RegisterBuiltinScenarios();
  std::vector<std::string> properties = scenario::CrashRecoveryProperties();
  const std::vector<std::string> snapshot = scenario::FindScenario("snapshot")->properties();
  properties.insert(properties.end(), snapshot.begin(), snapshot.end());
  for (const std::string& property : properties) {
    INFO(property);
    const bool listed = std::any_of(table.rows().begin(), table.rows().end(),
                                    [&](const auto& row) { return row.property == property; });
    const bool never_waived = property == "engine assertion" || property == "simulation";
    REQUIRE((listed || never_waived));
  }
  REQUIRE(table.Checks("durability"));
  REQUIRE_FALSE(table.Checks("damage detected"));
  REQUIRE_FALSE(table.Checks("a property nobody listed"));
  REQUIRE(table.Checks("engine assertion"));
  REQUIRE(table.Checks("engine crash"));
}

TEST_CASE("every header line LevelDB's promise table cites exists", "[hosted]") {
  const std::regex cite(R"(([a-z_]+\.h):(\d+)-(\d+))");
  int cited = 0;
  for (const auto& row : LevelDbEngine().promises().rows()) {
    for (std::sregex_iterator it(row.source.begin(), row.source.end(), cite), end; it != end;
         ++it) {
      const std::string header = "/usr/include/leveldb/" + (*it)[1].str();
      INFO(row.property << ": " << header);
      const int first = std::stoi((*it)[2]), last = std::stoi((*it)[3]);
      REQUIRE(first <= last);
      REQUIRE(last <= LineCount(header));
      cited++;
    }
  }
  REQUIRE(cited >= 10);
}

TEST_CASE("PromiseTable refuses malformed tables", "[hosted]") {
  scenario::PromiseTable table;
  const std::string header = "property\tkept\tsource\tpromise\n";
  REQUIRE(scenario::PromiseTable::Parse(header + "durability\tyes\tdb.h:1-2\tkept\n", &table).ok());
  REQUIRE(table.rows().size() == 1);
  REQUIRE_FALSE(scenario::PromiseTable::Parse(header + "durability\tmaybe\tx\ty\n", &table).ok());
  REQUIRE_FALSE(scenario::PromiseTable::Parse(header + "durability\tyes\tx\n", &table).ok());
  REQUIRE_FALSE(scenario::PromiseTable::Parse(header + "durability\tyes\t\ty\n", &table).ok());
  REQUIRE_FALSE(scenario::PromiseTable::Parse(header + "a\tyes\tx\ty\na\tno\tx\ty\n", &table).ok());
  REQUIRE(table.rows().size() == 1);  // a refused table leaves the old one
}

}  // namespace
}  // namespace shale::hosted
