// Internal keys: how the engine versions user keys.
//
//   internal_key := user_key | fixed64(sequence << 8 | type)
//
// Internal keys order by user key ascending (the user comparator), then by
// sequence DESCENDING, then by type descending, so the newest version of a
// key comes first. Sequence numbers are 56 bits.
//
// Thread safety: all types here are values or immutable after construction.
#pragma once

#include <cstdint>
#include <string>

#include "shale/comparator.h"
#include "shale/slice.h"
#include "util/check.h"
#include "util/coding.h"

namespace shale {

using SequenceNumber = uint64_t;

// Persisted in WAL, memtable and SSTs: never renumber.
enum ValueType : uint8_t {
  kTypeDeletion = 0x0,
  kTypeValue = 0x1,
};
// Seeks use the highest type so that they land on the newest entry of a
// sequence (types sort descending).
constexpr ValueType kValueTypeForSeek = kTypeValue;

constexpr SequenceNumber kMaxSequenceNumber = (uint64_t{1} << 56) - 1;
constexpr size_t kInternalKeyTrailerBytes = 8;

inline uint64_t PackSequenceAndType(SequenceNumber seq, ValueType t) {
  SHALE_CHECK(seq <= kMaxSequenceNumber);
  return (seq << 8) | t;
}

struct ParsedInternalKey {
  Slice user_key;
  SequenceNumber sequence = 0;
  ValueType type = kTypeValue;

  ParsedInternalKey() = default;
  ParsedInternalKey(const Slice& u, SequenceNumber seq, ValueType t)
      : user_key(u), sequence(seq), type(t) {}
  std::string DebugString() const;
};

void AppendInternalKey(std::string* result, const ParsedInternalKey& key);
// False if internal_key is too short or has an unknown type.
[[nodiscard]] bool ParseInternalKey(const Slice& internal_key, ParsedInternalKey* result);

// REQUIRES: internal_key.size() >= 8
inline Slice ExtractUserKey(const Slice& internal_key) {
  SHALE_CHECK(internal_key.size() >= kInternalKeyTrailerBytes);
  return Slice(internal_key.data(), internal_key.size() - kInternalKeyTrailerBytes);
}
inline uint64_t ExtractTrailer(const Slice& internal_key) {
  SHALE_CHECK(internal_key.size() >= kInternalKeyTrailerBytes);
  return DecodeFixed64(internal_key.data() + internal_key.size() - kInternalKeyTrailerBytes);
}
inline SequenceNumber ExtractSequence(const Slice& internal_key) {
  return ExtractTrailer(internal_key) >> 8;
}

// Internal key order for the bytewise user comparator, with no indirect
// call: user keys ascending, then trailers (sequence, type) descending.
inline int CompareBytewiseInternal(const Slice& a, const Slice& b) {
  const int r = ExtractUserKey(a).compare(ExtractUserKey(b));
  if (r != 0) return r;
  const uint64_t a_trailer = ExtractTrailer(a);
  const uint64_t b_trailer = ExtractTrailer(b);
  return a_trailer > b_trailer ? -1 : (a_trailer < b_trailer ? 1 : 0);
}

// Orders internal keys as described at the top of this file.
// The class is final, so a call through an InternalKeyComparator pointer
// (not a Comparator one) is direct and inlined: the hot paths (memtable,
// merging iterator) hold one for that reason.
class InternalKeyComparator final : public Comparator {
 public:
  explicit InternalKeyComparator(const Comparator* user)
      : user_comparator_(user), bytewise_(user == BytewiseComparator()) {}
  int Compare(const Slice& a, const Slice& b) const override {
    if (bytewise_) return CompareBytewiseInternal(a, b);
    return CompareWithUserComparator(a, b);
  }
  const char* Name() const override { return "shale.InternalKeyComparator"; }
  void FindShortestSeparator(std::string* start, const Slice& limit) const override;
  void FindShortSuccessor(std::string* key) const override;
  const Comparator* user_comparator() const { return user_comparator_; }

 private:
  int CompareWithUserComparator(const Slice& a, const Slice& b) const;

  const Comparator* user_comparator_;
  const bool bytewise_;  // user_comparator_ is BytewiseComparator()
};

// An owned internal key.
class InternalKey {
 public:
  InternalKey() = default;  // empty: not valid until decoded or set
  InternalKey(const Slice& user_key, SequenceNumber s, ValueType t) {
    AppendInternalKey(&rep_, ParsedInternalKey(user_key, s, t));
  }
  bool DecodeFrom(const Slice& s) {
    rep_.assign(s.data(), s.size());
    return !rep_.empty();
  }
  Slice Encode() const {
    SHALE_CHECK(!rep_.empty());
    return rep_;
  }
  Slice user_key() const { return ExtractUserKey(rep_); }
  void Clear() { rep_.clear(); }
  bool empty() const { return rep_.empty(); }
  std::string DebugString() const;

 private:
  std::string rep_;
};

// The key a memtable or table lookup for (user_key, sequence) seeks to:
//   varint32(internal_key_size) | user_key | fixed64(sequence << 8 | kValueTypeForSeek)
class LookupKey {
 public:
  LookupKey(const Slice& user_key, SequenceNumber sequence);
  LookupKey(const LookupKey&) = delete;
  LookupKey& operator=(const LookupKey&) = delete;
  ~LookupKey();

  // The memtable's key format (length-prefixed internal key).
  Slice memtable_key() const { return Slice(start_, static_cast<size_t>(end_ - start_)); }
  Slice internal_key() const { return Slice(kstart_, static_cast<size_t>(end_ - kstart_)); }
  Slice user_key() const {
    return Slice(kstart_, static_cast<size_t>(end_ - kstart_) - kInternalKeyTrailerBytes);
  }

 private:
  const char* start_;
  const char* kstart_;
  const char* end_;
  char space_[200];  // avoids allocation for short keys
};

}  // namespace shale
