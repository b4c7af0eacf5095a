// Each hosted engine's promise table (hosted/<engine>/promises.tsv): it
// parses, it has a row for every property each scenario that runs on the
// engine checks, and each header line it cites exists, as Debian ships the
// engine's headers. PromiseTable refuses malformed tables.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>

#include "hosted/leveldb/leveldb_engine.h"
#include "hosted/rocksdb/rocksdb_engine.h"
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

struct HostedTable {
  const char* engine;
  const char* include_dir;
  const scenario::HostedEngine& (*get)();
};
constexpr HostedTable kTables[] = {
    {"leveldb", "/usr/include/leveldb/", &LevelDbEngine},
    {"rocksdb", "/usr/include/rocksdb/", &RocksDbEngine},
};

TEST_CASE("each hosted promise table covers every property the scenarios it runs check",
          "[hosted]") {
  scenario::RegisterBuiltinScenarios();
  for (const HostedTable& hosted : kTables) {
    scenario::RegisterHostedEngine(&hosted.get());
  }
  for (const HostedTable& hosted : kTables) {
    std::vector<std::string> properties;
    for (const scenario::Scenario* s : scenario::AllScenarios()) {
      if (!s->RunsOn(hosted.engine)) continue;
      const std::vector<std::string> checked = s->properties();
      properties.insert(properties.end(), checked.begin(), checked.end());
    }
    INFO(hosted.engine);
    REQUIRE(std::find(properties.begin(), properties.end(), "snapshot reads") != properties.end());
    const scenario::PromiseTable& table = hosted.get().promises();
    for (const std::string& property : properties) {
      INFO(hosted.engine << ": " << property);
      const bool listed = std::any_of(table.rows().begin(), table.rows().end(),
                                      [&](const auto& row) { return row.property == property; });
      const bool never_waived = property == "engine assertion" || property == "simulation";
      REQUIRE((listed || never_waived));
    }
    INFO(hosted.engine);
    REQUIRE(table.Checks("durability"));
    REQUIRE(table.Checks("prefix recovery"));
    REQUIRE_FALSE(table.Checks("damage detected"));
    REQUIRE_FALSE(table.Checks("a property nobody listed"));
    REQUIRE(table.Checks("engine assertion"));
    REQUIRE(table.Checks("engine crash"));
  }
}

TEST_CASE("every header line a hosted promise table cites exists", "[hosted]") {
  const std::regex cite(R"(([a-z_]+\.h):(\d+)-(\d+))");
  for (const HostedTable& hosted : kTables) {
    int cited = 0;
    for (const auto& row : hosted.get().promises().rows()) {
      for (std::sregex_iterator it(row.source.begin(), row.source.end(), cite), end; it != end;
           ++it) {
        const std::string header = hosted.include_dir + (*it)[1].str();
        INFO(row.property << ": " << header);
        const int first = std::stoi((*it)[2]), last = std::stoi((*it)[3]);
        REQUIRE(first <= last);
        REQUIRE(last <= LineCount(header));
        cited++;
      }
    }
    INFO(hosted.engine);
    REQUIRE(cited >= 10);
  }
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

// The unordered-write scenario holds a hosted engine to a mode's promise
// only where the engine's table keeps it: RocksDB's keeps all three, so
// each mode is held to its full row.
TEST_CASE("RocksDB's promise table keeps every read promise of the write modes", "[hosted]") {
  const scenario::PromiseTable& table = RocksDbEngine().promises();
  REQUIRE(table.Checks("atomic reads"));
  REQUIRE(table.Checks("read-your-own-writes"));
  REQUIRE(table.Checks("immutable snapshots"));
}

}  // namespace
}  // namespace shale::hosted
