#include "seed_range.h"

#include <charconv>
#include <limits>

namespace shale::cli {
namespace {

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

// The smallest seed >= first with seed % count == index-1, or false if it
// would pass last.
bool FirstInShard(const SeedRange& range, const Shard& shard, uint64_t* seed) {
  const uint64_t want = shard.index - 1;
  const uint64_t have = range.first % shard.count;
  const uint64_t step = want >= have ? want - have : shard.count - (have - want);
  if (step > range.last - range.first) return false;
  *seed = range.first + step;
  return true;
}

}  // namespace

bool ParseUint64(std::string_view text, uint64_t* value) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

bool ParseSeedRange(std::string_view text, SeedRange* range, std::string* error) {
  const std::string bad = "malformed seed range '" + std::string(text) + "' ";
  const size_t dots = text.find("..");
  if (dots == std::string_view::npos) return Fail(error, bad + "(want A..B, e.g. 1..1000)");
  SeedRange r;
  if (!ParseUint64(text.substr(0, dots), &r.first) ||
      !ParseUint64(text.substr(dots + 2), &r.last)) {
    return Fail(error, bad + "(A and B must be unsigned 64-bit integers)");
  }
  if (r.first > r.last) return Fail(error, bad + "(A must not exceed B)");
  *range = r;
  return true;
}

bool ParseShard(std::string_view text, Shard* shard, std::string* error) {
  const std::string bad = "malformed shard '" + std::string(text) + "' ";
  const size_t slash = text.find('/');
  Shard s;
  if (slash == std::string_view::npos || !ParseUint64(text.substr(0, slash), &s.index) ||
      !ParseUint64(text.substr(slash + 1), &s.count)) {
    return Fail(error, bad + "(want K/N, e.g. 2/8)");
  }
  if (s.count == 0 || s.index == 0 || s.index > s.count) {
    return Fail(error, bad + "(need 1 <= K <= N)");
  }
  *shard = s;
  return true;
}

namespace {
// The variable's value as a uint64; false with one line in *error.
bool EnvUint64(EnvLookup lookup, const char* name, const char* purpose, uint64_t* value,
               std::string* error) {
  const char* text = lookup(name);
  if (text == nullptr) {
    return Fail(error, std::string("--shard auto needs ") + name + " (" + purpose + ")");
  }
  if (!ParseUint64(text, value)) {
    return Fail(error, std::string(name) + "='" + text + "' is not a decimal number");
  }
  return true;
}
}  // namespace

bool ResolveAutoShard(std::string_view text, EnvLookup lookup, std::string* resolved,
                      std::string* error) {
  constexpr std::string_view kAuto = "auto";
  if (text.substr(0, kAuto.size()) != kAuto) {
    *resolved = std::string(text);
    return true;
  }
  std::string_view rest = text.substr(kAuto.size());
  uint64_t count = 0;
  if (rest.empty()) {
    if (!EnvUint64(lookup, "SHALE_SHARD_COUNT", "the number of shards, or write auto/N", &count,
                   error)) {
      return false;
    }
  } else if (rest[0] != '/' || !ParseUint64(rest.substr(1), &count)) {
    return Fail(error, "malformed shard '" + std::string(text) + "' (want auto or auto/N)");
  }
  uint64_t index0 = 0;
  if (!EnvUint64(lookup, "JOB_COMPLETION_INDEX", "set in each pod of a Kubernetes Indexed Job",
                 &index0, error)) {
    return false;
  }
  if (count == 0 || index0 >= count) {
    return Fail(error, "--shard auto: JOB_COMPLETION_INDEX=" + std::to_string(index0) +
                           " is not below the shard count " + std::to_string(count));
  }
  *resolved = std::to_string(index0 + 1) + "/" + std::to_string(count);
  return true;
}

bool InShard(uint64_t seed, const Shard& shard) { return seed % shard.count == shard.index - 1; }

uint64_t ShardSeedCount(const SeedRange& range, const Shard& shard) {
  uint64_t first = 0;
  if (!FirstInShard(range, shard, &first)) return 0;
  const uint64_t after_first = (range.last - first) / shard.count;
  return after_first == std::numeric_limits<uint64_t>::max() ? after_first : after_first + 1;
}

std::vector<uint64_t> ShardSeeds(const SeedRange& range, const Shard& shard) {
  std::vector<uint64_t> seeds;
  seeds.reserve(ShardSeedCount(range, shard));
  ShardCursor cursor(range, shard);
  for (uint64_t seed = 0; cursor.Next(&seed);) seeds.push_back(seed);
  return seeds;
}

ShardCursor::ShardCursor(const SeedRange& range, const Shard& shard)
    : left_(ShardSeedCount(range, shard)), step_(shard.count) {
  if (left_ > 0) (void)FirstInShard(range, shard, &next_);
}

bool ShardCursor::Next(uint64_t* seed) {
  if (left_ == 0) return false;
  *seed = next_;
  if (--left_ > 0) next_ += step_;
  return true;
}

}  // namespace shale::cli
