#include "db/dbformat.h"
#include "util/check.h"

#include <cstdio>

namespace shale {

void AppendInternalKey(std::string* result, const ParsedInternalKey& key) {
  result->append(key.user_key.data(), key.user_key.size());
  PutFixed64(result, PackSequenceAndType(key.sequence, key.type));
}

bool ParseInternalKey(const Slice& internal_key, ParsedInternalKey* result) {
  if (internal_key.size() < kInternalKeyTrailerBytes) return false;
  const uint64_t trailer = ExtractTrailer(internal_key);
  const uint8_t type = static_cast<uint8_t>(trailer & 0xff);
  if (type > kTypeValue) return false;
  result->user_key = ExtractUserKey(internal_key);
  result->sequence = trailer >> 8;
  result->type = static_cast<ValueType>(type);
  return true;
}

std::string ParsedInternalKey::DebugString() const {
  char buf[64];
  snprintf(buf, sizeof(buf), "' @ %llu : %d", static_cast<unsigned long long>(sequence),
           static_cast<int>(type));
  std::string out = "'";
  out.append(user_key.data(), user_key.size());
  out.append(buf);
  return out;
}

std::string InternalKey::DebugString() const {
  ParsedInternalKey parsed;
  if (ParseInternalKey(rep_, &parsed)) return parsed.DebugString();
  return "(bad)" + Slice(rep_).ToHex();
}

int InternalKeyComparator::CompareWithUserComparator(const Slice& akey, const Slice& bkey) const {
  int r = user_comparator_->Compare(ExtractUserKey(akey), ExtractUserKey(bkey));
  if (r == 0) {
    const uint64_t anum = ExtractTrailer(akey);
    const uint64_t bnum = ExtractTrailer(bkey);
    if (anum > bnum)
      r = -1;
    else if (anum < bnum)
      r = +1;
  }
  return r;
}

void InternalKeyComparator::FindShortestSeparator(std::string* start, const Slice& limit) const {
  // Shorten the user part; if it got shorter and stays ordered, append the
  // earliest possible trailer so the separator still sorts before limit.
  Slice user_start = ExtractUserKey(*start);
  Slice user_limit = ExtractUserKey(limit);
  std::string tmp(user_start.data(), user_start.size());
  user_comparator_->FindShortestSeparator(&tmp, user_limit);
  if (tmp.size() < user_start.size() && user_comparator_->Compare(user_start, tmp) < 0) {
    PutFixed64(&tmp, PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    SHALE_CHECK(this->Compare(*start, tmp) < 0);
    SHALE_CHECK(this->Compare(tmp, limit) < 0);
    start->swap(tmp);
  }
}

void InternalKeyComparator::FindShortSuccessor(std::string* key) const {
  Slice user_key = ExtractUserKey(*key);
  std::string tmp(user_key.data(), user_key.size());
  user_comparator_->FindShortSuccessor(&tmp);
  if (tmp.size() < user_key.size() && user_comparator_->Compare(user_key, tmp) < 0) {
    PutFixed64(&tmp, PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    SHALE_CHECK(this->Compare(*key, tmp) < 0);
    key->swap(tmp);
  }
}

LookupKey::LookupKey(const Slice& user_key, SequenceNumber s) {
  const size_t usize = user_key.size();
  const size_t needed = usize + 13;  // varint32 (<=5) + trailer (8)
  char* dst = needed <= sizeof(space_) ? space_ : new char[needed];
  start_ = dst;
  dst = EncodeVarint32(dst, static_cast<uint32_t>(usize + kInternalKeyTrailerBytes));
  kstart_ = dst;
  std::memcpy(dst, user_key.data(), usize);
  dst += usize;
  EncodeFixed64(dst, PackSequenceAndType(s, kValueTypeForSeek));
  dst += kInternalKeyTrailerBytes;
  end_ = dst;
}

LookupKey::~LookupKey() {
  if (start_ != space_) delete[] start_;
}

}  // namespace shale
