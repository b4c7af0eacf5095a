// The table's full bloom filter over whole USER keys, cache-line local.
//
// Format:  bits[m/8 bytes] | num_probes:u8      (m is a multiple of 512)
// The bits form 64-byte lines. A key's 64-bit hash (Hash64) picks one line
// from its low 32 bits (multiply-shift range reduction); all num_probes bits
// of the key lie in that line, at the top 9 bits of h, h*G, h*G^2, ... where
// h is the hash's high 32 bits and G = 0x9e3779b9 (mod 2^32). One probe
// costs one cache miss instead of num_probes (the idea of RocksDB's
// FastLocalBloom); the false-positive rate at 10 bits/key is ~1% instead of
// ~0.8%. num_probes = round(bits_per_key * ln 2) clamped to 1..30. A reader
// that finds num_probes outside 1..30, or a size that is not whole lines,
// treats the filter as "may match" (a future encoding), never as "absent".
//
// Ownership: the builder owns its state; the reader points into contents the
// caller keeps alive. Thread safety: the reader is immutable; the builder is
// used by one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shale/slice.h"

namespace shale {

class BloomFilterBuilder {
 public:
  // REQUIRES: bits_per_key >= 1.
  explicit BloomFilterBuilder(int bits_per_key);
  // Adds a user key; a key equal to the previous one is skipped (versions of
  // one user key arrive together).
  void AddKey(const Slice& user_key);
  // Builds the filter over every key added; returns a Slice into the builder.
  Slice Finish();
  size_t num_keys() const { return hashes_.size(); }

 private:
  const int bits_per_key_;
  const int num_probes_;
  std::vector<uint64_t> hashes_;
  std::string last_key_;
  bool has_last_key_ = false;
  std::string result_;
};

class BloomFilterReader {
 public:
  // contents must outlive the reader.
  explicit BloomFilterReader(const Slice& contents);
  // False only if user_key was certainly never added.
  bool KeyMayMatch(const Slice& user_key) const;

 private:
  const char* bits_ = nullptr;
  uint64_t num_lines_ = 0;
  int num_probes_ = 0;  // 0 = unusable filter: always "may match"
};

// The number of probes for bits_per_key.
int BloomNumProbes(int bits_per_key);

}  // namespace shale
