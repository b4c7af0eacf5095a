// log::Writer / log::Reader / ReplayLog unit tests: framing, fragmentation,
// padding, damage classification, and each recovery mode's policy.
#include <catch2/catch.hpp>

#include "wal/log_test_util.h"

using namespace shale;
using namespace shale_test;
using log::kBlockSize;
using log::kHeaderSize;
using log::ReadResult;

namespace {

constexpr size_t kFullBlockPayload = kBlockSize - kHeaderSize;
const WALRecoveryMode kAllModes[] = {
    WALRecoveryMode::kTolerateCorruptedTailRecords, WALRecoveryMode::kAbsoluteConsistency,
    WALRecoveryMode::kPointInTimeRecovery, WALRecoveryMode::kSkipAnyCorruptedRecords};

std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i * 131 + (i >> 9));
  return s;
}

std::string MustWrite(const std::vector<std::string>& records) {
  std::string contents;
  REQUIRE(WriteLog(records, &contents));
  return contents;
}

// Every ReadRecord result until kEof (or 20 results), with records.
std::vector<std::pair<ReadResult, std::string>> ReadAll(const std::string& contents) {
  log::Reader reader(std::make_unique<MemSequentialFile>(contents), kTestLogNumber);
  std::vector<std::pair<ReadResult, std::string>> out;
  Slice record;
  std::string scratch;
  for (int i = 0; i < 20; ++i) {
    const ReadResult r = reader.ReadRecord(&record, &scratch);
    out.emplace_back(r, r == ReadResult::kRecord ? record.ToString() : std::string());
    if (r == ReadResult::kEof || r == ReadResult::kIOError) break;
  }
  return out;
}

uint8_t TypeAt(const std::string& contents, size_t header_offset) {
  return static_cast<uint8_t>(contents[header_offset + 6]);
}
uint32_t LengthAt(const std::string& contents, size_t header_offset) {
  return static_cast<uint8_t>(contents[header_offset + 4]) |
         (static_cast<uint32_t>(static_cast<uint8_t>(contents[header_offset + 5])) << 8);
}

}  // namespace

TEST_CASE("empty log reads as clean EOF in every mode", "[wal]") {
  const std::string contents = MustWrite({});
  REQUIRE(contents.empty());
  for (WALRecoveryMode mode : kAllModes) {
    const Replayed r = ReplayMem(contents, mode);
    REQUIRE(r.status.ok());
    REQUIRE(r.records.empty());
    REQUIRE_FALSE(r.result.stopped_at_damage);
  }
}

TEST_CASE("records of many sizes round-trip", "[wal]") {
  const std::vector<std::string> records = {"",
                                            Pattern(1, 'a'),
                                            Pattern(100, 'b'),
                                            "",
                                            Pattern(kFullBlockPayload, 'c'),
                                            Pattern(kBlockSize, 'd'),
                                            Pattern(3 * kBlockSize + 17, 'e'),
                                            Pattern(100000, 'f'),
                                            ""};
  const std::string contents = MustWrite(records);
  for (size_t max_read : {size_t{0}, size_t{1000}, size_t{7}}) {  // also with short reads
    const Replayed r = ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency, max_read);
    REQUIRE(r.status.ok());
    REQUIRE(r.records == records);
    REQUIRE(r.result.records == records.size());
    REQUIRE(r.result.skipped_bytes == 0);
  }
}

TEST_CASE("a record filling a block exactly takes one Full fragment", "[wal]") {
  const std::string contents = MustWrite({Pattern(kFullBlockPayload, 'x'), "y"});
  REQUIRE(contents.size() == kBlockSize + kHeaderSize + 1);
  REQUIRE(TypeAt(contents, 0) == log::kFullType);
  REQUIRE(LengthAt(contents, 0) == kFullBlockPayload);
  REQUIRE(TypeAt(contents, kBlockSize) == log::kFullType);
}

TEST_CASE("a long record fragments at block boundaries", "[wal]") {
  const std::string big = Pattern(2 * kBlockSize, 'q');
  const std::string contents = MustWrite({big});
  // First fills block 0, Middle fills block 1, Last holds the rest.
  REQUIRE(TypeAt(contents, 0) == log::kFirstType);
  REQUIRE(LengthAt(contents, 0) == kFullBlockPayload);
  REQUIRE(TypeAt(contents, kBlockSize) == log::kMiddleType);
  REQUIRE(TypeAt(contents, 2 * kBlockSize) == log::kLastType);
  REQUIRE(LengthAt(contents, 2 * kBlockSize) == 2 * kHeaderSize);
  REQUIRE(contents.size() == 2 * kBlockSize + 3 * kHeaderSize);
  const auto results = ReadAll(contents);
  REQUIRE(results.size() == 2);
  REQUIRE(results[0].first == ReadResult::kRecord);
  REQUIRE(results[0].second == big);
  REQUIRE(results[1].first == ReadResult::kEof);
}

TEST_CASE("a block tail shorter than a header is zero-padded", "[wal]") {
  const std::string contents = MustWrite({Pattern(kFullBlockPayload - 3, 'p'), "next"});
  REQUIRE(contents.size() == kBlockSize + kHeaderSize + 4);
  REQUIRE(contents.substr(kBlockSize - 3, 3) == std::string(3, '\0'));
  REQUIRE(TypeAt(contents, kBlockSize) == log::kFullType);
  const Replayed r = ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency);
  REQUIRE(r.status.ok());
  REQUIRE(r.records.size() == 2);
  REQUIRE(r.records[1] == "next");
}

TEST_CASE("exactly a header left in a block gives an empty First fragment", "[wal]") {
  const std::string contents = MustWrite({Pattern(kBlockSize - 2 * kHeaderSize, 'h'), "hello"});
  REQUIRE(TypeAt(contents, kBlockSize - kHeaderSize) == log::kFirstType);
  REQUIRE(LengthAt(contents, kBlockSize - kHeaderSize) == 0);
  REQUIRE(TypeAt(contents, kBlockSize) == log::kLastType);
  const Replayed r = ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency);
  REQUIRE(r.status.ok());
  REQUIRE(r.records.size() == 2);
  REQUIRE(r.records[1] == "hello");
}

TEST_CASE("writer flushes every record and syncs on Sync", "[wal]") {
  std::string contents;
  MemWritableFile* file = nullptr;
  auto writer = NewMemLogWriter(&contents, &file);
  REQUIRE(writer->AddRecord("one").ok());
  REQUIRE(contents.size() == kHeaderSize + 3);  // handed to the file, not buffered
  REQUIRE(file->flushes() == 1);
  REQUIRE(writer->AddRecord(Pattern(70000, 'z')).ok());
  REQUIRE(file->flushes() >= 2);  // the buffered writer may flush mid-record too
  REQUIRE(contents.size() == writer->size_bytes());
  REQUIRE(file->syncs() == 0);
  REQUIRE(writer->Sync().ok());
  REQUIRE(file->syncs() == 1);
  REQUIRE(writer->size_bytes() == contents.size());
  REQUIRE(writer->log_number() == kTestLogNumber);
  REQUIRE(writer->Close().ok());
}

TEST_CASE("a failed append breaks the writer for good", "[wal]") {
  std::string contents;
  MemWritableFile* file = nullptr;
  auto writer = NewMemLogWriter(&contents, &file);
  REQUIRE(writer->AddRecord("ok").ok());
  file->set_fail_appends(true);
  REQUIRE(writer->AddRecord(Pattern(100000, 'f')).IsIOError());
  file->set_fail_appends(false);
  REQUIRE(writer->AddRecord("later").IsIOError());
  REQUIRE(writer->Sync().IsIOError());
  writer->Close().PermitUncheckedError();  // the writer is already broken
}

TEST_CASE("a failed sync breaks the writer for good", "[wal]") {
  // The file system may have dropped the unsynced tail: a record appended
  // now would follow a hole, and recovery could replay it without the ones
  // before it.
  std::string contents;
  MemWritableFile* file = nullptr;
  auto writer = NewMemLogWriter(&contents, &file);
  REQUIRE(writer->AddRecord("ok").ok());
  file->set_fail_syncs(true);
  REQUIRE(writer->Sync().IsIOError());
  file->set_fail_syncs(false);
  const size_t size_after_failure = contents.size();
  REQUIRE(writer->AddRecord("later").IsIOError());
  REQUIRE(writer->Sync().IsIOError());
  REQUIRE(contents.size() == size_after_failure);
  writer->Close().PermitUncheckedError();  // the writer is already broken
}

TEST_CASE("last_record_offset names each record's first header", "[wal]") {
  const std::string contents = MustWrite({"a", Pattern(40000, 'b'), "c"});
  log::Reader reader(std::make_unique<MemSequentialFile>(contents), kTestLogNumber);
  Slice record;
  std::string scratch;
  REQUIRE(reader.ReadRecord(&record, &scratch) == ReadResult::kRecord);
  REQUIRE(reader.last_record_offset() == 0);
  REQUIRE(reader.ReadRecord(&record, &scratch) == ReadResult::kRecord);
  REQUIRE(reader.last_record_offset() == kHeaderSize + 1);
  REQUIRE(reader.ReadRecord(&record, &scratch) == ReadResult::kRecord);
  REQUIRE(record.ToString() == "c");
  REQUIRE(reader.last_record_offset() == 2 * kHeaderSize + 1 + 40000 + kHeaderSize);
  REQUIRE(reader.ReadRecord(&record, &scratch) == ReadResult::kEof);
}

// Three records, one block each, so damage to one leaves the others intact.
TEST_CASE("recovery modes: corrupt record in the middle", "[wal]") {
  const std::vector<std::string> records = {Pattern(kFullBlockPayload, '0'),
                                            Pattern(kFullBlockPayload, '1'),
                                            Pattern(kFullBlockPayload, '2')};
  std::string contents = MustWrite(records);
  contents[kBlockSize + 100] ^= 0x40;

  const Replayed tolerate = ReplayMem(contents, WALRecoveryMode::kTolerateCorruptedTailRecords);
  REQUIRE(tolerate.status.IsCorruption());
  REQUIRE(tolerate.status.ToString().find("log 7 offset 32768") != std::string::npos);
  const Replayed absolute = ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency);
  REQUIRE(absolute.status.IsCorruption());
  const Replayed pit = ReplayMem(contents, WALRecoveryMode::kPointInTimeRecovery);
  REQUIRE(pit.status.ok());
  REQUIRE(pit.result.stopped_at_damage);
  REQUIRE(pit.records == std::vector<std::string>{records[0]});
  const Replayed skip = ReplayMem(contents, WALRecoveryMode::kSkipAnyCorruptedRecords);
  REQUIRE(skip.status.ok());
  REQUIRE(skip.records == std::vector<std::string>{records[0], records[2]});
  REQUIRE(skip.result.skipped_bytes == kBlockSize);
}

TEST_CASE("recovery modes: corrupt last record", "[wal]") {
  const std::vector<std::string> records = {Pattern(kFullBlockPayload, '0'),
                                            Pattern(kFullBlockPayload, '1'), Pattern(500, '2')};
  std::string contents = MustWrite(records);
  contents[2 * kBlockSize + kHeaderSize + 499] ^= 0x01;  // last payload byte

  REQUIRE(
      ReplayMem(contents, WALRecoveryMode::kTolerateCorruptedTailRecords).status.IsCorruption());
  REQUIRE(ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency).status.IsCorruption());
  const std::vector<std::string> prefix = {records[0], records[1]};
  const Replayed pit = ReplayMem(contents, WALRecoveryMode::kPointInTimeRecovery);
  REQUIRE(pit.status.ok());
  REQUIRE(pit.result.stopped_at_damage);
  REQUIRE(pit.records == prefix);
  const Replayed skip = ReplayMem(contents, WALRecoveryMode::kSkipAnyCorruptedRecords);
  REQUIRE(skip.status.ok());
  REQUIRE(skip.records == prefix);
  REQUIRE(skip.result.skipped_bytes == kHeaderSize + 500);
}

TEST_CASE("recovery modes: truncated tail", "[wal]") {
  const std::vector<std::string> records = {"a", "b", Pattern(50000, 'c')};
  const std::string full = MustWrite(records);
  const std::vector<std::string> prefix = {"a", "b"};
  // Cut inside the last record's first header, first payload and second block.
  for (size_t cut : {size_t{2 * (kHeaderSize + 1) + 3}, size_t{100}, full.size() - 1,
                     size_t{kBlockSize}, size_t{kBlockSize + 3}}) {
    const std::string contents = full.substr(0, cut);
    const Replayed tolerate = ReplayMem(contents, WALRecoveryMode::kTolerateCorruptedTailRecords);
    REQUIRE(tolerate.status.ok());
    REQUIRE(tolerate.records == prefix);
    REQUIRE_FALSE(tolerate.result.stopped_at_damage);
    REQUIRE(tolerate.result.skipped_bytes == cut - 2 * (kHeaderSize + 1));
    REQUIRE(ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency).status.IsCorruption());
    const Replayed pit = ReplayMem(contents, WALRecoveryMode::kPointInTimeRecovery);
    REQUIRE(pit.status.ok());
    REQUIRE(pit.result.stopped_at_damage);
    REQUIRE(pit.records == prefix);
    const Replayed skip = ReplayMem(contents, WALRecoveryMode::kSkipAnyCorruptedRecords);
    REQUIRE(skip.status.ok());
    REQUIRE(skip.records == prefix);
  }
  // A cut exactly at a record boundary is a clean end in every mode.
  for (WALRecoveryMode mode : kAllModes) {
    const Replayed r = ReplayMem(full.substr(0, 2 * (kHeaderSize + 1)), mode);
    REQUIRE(r.status.ok());
    REQUIRE(r.records == prefix);
    REQUIRE_FALSE(r.result.stopped_at_damage);
  }
}

TEST_CASE("zero-filled space at the end is a truncated tail, not a record", "[wal]") {
  const std::vector<std::string> records = {"a", Pattern(40000, 'b')};
  const std::string logged = MustWrite(records);
  for (size_t zeros : {size_t{kHeaderSize}, size_t{100}, size_t{3 * kBlockSize}}) {
    const std::string contents = logged + std::string(zeros, '\0');
    const auto results = ReadAll(contents);
    REQUIRE(results.size() == 4);
    REQUIRE(results[2].first == ReadResult::kTruncatedTail);
    REQUIRE(results[3].first == ReadResult::kEof);
    REQUIRE(ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency).status.IsCorruption());
    const Replayed tolerate = ReplayMem(contents, WALRecoveryMode::kTolerateCorruptedTailRecords);
    REQUIRE(tolerate.status.ok());
    REQUIRE(tolerate.records == records);
    REQUIRE(tolerate.result.skipped_bytes == zeros);
  }
}

TEST_CASE("a zero-filled hole in the middle is corruption", "[wal]") {
  std::string contents = MustWrite({Pattern(kFullBlockPayload, '0')});
  contents += std::string(kBlockSize, '\0');
  contents += MustWrite({"after"});
  const auto results = ReadAll(contents);
  REQUIRE(results.size() == 4);
  REQUIRE(results[1].first == ReadResult::kCorruptRecord);
  REQUIRE(results[2].second == "after");
  const Replayed pit = ReplayMem(contents, WALRecoveryMode::kPointInTimeRecovery);
  REQUIRE(pit.records.size() == 1);
  REQUIRE(pit.result.stopped_at_damage);
  REQUIRE(ReplayMem(contents, WALRecoveryMode::kSkipAnyCorruptedRecords).records.size() == 2);
}

TEST_CASE("a First fragment not followed by Middle/Last is corrupt", "[wal]") {
  const std::string contents = Fragment(log::kFirstType, "ab") + Fragment(log::kFullType, "cd") +
                               Fragment(log::kLastType, "orphan") +
                               Fragment(log::kFirstType, "ef") + Fragment(log::kFirstType, "gh") +
                               Fragment(log::kLastType, "ij");
  const auto results = ReadAll(contents);
  REQUIRE(results.size() == 6);
  REQUIRE(results[0].first == ReadResult::kCorruptRecord);  // "ab" never ended
  REQUIRE(results[1] == std::make_pair(ReadResult::kRecord, std::string("cd")));
  REQUIRE(results[2].first == ReadResult::kCorruptRecord);  // orphan Last
  REQUIRE(results[3].first == ReadResult::kCorruptRecord);  // "ef" never ended
  REQUIRE(results[4] == std::make_pair(ReadResult::kRecord, std::string("ghij")));
  REQUIRE(results[5].first == ReadResult::kEof);
}

TEST_CASE("a First fragment at end of file is a truncated tail", "[wal]") {
  const auto results = ReadAll(Fragment(log::kFullType, "x") + Fragment(log::kFirstType, "ab"));
  REQUIRE(results.size() == 3);
  REQUIRE(results[1].first == ReadResult::kTruncatedTail);
}

TEST_CASE("impossible lengths and types are corrupt, short data at EOF is torn", "[wal]") {
  // A length past the block boundary, mid-file: corrupt.
  std::string past_block = Fragment(log::kFullType, "abc");
  past_block[4] = '\xff';
  past_block[5] = '\xff';
  past_block.resize(kBlockSize, 'z');
  past_block += MustWrite({"next"});
  auto results = ReadAll(past_block);
  REQUIRE(results[0].first == ReadResult::kCorruptRecord);
  REQUIRE(results[1] == std::make_pair(ReadResult::kRecord, std::string("next")));
  // A length past end of file, inside the block: truncated tail.
  std::string torn = Fragment(log::kFullType, Pattern(100, 't'));
  torn.resize(20);
  results = ReadAll(torn);
  REQUIRE(results[0].first == ReadResult::kTruncatedTail);
  // An unknown type with a valid checksum: corrupt, then the reader goes on.
  results = ReadAll(Fragment(9, "bad") + Fragment(log::kFullType, "good"));
  REQUIRE(results[0].first == ReadResult::kCorruptRecord);
  REQUIRE(results[1] == std::make_pair(ReadResult::kRecord, std::string("good")));
  // A zero type with a payload is never written: corrupt.
  results = ReadAll(Fragment(log::kZeroType, "zz") + Fragment(log::kFullType, "good"));
  REQUIRE(results[0].first == ReadResult::kCorruptRecord);
  REQUIRE(results[1].second == "good");
}

TEST_CASE("read errors and apply errors are returned as is", "[wal]") {
  const std::string contents = MustWrite({Pattern(kFullBlockPayload, '0'), "b", "c"});
  for (WALRecoveryMode mode : kAllModes) {
    log::Reader reader(std::make_unique<MemSequentialFile>(contents, 0, kBlockSize + 1),
                       kTestLogNumber);
    log::ReplayResult result;
    int applied = 0;
    const Status s = log::ReplayLog(
        &reader, mode, [&](const Slice&) { return applied++, Status::OK(); }, &result);
    REQUIRE(s.IsIOError());
    REQUIRE(applied == 1);

    log::Reader reader2(std::make_unique<MemSequentialFile>(contents), kTestLogNumber);
    const Status s2 = log::ReplayLog(
        &reader2, mode, [](const Slice&) { return Status::Aborted("stop"); }, &result);
    REQUIRE(s2.IsAborted());
    REQUIRE(result.records == 0);
  }
}

TEST_CASE("a closed log writes nothing more: AddRecord and Sync fail", "[wal]") {
  // A DB whose WAL switch failed after closing the old log keeps it as its
  // log until the error stops writes; a second write queue's leader that
  // checked before the error must get an error, never an append.
  std::string contents;
  auto writer = NewMemLogWriter(&contents);
  REQUIRE(writer->AddRecord("before").ok());
  REQUIRE(writer->Close().ok());
  const std::string closed = contents;
  CHECK(writer->AddRecord("after").IsIOError());
  CHECK(writer->Sync().IsIOError());
  CHECK(writer->Close().ok());
  CHECK(contents == closed);
}
