// TxnMarkersIn and TxnMarkersSkippedByDamageAt: the transaction names a
// log's records carry, and those a skip-any reader's skipped span holds.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "db/write_batch_internal.h"
#include "scenarios/crash_recovery/wal_markers.h"
#include "shale/write_batch.h"
#include "wal/log_format.h"
#include "wal/log_test_util.h"

using namespace shale;
using namespace shale::scenario;

namespace {

// A prepared section of name, with one put of value_bytes.
std::string Section(uint64_t sequence, const std::string& name, size_t value_bytes) {
  WriteBatch batch;
  WriteBatchInternal::MarkBeginPrepare(&batch);
  batch.Put("k", std::string(value_bytes, 'v'));
  WriteBatchInternal::AppendMarker(&batch, WriteBatchInternal::kTagEndPrepare, name);
  WriteBatchInternal::SetSequence(&batch, sequence);
  return WriteBatchInternal::Contents(&batch).ToString();
}

// A batch holding a Commit (or Rollback) marker of name.
std::string End(uint64_t sequence, const std::string& name, bool commit) {
  WriteBatch batch;
  WriteBatchInternal::AppendMarker(
      &batch, commit ? WriteBatchInternal::kTagCommit : WriteBatchInternal::kTagRollback, name);
  WriteBatchInternal::SetSequence(&batch, sequence);
  return WriteBatchInternal::Contents(&batch).ToString();
}

std::set<std::string> Names(std::initializer_list<const char*> names) {
  return std::set<std::string>(names.begin(), names.end());
}

}  // namespace

TEST_CASE("wal markers: every record's names, by kind", "[scenario][faults]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(
      {Section(1, "a", 10), Section(4, "b", 10), End(7, "a", true), End(8, "b", false)},
      &contents));
  const TxnMarkers markers = TxnMarkersIn(contents);
  CHECK(markers.prepared == Names({"a", "b"}));
  CHECK(markers.ended == Names({"a", "b"}));
  CHECK(TxnMarkersIn("").empty());
  // A record that is no write batch (shorter than a batch header) names none.
  std::string short_record;
  REQUIRE(shale_test::WriteLog({std::string(5, 'x')}, &short_record));
  CHECK(TxnMarkersIn(short_record).empty());
}

// Block 0 holds a's section and the head of b's large one; c's Commit is
// the first record to start in block 1. Damage in block 0 skips from the
// record it lands in to c's Commit, which is read; damage in block 1 skips
// to the end.
TEST_CASE("wal markers: skip-any's span, from the damaged record to the next block's first record",
          "[scenario][faults]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(
      {Section(1, "a", 10), Section(4, "b", 40000), End(7, "c", true), End(8, "b", true)},
      &contents));
  const TxnMarkers at_start = TxnMarkersSkippedByDamageAt(contents, 3);
  CHECK(at_start.prepared == Names({"a", "b"}));
  CHECK(at_start.ended.empty());
  const TxnMarkers in_b = TxnMarkersSkippedByDamageAt(contents, 200);
  CHECK(in_b.prepared == Names({"b"}));
  CHECK(in_b.ended.empty());
  const TxnMarkers in_block_1 = TxnMarkersSkippedByDamageAt(contents, contents.size() - 1);
  CHECK(in_block_1.prepared.empty());
  CHECK(in_block_1.ended == Names({"b"}));
  const TxnMarkers at_b_tail = TxnMarkersSkippedByDamageAt(contents, log::kBlockSize + 10);
  CHECK(at_b_tail.prepared == Names({"b"}));
  CHECK(at_b_tail.ended == Names({"c", "b"}));
}
