// ReplayLogWithDamagedTail: the MANIFEST's policy. Damage with nothing whole
// after it (an unsynced last record after power loss: missing, torn or
// garbage) is dropped; damage followed by a whole record is Corruption.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "wal/log_test_util.h"

using namespace shale;

namespace {

shale_test::Replayed ReplayTail(const std::string& contents) {
  shale_test::Replayed out;
  out.status = log::ReplayLogWithDamagedTail(
      contents, shale_test::kTestLogNumber,
      [&out](const Slice& record) {
        out.records.push_back(record.ToString());
        return Status::OK();
      },
      &out.result);
  return out;
}

const std::vector<std::string> kRecords = {"edit-1", std::string(500, 'x'), "edit-3",
                                           std::string(200, 'y')};

}  // namespace

TEST_CASE("a garbage-filled last record is dropped", "[wal][manifest]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(kRecords, &contents));
  const size_t last_start = contents.size() - 200 - log::kHeaderSize;
  for (size_t i = last_start + 3; i < contents.size(); i++) contents[i] = '\x5a';
  const auto out = ReplayTail(contents);
  REQUIRE(out.status.ok());
  REQUIRE(out.result.stopped_at_damage);
  REQUIRE(out.records == std::vector<std::string>(kRecords.begin(), kRecords.end() - 1));
}

TEST_CASE("a truncated last record is dropped", "[wal][manifest]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(kRecords, &contents));
  contents.resize(contents.size() - 20);
  const auto out = ReplayTail(contents);
  REQUIRE(out.status.ok());
  REQUIRE(out.records.size() == kRecords.size() - 1);
}

TEST_CASE("damage followed by a whole record is Corruption", "[wal][manifest]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(kRecords, &contents));
  contents[log::kHeaderSize + 2] ^= 0x01;  // inside the first record
  const auto out = ReplayTail(contents);
  REQUIRE(out.status.IsCorruption());
}

TEST_CASE("an undamaged log replays whole", "[wal][manifest]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(kRecords, &contents));
  const auto out = ReplayTail(contents);
  REQUIRE(out.status.ok());
  REQUIRE_FALSE(out.result.stopped_at_damage);
  REQUIRE(out.records == kRecords);
}
