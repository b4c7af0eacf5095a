// Swarm fault configurations; see swarm.h.
#include "faults/swarm.h"

#include <algorithm>
#include <cassert>

namespace shale::faults {
namespace {

// Indexed by FaultKind.
constexpr std::array<const char*, kFaultKindCount> kNames = {
    "eio_read",
    "eio_write",
    "eio_sync",
    "eio_open",
    "eio_rename",
    "eio_delete",
    "enospc",
    "fsync_drops_pages",
    "fsync_marks_clean",
    "bit_flip",
    "sticky_unreadable_sector",
    "misdirected_write",
    "short_read",
    "slow_io",
};

// floor(log2(v)). REQUIRES: v > 0.
int Log2(uint64_t v) {
  int b = 0;
  while (v >>= 1) ++b;
  return b;
}

}  // namespace

const char* FaultKindName(FaultKind kind) {
  const auto i = static_cast<size_t>(kind);
  assert(i < kFaultKindCount);
  return kNames[i];
}

RateRange RateRangeOf(FaultKind kind) {
  if (kind == FaultKind::kEioRename || kind == FaultKind::kEioDelete) return {2, 32};
  return {};
}

uint64_t LogUniform(sim::ChoiceTape* rng, uint64_t lo, uint64_t hi) {
  assert(lo >= 1 && lo <= hi && hi < (uint64_t{1} << 62));
  const int lo_bits = Log2(lo);
  const int octave = lo_bits + static_cast<int>(rng->Uniform(Log2(hi) - lo_bits + 1));
  const uint64_t begin = std::max(lo, uint64_t{1} << octave);
  const uint64_t end = std::min(hi, (uint64_t{1} << (octave + 1)) - 1);
  assert(begin <= end);
  return begin + rng->Uniform(end - begin + 1);
}

FaultConfig DrawFaultConfig(sim::ChoiceTape* rng) {
  FaultConfig config;
  for (size_t i = 0; i < kFaultKindCount; ++i) {
    const RateRange range = RateRangeOf(static_cast<FaultKind>(i));
    if (rng->OneIn(2)) config.one_in[i] = LogUniform(rng, range.lo, range.hi);
  }
  if (config.enabled(FaultKind::kSlowIo)) {
    config.slow_io_max_ns = LogUniform(rng, 100'000, 100'000'000);
  }
  if (rng->OneIn(2)) {
    config.fault_point_activate_one_in = 2 + rng->Uniform(3);
    config.fault_point_fire_one_in = LogUniform(rng, 2, 1000);
  }
  return config;
}

std::map<std::string, std::string> Describe(const FaultConfig& config) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < kFaultKindCount; ++i) {
    const uint64_t n = config.one_in[i];
    out[std::string("faults.") + kNames[i]] = n == 0 ? "off" : "1/" + std::to_string(n);
  }
  out["faults.slow_io_max_ns"] = std::to_string(config.slow_io_max_ns);
  out["faults.fault_points"] =
      config.fault_point_activate_one_in == 0
          ? "off"
          : "activate 1/" + std::to_string(config.fault_point_activate_one_in) + ", fire 1/" +
                std::to_string(config.fault_point_fire_one_in);
  return out;
}

}  // namespace shale::faults
