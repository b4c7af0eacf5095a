// FlashGeometry's validity check and the chunk state names
// (shale/flash_device.h).
#include <cstdint>
#include <string>
#include <utility>

#include "shale/flash_device.h"

namespace shale {

namespace {

bool IsPowerOfTwo(uint32_t n) { return n != 0 && (n & (n - 1)) == 0; }

// The first count that is zero, by name; "" if none is.
std::string ZeroCount(const FlashGeometry& g) {
  const std::pair<const char*, uint32_t> counts[] = {
      {"groups", g.groups},
      {"parallel_units_per_group", g.parallel_units_per_group},
      {"chunks_per_unit", g.chunks_per_unit},
      {"sectors_per_chunk", g.sectors_per_chunk},
      {"sector_bytes", g.sector_bytes},
      {"ws_min", g.ws_min},
      {"ws_opt", g.ws_opt},
      {"max_open_chunks", g.max_open_chunks},
  };
  for (const auto& [name, value] : counts) {
    if (value == 0) return std::string(name) + " is 0";
  }
  return "";
}

}  // namespace

std::string FlashGeometry::Invalid() const {
  if (std::string zero = ZeroCount(*this); !zero.empty()) return zero;
  const uint64_t total_chunks = uint64_t{groups} * parallel_units_per_group * chunks_per_unit;
  if (total_chunks > UINT32_MAX) return "more than 2^32 - 1 chunks";
  if (ws_opt % ws_min != 0) return "ws_opt is not a multiple of ws_min";
  if (sectors_per_chunk % ws_min != 0) return "sectors_per_chunk is not a multiple of ws_min";
  if (mw_cunits % ws_min != 0) return "mw_cunits is not a multiple of ws_min";
  if (mw_cunits >= sectors_per_chunk) return "mw_cunits is not below sectors_per_chunk";
  if (oob_bytes < 32) return "oob_bytes is below 32";
  if (!IsPowerOfTwo(sector_bytes) || sector_bytes < 512) {
    return "sector_bytes is not a power of two of at least 512";
  }
  return "";
}

const char* ChunkStateName(ChunkState state) {
  switch (state) {
    case ChunkState::kFree:
      return "FREE";
    case ChunkState::kOpen:
      return "OPEN";
    case ChunkState::kClosed:
      return "CLOSED";
    case ChunkState::kOffline:
      return "OFFLINE";
  }
  return "UNKNOWN";
}

}  // namespace shale
