#include <catch2/catch.hpp>

#include "db/dbformat.h"
#include "shale/status.h"
#include "util/coding.h"

using namespace shale;

TEST_CASE("varint64 round-trips at every width", "[coding]") {
  std::string buf;
  std::vector<uint64_t> values;
  for (int shift = 0; shift < 64; shift++) {
    const uint64_t p = uint64_t{1} << shift;
    values.push_back(p - 1);
    values.push_back(p);
    values.push_back(p + 1);
  }
  for (uint64_t v : values) PutVarint64(&buf, v);
  Slice in(buf);
  for (uint64_t expected : values) {
    uint64_t actual = 0;
    REQUIRE(GetVarint64(&in, &actual));
    REQUIRE(actual == expected);
  }
  REQUIRE(in.empty());
}

TEST_CASE("truncated varint is rejected, never over-read", "[coding]") {
  std::string buf;
  PutVarint32(&buf, 1u << 30);
  for (size_t len = 0; len < buf.size(); len++) {
    uint32_t v;
    REQUIRE(GetVarint32Ptr(buf.data(), buf.data() + len, &v) == nullptr);
  }
}

TEST_CASE("fixed-width integers are little-endian", "[coding]") {
  std::string buf;
  PutFixed32(&buf, 0x04030201u);
  PutFixed64(&buf, 0x0807060504030201ull);
  REQUIRE(buf.substr(0, 4) == std::string("\x01\x02\x03\x04", 4));
  REQUIRE(DecodeFixed64(buf.data() + 4) == 0x0807060504030201ull);
}

TEST_CASE("internal keys order user key asc, sequence desc", "[dbformat]") {
  InternalKeyComparator cmp(BytewiseComparator());
  InternalKey a1("a", 1, kTypeValue), a2("a", 2, kTypeValue), b1("b", 1, kTypeDeletion);
  REQUIRE(cmp.Compare(a2.Encode(), a1.Encode()) < 0);
  REQUIRE(cmp.Compare(a1.Encode(), b1.Encode()) < 0);
  ParsedInternalKey parsed;
  REQUIRE(ParseInternalKey(b1.Encode(), &parsed));
  REQUIRE(parsed.user_key == Slice("b"));
  REQUIRE(parsed.sequence == 1);
  REQUIRE(parsed.type == kTypeDeletion);
}

TEST_CASE("status carries RocksDB codes", "[status]") {
  Status s = Status::Corruption("block", "bad crc");
  REQUIRE(s.IsCorruption());
  REQUIRE(s.ToString() == "Corruption: block: bad crc");
  REQUIRE(Status::NoSpace("x").IsNoSpace());
  REQUIRE(Status::OK().ok());
}
