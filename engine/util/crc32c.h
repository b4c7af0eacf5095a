// CRC32C (Castagnoli), the checksum of every WAL fragment, MANIFEST record
// and SST block. Uses the SSE4.2 instruction when the CPU has it (chosen at
// run time) and a table-driven software path otherwise; both give the same
// values.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shale::crc32c {

// The crc32c of concat(A, data[0,n)) where init_crc is the crc32c of A.
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// Stored CRCs are masked: a CRC of data that itself contains CRCs is weak,
// so rotate and add a constant (LevelDB's scheme).
constexpr uint32_t kMaskDelta = 0xa282ead8ul;
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked_crc) {
  const uint32_t rot = masked_crc - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace shale::crc32c
