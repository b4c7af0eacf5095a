// Random: Shale's own deterministic PRNG (xoshiro256**, seeded by
// splitmix64). Standard-library distributions differ between libraries and
// absl::BitGen is deliberately unreproducible, so every random choice in the
// engine and the simulator draws from this type.
//
// Thread safety: none; one Random per user.
#pragma once

#include <cstdint>
#include "util/check.h"

namespace shale {

class Random {
 public:
  explicit Random(uint64_t seed) {
    for (uint64_t& word : state_) word = SplitMix64(&seed);
  }

  uint64_t Next64() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }
  uint32_t Next32() { return static_cast<uint32_t>(Next64() >> 32); }

  // Uniform in [0, n). REQUIRES: n > 0. (Lemire's multiply-shift; the tiny
  // bias for huge n is irrelevant here and keeps it one draw per call.)
  uint64_t Uniform(uint64_t n) {
    SHALE_CHECK(n > 0);
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next64()) * n) >> 64);
  }
  // True with probability 1/n. REQUIRES: n > 0.
  bool OneIn(uint64_t n) { return Uniform(n) == 0; }
  // Uniform in [0, 2^Uniform(max_log+1)): small values far more often.
  uint64_t Skewed(int max_log) {
    return Uniform(uint64_t{1} << Uniform(static_cast<uint64_t>(max_log) + 1));
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix64(uint64_t* x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t state_[4];
};

}  // namespace shale
