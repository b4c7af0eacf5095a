// Key and value generators with db_bench's shapes.
//
// Keys: the key index as zero-padded decimal, key_size bytes wide (db_bench's
// "%016d" at the default 16 bytes); an index with more digits than key_size
// keeps its low-order digits.
// Values: slices of a 1 MiB pool built from chunks that are half random
// printable bytes and half a repeat of them, so a value compresses to about
// half its size, like db_bench's values.
//
// Thread safety: none; each thread owns its generators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "shale/slice.h"

namespace shale::bench {

class KeyFormatter {
 public:
  explicit KeyFormatter(size_t key_size_bytes);
  // The key for index; valid until the next call.
  Slice Format(uint64_t index);

 private:
  size_t key_size_bytes_;
  std::string buffer_;
};

class ValuePool {
 public:
  // REQUIRES: value_size_bytes <= kMaxValueSizeBytes (bench_config.h).
  ValuePool(uint64_t seed, size_t value_size_bytes);
  // The next value_size_bytes slice of the pool; valid while the pool lives.
  Slice Next();

 private:
  static constexpr size_t kPoolBytes = 1 << 20;
  static constexpr size_t kChunkBytes = 100;
  size_t value_size_bytes_;
  std::string pool_;
  size_t position_ = 0;
};

}  // namespace shale::bench
