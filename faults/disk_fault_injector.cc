// Survive: eio_read/write/sync/open/rename/delete, enospc, fsync_drops_pages,
// fsync_marks_clean, short_read, slow_io. Detect only: bit_flip, sticky_unreadable_sector,
// misdirected_write. The full statement is at the top of
// disk_fault_injector.h.
#include "faults/disk_fault_injector.h"

#include <algorithm>
#include <cassert>

namespace shale::faults {
namespace {

using Op = FaultPolicy::Op;
constexpr uint64_t kSector = sim::kMediaSectorBytes;

uint64_t Fnv1a(const char* text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *text != '\0'; ++text) {
    h ^= static_cast<unsigned char>(*text);
    h *= 0x100000001b3ull;
  }
  return h;
}

Status Injected(FaultKind kind) { return Status::IOError("injected fault", FaultKindName(kind)); }

Status NoSpace() { return Status::NoSpace("injected fault", FaultKindName(FaultKind::kEnospc)); }

}  // namespace

DiskFaultInjector::DiskFaultInjector(const FaultConfig& config, sim::DiskContext* context)
    : config_(config), context_(context) {}

bool DiskFaultInjector::Fires(FaultKind kind) {
  if (!config_.enabled(kind)) return false;
  if (!context_->rng()->OneIn(config_.rate_one_in(kind))) return false;
  Count(kind);
  return true;
}

void TraceFault(sim::DiskContext* context, const std::string& kind, const std::string* path) {
  if (!context->tracing()) return;
  context->TraceEvent("fault t=" + std::to_string(context->NowNanos()) + " task '" +
                      context->CurrentTaskName() + "' " + kind +
                      (path != nullptr ? " " + *path : std::string()));
}

void DiskFaultInjector::Count(FaultKind kind) { CountAs(FaultKindName(kind)); }

void DiskFaultInjector::CountAs(const char* name) {
  ++counts_[name];
  TraceFault(context_, name, deciding_path_);
  context_->Fold(Fnv1a("fault.injected"));
  context_->Fold(Fnv1a(name));
}

void DiskFaultInjector::MaybeFail(FaultKind kind, const Status& status, Decision* d) {
  if (d->status.ok() && Fires(kind)) d->status = status;
}

void DiskFaultInjector::FailNoSpace(Decision* d) {
  CountAs(kDiskFullName);
  d->status = NoSpace();
}

void DiskFaultInjector::MaybeRunOutOfSpace(const Request& request, Decision* d) {
  if (!d->status.ok()) return;
  if (full_now_) return FailNoSpace(d);
  if (!Fires(FaultKind::kEnospc)) return;
  d->status = NoSpace();
  const bool data_write = request.op == Op::kWrite && request.has_range;
  const uint64_t unit = std::max<uint64_t>(request.alignment_bytes, 1);
  const uint64_t units = request.length_bytes / unit;
  if (data_write && units >= 2 && context_->rng()->OneIn(kShortWriteOneIn)) {
    d->applied_prefix_bytes = unit * (1 + context_->rng()->Uniform(units - 1));
    CountAs(kShortWriteName);
  }
  if (context_->rng()->OneIn(kStaysFullOneIn)) {
    full_calls_left_ = LogUniform(context_->rng(), 1, kStaysFullCallsMax);
  }
}

DiskFaultInjector::Decision DiskFaultInjector::Decide(const Request& request) {
  deciding_path_ = request.path;
  full_now_ = full_calls_left_ > 0;
  if (full_now_) full_calls_left_--;
  Decision d;
  DecideFailure(request, &d);
  if (d.status.ok() && request.op == Op::kRead) DecideRead(request, &d);
  if (d.status.ok() && request.op == Op::kWrite) DecideWrite(request, &d);
  if (Fires(FaultKind::kSlowIo)) {
    d.extra_latency_ns =
        1 + context_->rng()->Uniform(std::max<uint64_t>(config_.slow_io_max_ns, 1));
  }
  deciding_path_ = nullptr;  // the request's path may not outlive the call
  return d;
}

void DiskFaultInjector::DecideFailure(const Request& request, Decision* d) {
  switch (request.op) {
    case Op::kOpen:
      MaybeFail(FaultKind::kEioOpen, Injected(FaultKind::kEioOpen), d);
      break;
    case Op::kCreate:
      MaybeFail(FaultKind::kEioOpen, Injected(FaultKind::kEioOpen), d);
      MaybeRunOutOfSpace(request, d);
      break;
    case Op::kRead:
      MaybeFail(FaultKind::kEioRead, Injected(FaultKind::kEioRead), d);
      break;
    case Op::kWrite:
      MaybeFail(FaultKind::kEioWrite, Injected(FaultKind::kEioWrite), d);
      MaybeRunOutOfSpace(request, d);
      break;
    case Op::kSync:
      MaybeFail(FaultKind::kEioSync, Injected(FaultKind::kEioSync), d);
      // Delayed allocation: writing the dirty pages back needs space.
      if (d->status.ok() && full_now_) FailNoSpace(d);
      MaybeFail(FaultKind::kEnospc, NoSpace(), d);
      if (!d->status.ok()) d->failed_sync = sim::FailedSync::kKeepsPages;
      MaybeFail(FaultKind::kFsyncDropsPages, Injected(FaultKind::kFsyncDropsPages), d);
      if (d->status.ok()) {
        MaybeFail(FaultKind::kFsyncMarksClean, Injected(FaultKind::kFsyncMarksClean), d);
        if (!d->status.ok()) d->failed_sync = sim::FailedSync::kMarksClean;
      }
      break;
    case Op::kSyncDir:
      MaybeFail(FaultKind::kEioSync, Injected(FaultKind::kEioSync), d);
      break;
    case Op::kRename:
      MaybeFail(FaultKind::kEioRename, Injected(FaultKind::kEioRename), d);
      break;
    case Op::kDelete:
      MaybeFail(FaultKind::kEioDelete, Injected(FaultKind::kEioDelete), d);
      break;
  }
}

void DiskFaultInjector::DecideRead(const Request& request, Decision* d) {
  if (!request.has_range || request.length_bytes == 0) return;
  // Durable bytes the read would return: [offset, durable_end).
  const uint64_t durable_end = std::min(
      {request.offset + request.length_bytes, request.durable_size_bytes, request.file_size_bytes});
  if (request.offset < durable_end && Fires(FaultKind::kStickyUnreadableSector)) {
    const uint64_t first = request.offset / kSector;
    const uint64_t last = (durable_end - 1) / kSector;
    d->unreadable_sector = first + context_->rng()->Uniform(last - first + 1);
    return;  // the read fails; nothing else to decide
  }
  const uint64_t end = std::min(request.offset + request.length_bytes, request.file_size_bytes);
  if (request.offset + 2 <= end && Fires(FaultKind::kShortRead)) {
    d->short_reads = 1 + static_cast<uint32_t>(context_->rng()->Uniform(3));
  }
}

void DiskFaultInjector::DecideWrite(const Request& request, Decision* d) {
  if (!request.has_range || request.length_bytes == 0) return;
  if (!Fires(FaultKind::kMisdirectedWrite)) return;
  // Another sector of the file (as it will be after the write), same offset
  // within the sector; just past it if the file has only one sector.
  const uint64_t end = std::max(request.file_size_bytes, request.offset + request.length_bytes);
  const uint64_t sectors = (end + kSector - 1) / kSector;
  const uint64_t own = request.offset / kSector;
  uint64_t target = own + 1;
  if (sectors > 1) {
    target = context_->rng()->Uniform(sectors - 1);
    if (target >= own) ++target;
  }
  d->misdirect_to_sector = target;
}

void DiskFaultInjector::AfterCrash(sim::DiskMedia* disk) {
  if (!config_.enabled(FaultKind::kBitFlip)) return;
  for (const sim::DiskMedia::DurableFile& file : disk->DurableFiles()) {
    if (file.size_bytes == 0 || !Fires(FaultKind::kBitFlip)) continue;
    const uint64_t offset = context_->rng()->Uniform(file.size_bytes);
    const int bit = static_cast<int>(context_->rng()->Uniform(8));
    const Status s = disk->CorruptDurable(file.path, offset, bit);
    assert(s.ok());  // the file is durable and offset < its size
    s.PermitUncheckedError();
  }
}

Status DiskFaultInjector::FlipRandomBit(sim::DiskMedia* disk, const std::string& path,
                                        uint64_t limit_bytes) {
  return FlipBitIn(disk, path, {ByteRange{0, limit_bytes}});
}

Status DiskFaultInjector::FlipBitIn(sim::DiskMedia* disk, const std::string& path,
                                    const std::vector<ByteRange>& ranges, uint64_t* flipped_at) {
  std::string data;
  Status s = disk->ReadDurable(path, &data);
  if (!s.ok()) return s;
  const auto clipped = [&data](const ByteRange& r) {
    return ByteRange{std::min<uint64_t>(r.begin, data.size()),
                     std::min<uint64_t>(r.end, data.size())};
  };
  uint64_t total = 0;
  for (const ByteRange& r : ranges) total += clipped(r).size();
  if (total == 0) return Status::InvalidArgument("FlipBitIn: empty durable range", path);
  uint64_t offset = context_->rng()->Uniform(total);
  for (const ByteRange& r : ranges) {
    const ByteRange c = clipped(r);
    if (offset < c.size()) {
      offset += c.begin;
      break;
    }
    offset -= c.size();
  }
  const int bit = static_cast<int>(context_->rng()->Uniform(8));
  s = disk->CorruptDurable(path, offset, bit);
  deciding_path_ = &path;
  if (s.ok()) Count(FaultKind::kBitFlip);
  if (s.ok() && flipped_at != nullptr) *flipped_at = offset;
  deciding_path_ = nullptr;
  return s;
}

}  // namespace shale::faults
