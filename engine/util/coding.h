// Byte coding: little-endian fixed-width integers and LEB128 varints, the
// building blocks of every on-disk format in Shale.
//
// Decoders never read past the limit they are given; a truncated or
// over-long varint returns nullptr / false.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "shale/slice.h"

namespace shale {

void PutFixed32(std::string* dst, uint32_t value);
void PutFixed64(std::string* dst, uint64_t value);
void PutVarint32(std::string* dst, uint32_t value);
void PutVarint64(std::string* dst, uint64_t value);
// varint32 length followed by the bytes.
void PutLengthPrefixedSlice(std::string* dst, const Slice& value);

// Each consumes what it parsed from *input; false if input is malformed.
bool GetFixed32(Slice* input, uint32_t* value);
bool GetFixed64(Slice* input, uint64_t* value);
bool GetVarint32(Slice* input, uint32_t* value);
bool GetVarint64(Slice* input, uint64_t* value);
bool GetLengthPrefixedSlice(Slice* input, Slice* result);

// Pointer forms: parse from [p, limit); return the byte after the value, or
// nullptr if malformed.
const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* v);
// GetVarint32Ptr's out-of-line half: any input the one-byte fast path does
// not take (a longer value, an empty range, a malformed varint).
const char* GetVarint32PtrSlow(const char* p, const char* limit, uint32_t* v);

// One-byte values, the common case for lengths, decode inline.
inline const char* GetVarint32Ptr(const char* p, const char* limit, uint32_t* v) {
  if (p < limit) {
    const uint32_t byte = *reinterpret_cast<const uint8_t*>(p);
    if ((byte & 128) == 0) {
      *v = byte;
      return p + 1;
    }
  }
  return GetVarint32PtrSlow(p, limit, v);
}

// Bytes a varint of v takes.
inline int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 128) {
    v >>= 7;
    len++;
  }
  return len;
}

// Writes the varint at dst; returns the byte after it. REQUIRES: 5 (10) bytes.
inline char* EncodeVarint64(char* dst, uint64_t v) {
  uint8_t* ptr = reinterpret_cast<uint8_t*>(dst);
  while (v >= 128) {
    *(ptr++) = static_cast<uint8_t>(v | 128);
    v >>= 7;
  }
  *(ptr++) = static_cast<uint8_t>(v);
  return reinterpret_cast<char*>(ptr);
}
inline char* EncodeVarint32(char* dst, uint32_t value) { return EncodeVarint64(dst, value); }

// REQUIRES: dst has 4 (8) bytes.
inline void EncodeFixed32(char* dst, uint32_t value) {
  uint8_t* const b = reinterpret_cast<uint8_t*>(dst);
  b[0] = static_cast<uint8_t>(value);
  b[1] = static_cast<uint8_t>(value >> 8);
  b[2] = static_cast<uint8_t>(value >> 16);
  b[3] = static_cast<uint8_t>(value >> 24);
}
inline void EncodeFixed64(char* dst, uint64_t value) {
  EncodeFixed32(dst, static_cast<uint32_t>(value));
  EncodeFixed32(dst + 4, static_cast<uint32_t>(value >> 32));
}
// REQUIRES: ptr has 4 (8) readable bytes.
inline uint32_t DecodeFixed32(const char* ptr) {
  const uint8_t* const b = reinterpret_cast<const uint8_t*>(ptr);
  return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
         (static_cast<uint32_t>(b[2]) << 16) | (static_cast<uint32_t>(b[3]) << 24);
}
inline uint64_t DecodeFixed64(const char* ptr) {
  return static_cast<uint64_t>(DecodeFixed32(ptr)) |
         (static_cast<uint64_t>(DecodeFixed32(ptr + 4)) << 32);
}

}  // namespace shale
