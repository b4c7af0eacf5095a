// Hash64: Shale's own fast 64-bit hash for bloom filters and cache sharding.
//
// A multiply-rotate mix over 8-byte words with a final avalanche (the
// splitmix64 finalizer). Deterministic across platforms and runs: it never
// depends on a per-process seed, so bloom filters written by one process are
// read correctly by another. Not cryptographic.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "util/coding.h"

namespace shale {

namespace hash_internal {
constexpr uint64_t kMul1 = 0x9e3779b97f4a7c15ull;
constexpr uint64_t kMul2 = 0xc2b2ae3d27d4eb4full;
inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t Avalanche(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace hash_internal

// One word mixed to a well-spread word (the splitmix64 finalizer; a
// bijection): distinct inputs give distinct, unrelated-looking outputs.
inline uint64_t MixWord(uint64_t x) { return hash_internal::Avalanche(x); }

inline uint64_t Hash64(const char* data, size_t n, uint64_t seed = 0) {
  using namespace hash_internal;
  uint64_t h = seed ^ (static_cast<uint64_t>(n) * kMul1);
  while (n >= 8) {
    h = Rotl64(h ^ (DecodeFixed64(data) * kMul2), 31) * kMul1;
    data += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  for (size_t i = 0; i < n; i++)
    tail |= static_cast<uint64_t>(static_cast<uint8_t>(data[i])) << (8 * i);
  h = Rotl64(h ^ (tail * kMul2), 29) * kMul1;
  return Avalanche(h);
}

}  // namespace shale
