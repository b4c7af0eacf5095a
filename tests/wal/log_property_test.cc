// Property: for any list of records, the log round-trips, and after any
// single-byte corruption or any truncation, every recovery mode replays only
// records that were written at that position:
//   * tolerate / absolute / point-in-time: an exact prefix, never past the
//     damaged record; skip: an ordered subsequence without the damaged record;
//   * absolute consistency fails with Corruption whenever a record's bytes
//     changed (a cut at a record boundary is a clean end).
#include <rapidcheck.h>
#include <catch2/catch.hpp>

#include <algorithm>

#include "util/random.h"
#include "wal/log_test_util.h"

using namespace shale;
using namespace shale_test;
using log::kBlockSize;
using log::kHeaderSize;

namespace {

// Where the writer puts each record: an independent model of its framing.
struct Layout {
  std::vector<uint64_t> start;  // first header of record i
  std::vector<uint64_t> end;    // one past its last byte
  std::vector<uint64_t> header_offsets;
  uint64_t size_bytes = 0;
};

Layout ModelLayout(const std::vector<std::string>& records) {
  Layout layout;
  uint64_t offset = 0;
  for (const std::string& r : records) {
    size_t left = r.size();
    bool first = true;
    do {
      const uint64_t block_left = kBlockSize - offset % kBlockSize;
      if (block_left < kHeaderSize) offset += block_left;  // padding
      if (first) layout.start.push_back(offset);
      layout.header_offsets.push_back(offset);
      const size_t avail = kBlockSize - offset % kBlockSize - kHeaderSize;
      const size_t fragment = std::min(left, avail);
      offset += kHeaderSize + fragment;
      left -= fragment;
      first = false;
    } while (left > 0);
    layout.end.push_back(offset);
  }
  layout.size_bytes = offset;
  return layout;
}

// Sizes include 0, small, and more than a block (several fragments).
std::vector<std::string> GenRecords(size_t min_count) {
  const auto sizes = *rc::gen::container<std::vector<size_t>>(
      *rc::gen::inRange<size_t>(min_count, 12),
      rc::gen::weightedOneOf<size_t>({{3, rc::gen::inRange<size_t>(0, 40)},
                                      {3, rc::gen::inRange<size_t>(0, 3000)},
                                      {2, rc::gen::inRange<size_t>(30000, 100000)}}));
  Random rnd(*rc::gen::arbitrary<uint64_t>());
  std::vector<std::string> records;
  for (size_t size : sizes) {
    std::string r(size, '\0');
    for (char& c : r) c = static_cast<char>(rnd.Next32());
    records.push_back(std::move(r));
  }
  return records;
}

// Index of the record whose bytes include offset, or -1 (padding).
int RecordAt(const Layout& layout, uint64_t offset) {
  for (size_t i = 0; i < layout.start.size(); ++i) {
    if (layout.start[i] <= offset && offset < layout.end[i]) return static_cast<int>(i);
  }
  return -1;
}

bool IsPrefix(const std::vector<std::string>& got, const std::vector<std::string>& written) {
  return got.size() <= written.size() && std::equal(got.begin(), got.end(), written.begin());
}

// Greedy earliest match decides whether got embeds in written minus `skip`.
bool IsSubsequenceWithout(const std::vector<std::string>& got,
                          const std::vector<std::string>& written, int skip) {
  size_t w = 0;
  for (const std::string& g : got) {
    while (w < written.size() && (static_cast<int>(w) == skip || written[w] != g)) ++w;
    if (w == written.size()) return false;
    ++w;
  }
  return true;
}

// Checks every mode against a file whose first `intact` records are whole
// and whose record `damaged` (or none, -1) had its bytes changed.
void CheckModes(const std::string& contents, const std::vector<std::string>& records, size_t intact,
                int damaged) {
  const std::vector<std::string> prefix(records.begin(), records.begin() + intact);
  const Replayed tolerate = ReplayMem(contents, WALRecoveryMode::kTolerateCorruptedTailRecords);
  const Replayed absolute = ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency);
  const Replayed pit = ReplayMem(contents, WALRecoveryMode::kPointInTimeRecovery);
  const Replayed skip = ReplayMem(contents, WALRecoveryMode::kSkipAnyCorruptedRecords);
  for (const Replayed* r : {&tolerate, &absolute, &pit, &skip}) {
    RC_ASSERT(r->status.ok() || r->status.IsCorruption());
    RC_ASSERT(r->records.size() == r->result.records);
  }
  for (const Replayed* r : {&tolerate, &absolute, &pit}) {
    RC_ASSERT(IsPrefix(r->records, records));
    if (r->status.ok()) RC_ASSERT(r->records.size() == intact);
  }
  RC_ASSERT(IsPrefix(prefix, skip.records));
  RC_ASSERT(IsSubsequenceWithout(skip.records, records, damaged));
  RC_ASSERT(pit.status.ok());
  RC_ASSERT(skip.status.ok());
  if (damaged >= 0) {
    RC_ASSERT(absolute.status.IsCorruption());
    RC_ASSERT(pit.result.stopped_at_damage);
  }
}

}  // namespace

TEST_CASE("log property: round trip, corruption, truncation", "[wal][property]") {
  FixedSeedProp(
      "any records round-trip in every mode",
      [] {
        const std::vector<std::string> records = GenRecords(0);
        std::string contents;
        RC_ASSERT(WriteLog(records, &contents));
        RC_ASSERT(contents.size() == ModelLayout(records).size_bytes);
        const size_t max_read = *rc::gen::element<size_t>(0, 1, 4096, 50000);
        for (WALRecoveryMode mode :
             {WALRecoveryMode::kTolerateCorruptedTailRecords, WALRecoveryMode::kAbsoluteConsistency,
              WALRecoveryMode::kPointInTimeRecovery, WALRecoveryMode::kSkipAnyCorruptedRecords}) {
          const Replayed r = ReplayMem(contents, mode, max_read);
          RC_ASSERT(r.status.ok());
          RC_ASSERT(r.records == records);
          RC_ASSERT(!r.result.stopped_at_damage);
        }
      },
      0x5a1e001, 300);

  FixedSeedProp(
      "a single corrupted byte never yields a wrong record",
      [] {
        const std::vector<std::string> records = GenRecords(1);
        std::string contents;
        RC_ASSERT(WriteLog(records, &contents));
        RC_ASSERT(!contents.empty());
        const Layout layout = ModelLayout(records);
        uint64_t offset;
        if (*rc::gen::arbitrary<bool>()) {  // aim at a header half the time
          const uint64_t header = *rc::gen::elementOf(layout.header_offsets);
          offset = header + *rc::gen::inRange<uint64_t>(0, kHeaderSize);
        } else {
          offset = *rc::gen::inRange<uint64_t>(0, contents.size());
        }
        contents[offset] ^= static_cast<char>(*rc::gen::inRange(1, 256));
        const int damaged = RecordAt(layout, offset);
        RC_CLASSIFY(damaged < 0, "padding");
        const size_t intact = damaged < 0 ? records.size() : static_cast<size_t>(damaged);
        CheckModes(contents, records, intact, damaged);
      },
      0x5a1e002, 2000);

  FixedSeedProp(
      "any truncation never yields a wrong record",
      [] {
        const std::vector<std::string> records = GenRecords(0);
        std::string contents;
        RC_ASSERT(WriteLog(records, &contents));
        const Layout layout = ModelLayout(records);
        uint64_t cut;
        if (!layout.end.empty() && *rc::gen::arbitrary<bool>()) {  // near a record end
          const uint64_t end = *rc::gen::elementOf(layout.end);
          cut = std::min<uint64_t>(contents.size(), end + *rc::gen::inRange(0, 2) - (end > 0));
        } else {
          cut = *rc::gen::inRange<uint64_t>(0, contents.size() + 1);
        }
        contents.resize(cut);
        size_t intact = 0;
        while (intact < records.size() && layout.end[intact] <= cut) ++intact;
        // Cut inside record `intact`'s bytes (not at its start, not in padding).
        const bool cut_record =
            intact < records.size() && layout.start[intact] < cut && cut < layout.end[intact];
        RC_CLASSIFY(cut_record, "cut inside a record");
        CheckModes(contents, records, intact, cut_record ? static_cast<int>(intact) : -1);
        const bool at_boundary = cut == 0 || (intact > 0 && layout.end[intact - 1] == cut);
        if (at_boundary) {
          RC_ASSERT(ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency).status.ok());
        }
        // Truncation never loses a whole record: every mode but absolute keeps all.
        RC_ASSERT(
            ReplayMem(contents, WALRecoveryMode::kTolerateCorruptedTailRecords).records.size() ==
            intact);
        RC_ASSERT(ReplayMem(contents, WALRecoveryMode::kSkipAnyCorruptedRecords).records.size() ==
                  intact);
      },
      0x5a1e003, 1000);
}
