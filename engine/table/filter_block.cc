#include "table/filter_block.h"

#include <algorithm>

#include "util/check.h"
#include "util/hash.h"

namespace shale {

namespace {
constexpr int kMaxProbes = 30;
constexpr uint64_t kLineBits = 512;
constexpr uint32_t kGolden32 = 0x9e3779b9u;

// Calls visit(bit index within the filter) for each probe of hash, stopping
// early when visit returns false.
inline void ProbePositions(uint64_t hash, uint64_t num_lines, int num_probes, auto&& visit) {
  const uint64_t line = (static_cast<uint64_t>(static_cast<uint32_t>(hash)) * num_lines) >> 32;
  const uint64_t base = line * kLineBits;
  uint32_t h = static_cast<uint32_t>(hash >> 32);
  for (int i = 0; i < num_probes; i++) {
    if (!visit(base + (h >> 23))) return;
    h *= kGolden32;
  }
}
}  // namespace

int BloomNumProbes(int bits_per_key) {
  const int k = static_cast<int>(bits_per_key * 0.69 + 0.5);
  return std::clamp(k, 1, kMaxProbes);
}

BloomFilterBuilder::BloomFilterBuilder(int bits_per_key)
    : bits_per_key_(bits_per_key), num_probes_(BloomNumProbes(bits_per_key)) {
  SHALE_CHECK(bits_per_key_ >= 1);
}

void BloomFilterBuilder::AddKey(const Slice& user_key) {
  if (has_last_key_ && Slice(last_key_) == user_key) return;
  last_key_.assign(user_key.data(), user_key.size());
  has_last_key_ = true;
  hashes_.push_back(Hash64(user_key.data(), user_key.size()));
}

Slice BloomFilterBuilder::Finish() {
  const uint64_t wanted_bits =
      static_cast<uint64_t>(hashes_.size()) * static_cast<uint64_t>(bits_per_key_);
  const uint64_t num_lines = std::max<uint64_t>(1, (wanted_bits + kLineBits - 1) / kLineBits);
  result_.assign(static_cast<size_t>(num_lines * kLineBits / 8), '\0');
  char* bits = result_.data();
  for (uint64_t hash : hashes_) {
    ProbePositions(hash, num_lines, num_probes_, [bits](uint64_t pos) {
      bits[pos / 8] = static_cast<char>(bits[pos / 8] | (1 << (pos % 8)));
      return true;
    });
  }
  result_.push_back(static_cast<char>(num_probes_));
  return Slice(result_);
}

BloomFilterReader::BloomFilterReader(const Slice& contents) {
  if (contents.size() < 2) return;
  const int k = static_cast<uint8_t>(contents[contents.size() - 1]);
  if (k < 1 || k > kMaxProbes) return;
  const uint64_t num_bits = static_cast<uint64_t>(contents.size() - 1) * 8;
  if (num_bits % kLineBits != 0) return;
  bits_ = contents.data();
  num_lines_ = num_bits / kLineBits;
  num_probes_ = k;
}

bool BloomFilterReader::KeyMayMatch(const Slice& user_key) const {
  if (num_probes_ == 0) return true;
  bool all_set = true;
  const char* bits = bits_;
  ProbePositions(Hash64(user_key.data(), user_key.size()), num_lines_, num_probes_,
                 [bits, &all_set](uint64_t pos) {
                   all_set = (bits[pos / 8] & (1 << (pos % 8))) != 0;
                   return all_set;
                 });
  return all_set;
}

}  // namespace shale
