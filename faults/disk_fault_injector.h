// What the engine must SURVIVE (every promise of scenarios/oracle/history.h
// kept):
//  * eio_read, eio_open, eio_rename, eio_delete: the call fails and had no
//    effect; the engine reports an error or retries, never returns wrong
//    data, and nothing acknowledged is lost.
//  * eio_write, enospc: that write (or create) failed with no effect; the
//    operation it served is indeterminate (it may or may not have happened)
//    but nothing acknowledged earlier is lost. An enospc on a data write
//    may be short: a prefix of the bytes landed (as POSIX writers that
//    loop on short write(2)s leave it), which the engine must never take
//    for a whole record.
//    A disk that stays full fails every write and create until its spell
//    ends, and every sync meanwhile; a sync's enospc is as eio_sync.
//  * eio_sync (dirty pages kept) and fsync_drops_pages (dirty pages dropped,
//    as Linux may): the sync failed, so nothing it would have covered may be
//    acknowledged as durable, and a later successful sync must not be taken
//    to cover the dropped tail (fsyncgate); writes acknowledged as durable
//    earlier survive. A failed SyncDir leaves names volatile.
//  * fsync_marks_clean (Linux >= 4.13): the sync failed and its dirty pages
//    were marked clean: reads still see them and a retried sync returns OK,
//    but they never reach the disk, so a power loss loses them. Nothing the
//    failed sync would have covered may be acknowledged as durable, even
//    after a successful retry.
//  * short_read: hidden by the backend (env.h); no observable effect.
//  * slow_io: latency only; no observable effect beyond timing.
// What the engine must only DETECT (report Corruption or IOError, or repair
// from redundancy; never return wrong data, never resurrect or invent keys):
//  * bit_flip: one bit of durable data silently changed.
//  * sticky_unreadable_sector: reads touching a sector fail forever.
//  * misdirected_write: a write silently landed at another offset of the same
//    file, overwriting (possibly durable) bytes there and leaving stale bytes
//    or zeros where it should have gone.
//
// DiskFaultInjector: a FaultPolicy (fault_injecting_fs.h) that injects the
// disk faults of a FaultConfig (swarm.h) at their rates, drawing from the DiskContext's PRNG
// in a fixed order (FaultKind order per operation; path order at a crash),
// folding every injected fault into the context's trace and counting it by
// kind name. Named engine fault points are in fault_points.h.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: borrows the context, which must outlive the injector; a
// FaultInjectingFs using it (set_policy) must not outlive it either.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "faults/fault_injecting_fs.h"
#include "faults/swarm.h"
#include "sim/disk/disk_media.h"
#include "sim/disk_context.h"

namespace shale::faults {

// Injected faults by kind name (FaultKindName, or "fault_point.<name>").
using FaultCounts = std::map<std::string, uint64_t>;

// When the run keeps an event trace, one line for an injected fault (never
// hashed): "fault t=<ns> task '<task>' <kind>[ <path>]"; path may be null.
void TraceFault(sim::DiskContext* context, const std::string& kind, const std::string* path);

// Bytes [begin, end) of a file.
struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end > begin ? end - begin : 0; }
};

class DiskFaultInjector final : public FaultPolicy {
 public:
  // counts() name of a call failed while the disk stays full after an
  // enospc (the enospc itself counts as enospc).
  static constexpr const char* kDiskFullName = "enospc_disk_full";
  // counts() name of an enospc on a data write that wrote a prefix first.
  static constexpr const char* kShortWriteName = "enospc_short_write";

  DiskFaultInjector(const FaultConfig& config, sim::DiskContext* context);

  // FaultPolicy: the per-operation faults (see swarm.h for which
  // kinds each operation is eligible for).
  Decision Decide(const Request& request) override;

  // bit_flip at a crash: call after the disk's ProcessCrash() or
  // PowerLoss(). Each durably named file (path order) with data gets one
  // flipped bit with the bit_flip rate. No draws if bit_flip is off.
  void AfterCrash(sim::DiskMedia* disk);

  // Flips one PRNG-chosen bit of path's durable data (of its first
  // limit_bytes, if fewer), whatever the config; counted as bit_flip.
  // Errors as DiskMedia::CorruptDurable; InvalidArgument if that range is
  // empty.
  Status FlipRandomBit(sim::DiskMedia* disk, const std::string& path,
                       uint64_t limit_bytes = UINT64_MAX);
  // The same, at a byte drawn uniformly from the union of ranges (each
  // clipped to the durable data). REQUIRES: ranges are disjoint.
  // InvalidArgument if the union is empty.
  // flipped_at, if given, is set to the byte's offset.
  Status FlipBitIn(sim::DiskMedia* disk, const std::string& path,
                   const std::vector<ByteRange>& ranges, uint64_t* flipped_at = nullptr);

  const FaultCounts& counts() const { return counts_; }
  const FaultConfig& config() const { return config_; }

 private:
  // Draws for kind if it is enabled; true if it fires (then counted).
  bool Fires(FaultKind kind);
  void Count(FaultKind kind);
  void CountAs(const char* name);
  // The path of the call being decided (for the trace), or null.
  const std::string* deciding_path_ = nullptr;
  // Sets d->status to status if d has not failed yet and kind fires.
  void MaybeFail(FaultKind kind, const Status& status, Decision* d);
  // A write or create while the disk is full fails; else enospc may fire.
  // Then 1 data write in kShortWriteOneIn of two units or more (bytes, or
  // a direct-I/O handle's alignment) is short (counted as kShortWriteName
  // too): 1..n-1 leading units land. And
  // 1 time in kStaysFullOneIn the disk stays full for the next
  // 1..kStaysFullCallsMax calls of any kind: writes, creates and syncs
  // among them fail, then space frees.
  void MaybeRunOutOfSpace(const Request& request, Decision* d);
  void FailNoSpace(Decision* d);  // counted as kDiskFullName
  static constexpr uint64_t kShortWriteOneIn = 2;
  static constexpr uint64_t kStaysFullOneIn = 4;
  static constexpr uint64_t kStaysFullCallsMax = 64;
  uint64_t full_calls_left_ = 0;
  bool full_now_ = false;  // the call being decided meets a full disk
  void DecideFailure(const Request& request, Decision* d);
  void DecideRead(const Request& request, Decision* d);
  void DecideWrite(const Request& request, Decision* d);

  const FaultConfig config_;
  sim::DiskContext* const context_;
  FaultCounts counts_;
};

}  // namespace shale::faults
