// VersionEdit encoding: round trips and damage detection.
#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <string>

#include "common/rc_check.h"
#include "util/coding.h"
#include "version/version_edit.h"

namespace shale {
namespace {

InternalKey Key(const std::string& user_key, SequenceNumber seq, ValueType type = kTypeValue) {
  return InternalKey(user_key, seq, type);
}

// Encodes, decodes, re-encodes: the two encodings must be identical.
void CheckRoundTrip(const VersionEdit& edit) {
  std::string encoded;
  edit.EncodeTo(&encoded);
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(encoded);
  RC_ASSERT(s.ok());
  std::string encoded2;
  parsed.EncodeTo(&encoded2);
  RC_ASSERT(encoded == encoded2);
}

TEST_CASE("VersionEdit round trips every field", "[version_edit]") {
  shale_test::FixedSeedProp("random edits round trip", [] {
    VersionEdit edit;
    if (*rc::gen::arbitrary<bool>()) edit.SetComparatorName(*rc::gen::arbitrary<std::string>());
    if (*rc::gen::arbitrary<bool>()) edit.SetLogNumber(*rc::gen::arbitrary<uint64_t>());
    if (*rc::gen::arbitrary<bool>()) edit.SetPrevLogNumber(*rc::gen::arbitrary<uint64_t>());
    if (*rc::gen::arbitrary<bool>()) edit.SetNextFile(*rc::gen::arbitrary<uint64_t>());
    if (*rc::gen::arbitrary<bool>()) {
      edit.SetLastSequence(*rc::gen::inRange<uint64_t>(0, kMaxSequenceNumber));
    }
    const auto level_gen = rc::gen::inRange(0, kMaxNumLevels);
    const int n = *rc::gen::inRange(0, 20);
    for (int i = 0; i < n; i++) {
      const int level = *level_gen;
      const SequenceNumber s1 = *rc::gen::inRange<uint64_t>(0, kMaxSequenceNumber);
      const SequenceNumber s2 = *rc::gen::inRange<uint64_t>(s1, kMaxSequenceNumber);
      switch (*rc::gen::inRange(0, 3)) {
        case 0:
          edit.SetCompactPointer(level, Key(*rc::gen::arbitrary<std::string>(), s1));
          break;
        case 1:
          edit.RemoveFile(level, *rc::gen::arbitrary<uint64_t>());
          break;
        default: {
          FileMetaData f;
          f.number = *rc::gen::arbitrary<uint64_t>();
          f.file_size = *rc::gen::arbitrary<uint64_t>();
          f.smallest = Key(*rc::gen::arbitrary<std::string>(), s2, kTypeDeletion);
          f.largest = Key(*rc::gen::arbitrary<std::string>(), s1);
          f.smallest_seqno = s1;
          f.largest_seqno = s2;
          // 0 (unknown: tag 7) or a tail the file can hold (tag 10).
          f.tail_size_bytes = *rc::gen::inRange<uint64_t>(0, f.file_size / 2 + 1);
          edit.AddFile(level, f);
        }
      }
    }
    CheckRoundTrip(edit);
  });
}

TEST_CASE("VersionEdit decodes the fields it encoded", "[version_edit]") {
  VersionEdit edit;
  edit.SetComparatorName("cmp");
  edit.SetLogNumber(10);
  edit.SetNextFile(20);
  edit.SetLastSequence(30);
  edit.AddFile(2, 7, 4096, Key("a", 5), Key("z", 9), 5, 9);
  edit.RemoveFile(1, 3);
  std::string encoded;
  edit.EncodeTo(&encoded);
  VersionEdit parsed;
  REQUIRE(parsed.DecodeFrom(encoded).ok());
  CHECK(parsed.comparator() == "cmp");
  CHECK(parsed.log_number() == 10);
  CHECK_FALSE(parsed.has_prev_log_number());
  CHECK(parsed.next_file_number() == 20);
  CHECK(parsed.last_sequence() == 30);
  REQUIRE(parsed.new_files().size() == 1);
  const auto& [level, f] = parsed.new_files()[0];
  CHECK(level == 2);
  CHECK(f.number == 7);
  CHECK(f.file_size == 4096);
  CHECK(f.smallest.Encode() == Key("a", 5).Encode());
  CHECK(f.largest.Encode() == Key("z", 9).Encode());
  CHECK(f.largest_seqno == 9);
  CHECK(parsed.deleted_files().count({1, 3}) == 1);
}

TEST_CASE("VersionEdit carries a table's tail size", "[version_edit]") {
  FileMetaData f;
  f.number = 7;
  f.file_size = 4096;
  f.smallest = Key("a", 5);
  f.largest = Key("z", 9);
  f.tail_size_bytes = 300;
  VersionEdit edit;
  edit.AddFile(1, f);
  std::string encoded;
  edit.EncodeTo(&encoded);
  VersionEdit parsed;
  REQUIRE(parsed.DecodeFrom(encoded).ok());
  REQUIRE(parsed.new_files().size() == 1);
  CHECK(parsed.new_files()[0].second.tail_size_bytes == 300);
  CHECK(parsed.new_files()[0].second.file_size == 4096);

  // A tail longer than its file, or an explicit zero, is damage.
  for (uint64_t bad_tail : {uint64_t{4097}, uint64_t{0}}) {
    std::string bad;
    PutVarint32(&bad, 10);
    PutVarint32(&bad, 1);
    PutVarint64(&bad, 7);
    PutVarint64(&bad, 4096);
    PutLengthPrefixedSlice(&bad, Key("a", 5).Encode());
    PutLengthPrefixedSlice(&bad, Key("z", 9).Encode());
    PutVarint64(&bad, 5);
    PutVarint64(&bad, 9);
    PutVarint64(&bad, bad_tail);
    INFO(bad_tail);
    CHECK(parsed.DecodeFrom(bad).IsCorruption());
  }
}

TEST_CASE("VersionEdit rejects damage with Corruption", "[version_edit]") {
  VersionEdit edit;  // one field, so every proper prefix is damaged
  edit.AddFile(1, 7, 4096, Key("a", 5), Key("z", 9), 5, 9);
  std::string good;
  edit.EncodeTo(&good);

  VersionEdit parsed;
  SECTION("unknown tag") {
    std::string bad = good;
    PutVarint32(&bad, 99);
    PutVarint64(&bad, 1);
    CHECK(parsed.DecodeFrom(bad).IsCorruption());
  }
  SECTION("every truncation") {
    for (size_t len = 1; len < good.size(); len++) {
      Status s = parsed.DecodeFrom(Slice(good.data(), len));
      INFO(len);
      CHECK(s.IsCorruption());
    }
  }
  SECTION("level out of range") {
    std::string bad;
    PutVarint32(&bad, 6);  // deleted file
    PutVarint32(&bad, kMaxNumLevels);
    PutVarint64(&bad, 1);
    CHECK(parsed.DecodeFrom(bad).IsCorruption());
  }
  SECTION("a field twice") {
    std::string bad;
    PutVarint32(&bad, 2);
    PutVarint64(&bad, 1);
    PutVarint32(&bad, 2);
    PutVarint64(&bad, 2);
    CHECK(parsed.DecodeFrom(bad).IsCorruption());
  }
  SECTION("garbage never crashes") {
    shale_test::FixedSeedProp("random bytes decode or fail cleanly", [] {
      const std::string bytes = *rc::gen::arbitrary<std::string>();
      VersionEdit e;
      Status s = e.DecodeFrom(bytes);
      RC_ASSERT(s.ok() || s.IsCorruption());
    });
  }
}

}  // namespace
}  // namespace shale
