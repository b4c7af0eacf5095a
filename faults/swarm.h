// Swarm testing of faults: per run, a random subset of
// fault kinds is switched on, each with its own rate drawn log-uniformly from
// a wide range, so rare combinations (and runs with few or no faults) happen.
// A FaultConfig is pure data; DiskFaultInjector (disk_fault_injector.h) and
// MakeFaultPointHook (fault_points.h) act on it.
//
// Kinds and the operations each is eligible on (one draw per enabled,
// eligible kind per operation, in FaultKind order):
//   eio_read                  kRead                    -> IOError
//   eio_write                 kWrite                   -> IOError
//   eio_sync                  kSync, kSyncDir          -> IOError; a file's
//                                                         dirty pages stay
//   eio_open                  kOpen, kCreate           -> IOError
//   eio_rename                kRename                  -> IOError
//   eio_delete                kDelete                  -> IOError
//   enospc                    kWrite, kCreate          -> NoSpace; 1 time in 4
//                                                         the disk then stays
//                                                         full for the next
//                                                         1..64 calls
//                             kSync                    -> NoSpace (delayed
//                                                         allocation); dirty
//                                                         pages stay
//   fsync_drops_pages         kSync                    -> IOError; the dirty
//                                                         pages are dropped
//   fsync_marks_clean         kSync                    -> IOError; the dirty
//                                                         pages are marked
//                                                         clean: still read,
//                                                         never written
//   bit_flip                  each durable file at     -> one bit of its
//                             each crash (AfterCrash)     durable data flips
//   sticky_unreadable_sector  kRead of durable bytes   -> a sector it touches
//                                                         fails reads forever
//   misdirected_write         data write (> 0 bytes)   -> lands at another
//                                                         sector-aligned offset
//   short_read                kRead of >= 2 bytes      -> 1..3 short preads,
//                                                         retried by SimDisk
//   slow_io                   every hooked op          -> extra latency in
//                                                         [1, slow_io_max_ns]
// Short reads are the POSIX behaviour the backend hides: env.h promises that
// a read is short only at end of file, so SimDisk retries them internally;
// they cost latency and show in counts and the trace, never in data.
//
// Named engine fault points (Runtime::FaultPoint, the BUGGIFY idea): if on,
// each point name is activated the first time it is asked, with probability
// 1/fault_point_activate_one_in, for the rest of the run; an active point
// then fires with probability 1/fault_point_fire_one_in.
//
// Determinism: every draw comes from the tape passed in, in a fixed order.
// Thread safety: none (plain data and free functions).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "sim/choice_tape.h"

namespace shale::faults {

enum class FaultKind : uint8_t {
  kEioRead,
  kEioWrite,
  kEioSync,
  kEioOpen,
  kEioRename,
  kEioDelete,
  kEnospc,
  kFsyncDropsPages,
  kFsyncMarksClean,
  kBitFlip,
  kStickyUnreadableSector,
  kMisdirectedWrite,
  kShortRead,
  kSlowIo,
};
inline constexpr size_t kFaultKindCount = 14;
static_assert(static_cast<size_t>(FaultKind::kSlowIo) + 1 == kFaultKindCount);

// The snake_case name used in counts and reports ("eio_read", ...).
const char* FaultKindName(FaultKind kind);

// The range per-op rates are drawn from: 1 in [kMinOneIn, kMaxOneIn].
inline constexpr uint64_t kMinOneIn = 50;
inline constexpr uint64_t kMaxOneIn = 100'000;

// The range of a kind's per-op rate: [kMinOneIn, kMaxOneIn], except for
// renames and deletes: a run makes only a few dozen of them (CURRENT
// switches, obsolete files) against thousands of reads and writes, so their
// rates come from [2, 32], or they would almost never fire.
struct RateRange {
  uint64_t lo = kMinOneIn;
  uint64_t hi = kMaxOneIn;
};
RateRange RateRangeOf(FaultKind kind);

struct FaultConfig {
  // one_in[k]: kind k fires on 1 in one_in[k] eligible operations; 0 = off.
  std::array<uint64_t, kFaultKindCount> one_in{};
  // slow_io: a slow operation waits 1..slow_io_max_ns extra.
  uint64_t slow_io_max_ns = 0;
  // Named fault points: 0 = off (every point answers false).
  uint64_t fault_point_activate_one_in = 0;
  uint64_t fault_point_fire_one_in = 0;

  uint64_t rate_one_in(FaultKind kind) const { return one_in[static_cast<size_t>(kind)]; }
  bool enabled(FaultKind kind) const { return rate_one_in(kind) != 0; }
  // REQUIRES: one_in_value == 0 (off) or >= 1.
  void set(FaultKind kind, uint64_t one_in_value) {
    one_in[static_cast<size_t>(kind)] = one_in_value;
  }
};

// A uniformly chosen octave [2^b, 2^(b+1)) intersected with [lo, hi], then a
// uniform value in it: log-uniform to within a factor of two, integers only
// (no libm, so every compiler and library draws the same).
// REQUIRES: 1 <= lo <= hi < 2^62.
uint64_t LogUniform(sim::ChoiceTape* rng, uint64_t lo, uint64_t hi);

// The swarm draw: each kind on with probability 1/2 and, if on, a rate from
// LogUniform over RateRangeOf(kind); slow_io's maximum from LogUniform over
// 100 us .. 100 ms; fault points on with probability 1/2, activated 1 in
// 2..4, firing 1 in LogUniform(2, 1000).
FaultConfig DrawFaultConfig(sim::ChoiceTape* rng);

// For report options: "faults.<kind>" -> "off" or "1/<n>", plus
// "faults.slow_io_max_ns" and "faults.fault_points".
std::map<std::string, std::string> Describe(const FaultConfig& config);

}  // namespace shale::faults
