// Seed ranges and shards for `shale run --seeds A..B --shard K/N`.
//
// A..B is inclusive, both uint64 decimal, A <= B. Shard K/N (1 <= K <= N)
// keeps the seeds with seed % N == K-1, so N machines given shards 1/N..N/N
// run disjoint sets whose union is the whole range (and shard 1/1 is all).
//
// Thread safety: stateless functions (ShardCursor: one thread). Parsers are strict: the whole string must match.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shale::cli {

struct SeedRange {
  uint64_t first = 1;
  uint64_t last = 1;  // inclusive
};

struct Shard {
  uint64_t index = 1;  // K, 1-based
  uint64_t count = 1;  // N
};

// Decimal, no sign, no spaces, no overflow.
[[nodiscard]] bool ParseUint64(std::string_view text, uint64_t* value);
// "A..B"; false with one line in *error.
[[nodiscard]] bool ParseSeedRange(std::string_view text, SeedRange* range, std::string* error);
// "K/N"; false with one line in *error.
[[nodiscard]] bool ParseShard(std::string_view text, Shard* shard, std::string* error);

// Reads an environment variable; nullptr if unset. (std::getenv in the
// CLI; tests pass their own.)
using EnvLookup = const char* (*)(const char* name);

// Shards from a job engine's environment, for `--shard auto` and
// `--shard auto/N`:
//   K = JOB_COMPLETION_INDEX + 1 (Kubernetes sets JOB_COMPLETION_INDEX,
//       0-based, in each pod of an Indexed Job);
//   N = the N of "auto/N", else SHALE_SHARD_COUNT (the Job's completions,
//       which the pod does not see unless the manifest passes it on).
// Any other text is returned as it is, for ParseShard. False with one line
// in *error if a variable is missing or malformed or K > N.
[[nodiscard]] bool ResolveAutoShard(std::string_view text, EnvLookup lookup, std::string* resolved,
                                    std::string* error);

// True if shard keeps seed.
bool InShard(uint64_t seed, const Shard& shard);
// How many seeds of range the shard keeps (saturates at UINT64_MAX: the
// whole uint64 range has 2^64 seeds).
uint64_t ShardSeedCount(const SeedRange& range, const Shard& shard);
// The seeds of range the shard keeps, ascending. REQUIRES:
// ShardSeedCount(range, shard) fits in memory (callers cap it first).
std::vector<uint64_t> ShardSeeds(const SeedRange& range, const Shard& shard);

// The same seeds one at a time, in constant memory. Not thread-safe.
class ShardCursor {
 public:
  ShardCursor(const SeedRange& range, const Shard& shard);
  // Sets *seed to the next seed and returns true; false once none are left.
  bool Next(uint64_t* seed);

 private:
  uint64_t next_ = 0;
  uint64_t left_ = 0;  // seeds not yet returned (ShardSeedCount saturates)
  uint64_t step_ = 1;
};

}  // namespace shale::cli
