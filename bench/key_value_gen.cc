#include "key_value_gen.h"

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "util/random.h"

namespace shale::bench {

KeyFormatter::KeyFormatter(size_t key_size_bytes)
    : key_size_bytes_(key_size_bytes), buffer_(key_size_bytes, '0') {
  assert(key_size_bytes > 0);
}

Slice KeyFormatter::Format(uint64_t index) {
  char digits[24];
  const int n =
      std::snprintf(digits, sizeof(digits), "%llu", static_cast<unsigned long long>(index));
  const size_t len = static_cast<size_t>(n);
  std::fill(buffer_.begin(), buffer_.end(), '0');
  const size_t copy = std::min(len, key_size_bytes_);
  // Right-align the low-order `copy` digits.
  std::copy(digits + (len - copy), digits + len, buffer_.end() - static_cast<ptrdiff_t>(copy));
  return Slice(buffer_);
}

ValuePool::ValuePool(uint64_t seed, size_t value_size_bytes) : value_size_bytes_(value_size_bytes) {
  Random rnd(seed);
  const size_t pool_bytes = std::max(kPoolBytes, value_size_bytes);
  pool_.reserve(pool_bytes + kChunkBytes);
  while (pool_.size() < pool_bytes) {
    const size_t start = pool_.size();
    for (size_t i = 0; i < kChunkBytes / 2; ++i) {
      pool_.push_back(static_cast<char>(' ' + rnd.Uniform(95)));
    }
    pool_.append(pool_, start, kChunkBytes / 2);  // the compressible half
  }
  pool_.resize(pool_bytes);
}

Slice ValuePool::Next() {
  if (position_ + value_size_bytes_ > pool_.size()) position_ = 0;
  const Slice value(pool_.data() + position_, value_size_bytes_);
  position_ += value_size_bytes_;
  return value;
}

}  // namespace shale::bench
