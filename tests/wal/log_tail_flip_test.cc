// A bit flipped in the length field of a log's last record makes the record
// run past the end of the file: to the reader that is exactly a torn write.
// Tolerate-tail recovery drops it as one (as RocksDB's does), so it cannot
// report such damage; absolute consistency reports it. This is why the
// crash-recovery fault plan flips WAL bits only under absolute consistency
// (scenarios/crash_recovery/fault_plan.h).
#include <catch2/catch.hpp>

#include "wal/log_test_util.h"

using namespace shale;
using namespace shale_test;

TEST_CASE("a length flip in the last record reads as a torn tail", "[wal]") {
  std::string contents;
  REQUIRE(
      WriteLog({"first", std::string(300, 'x'), "last record, long enough to flip"}, &contents));
  const size_t last_header = contents.size() - log::kHeaderSize - 32;
  REQUIRE(contents.substr(last_header + log::kHeaderSize) == "last record, long enough to flip");
  // The length's high byte: 32 becomes 32 + 256 * 2, past the file's end.
  std::string flipped = contents;
  flipped[last_header + 5] = static_cast<char>(flipped[last_header + 5] ^ 0x02);

  const Replayed tolerate = ReplayMem(flipped, WALRecoveryMode::kTolerateCorruptedTailRecords);
  REQUIRE(tolerate.status.ok());
  REQUIRE(tolerate.records == std::vector<std::string>{"first", std::string(300, 'x')});

  const Replayed absolute = ReplayMem(flipped, WALRecoveryMode::kAbsoluteConsistency);
  REQUIRE(absolute.status.IsCorruption());

  // The same flip in the payload is a checksum mismatch: both modes report it.
  std::string payload_flip = contents;
  payload_flip[last_header + log::kHeaderSize] ^= 0x02;
  REQUIRE(ReplayMem(payload_flip, WALRecoveryMode::kTolerateCorruptedTailRecords)
              .status.IsCorruption());
  REQUIRE(ReplayMem(payload_flip, WALRecoveryMode::kAbsoluteConsistency).status.IsCorruption());
}
