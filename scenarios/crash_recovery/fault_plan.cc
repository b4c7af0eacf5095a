#include "scenarios/crash_recovery/fault_plan.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "faults/fault_points.h"
#include "wal/log_format.h"
#include "wal/log_reader.h"

namespace shale::scenario {

namespace {

using faults::FaultKind;

constexpr uint64_t kMetadataFlipOneIn = 8;

constexpr FaultKind kDetectKinds[] = {FaultKind::kBitFlip, FaultKind::kStickyUnreadableSector,
                                      FaultKind::kMisdirectedWrite};

bool EndsWith(const std::string& path, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return path.size() > n && path.compare(path.size() - n, n, suffix) == 0;
}
bool IsTableFile(const std::string& path) { return EndsWith(path, ".sst"); }
bool IsManifestFile(const std::string& path) {
  return path.find("/MANIFEST-") != std::string::npos;
}
bool IsCurrentFile(const std::string& path) { return EndsWith(path, "/CURRENT"); }

// The bytes of path a detect-class flip may hit: those whose damage the
// engine can always tell from what a crash leaves (0: none).
//  * tables and logs: all (every record is checksummed);
//  * a MANIFEST: those before its last whole fragment (see
//    LastWholeFragmentStart);
//  * CURRENT: the "MANIFEST-" prefix of the name it holds. It carries no
//    checksum (as in RocksDB), so a flip in the number could name another
//    MANIFEST that still exists; one in the prefix names none.
uint64_t DetectableBytes(sim::DiskMedia* disk, const std::string& path) {
  if (IsCurrentFile(path)) return std::char_traits<char>::length("MANIFEST-");
  if (!IsManifestFile(path)) return UINT64_MAX;
  std::string contents;
  return disk->ReadDurable(path, &contents).ok() ? LastWholeFragmentStart(contents) : 0;
}

uint64_t Sum(const faults::FaultCounts& counts) {
  uint64_t total = 0;
  for (const auto& [name, n] : counts) total += n;
  return total;
}

}  // namespace

bool WalDamageReported(WALRecoveryMode mode) {
  return mode == WALRecoveryMode::kAbsoluteConsistency;
}

bool IsLogFile(const std::string& path) { return EndsWith(path, ".log"); }

bool NamesAnyPath(const Status& s, const std::set<std::string>& paths) {
  const std::string text = s.ToString();
  return std::any_of(paths.begin(), paths.end(),
                     [&text](const std::string& p) { return text.find(p) != std::string::npos; });
}

uint64_t LastWholeFragmentStart(const std::string& contents) {
  uint64_t pos = 0, last = 0;
  while (pos + log::kHeaderSize <= contents.size()) {
    const uint64_t left_in_block = log::kBlockSize - pos % log::kBlockSize;
    if (left_in_block < log::kHeaderSize) {
      pos += left_in_block;
      continue;
    }
    const uint64_t bytes = log::WholeFragmentBytesAt(contents, pos);
    if (bytes == 0) break;  // the writer never appends after a failed write
    last = pos;
    pos += bytes;
  }
  return last;
}

std::set<std::string> LogsTornByKill(const Status& s, const std::set<std::string>& killed_logs) {
  // The log reader's words (wal/log_reader.cc).
  if (s.ToString().find("truncated record at end of log") == std::string::npos) return {};
  return killed_logs;
}

Refusal ClassifyRefusal(const Status& s, WALRecoveryMode mode,
                        const std::set<std::string>& injected,
                        const std::set<std::string>& torn_logs) {
  if (!s.IsCorruption() || mode == WALRecoveryMode::kPointInTimeRecovery) return Refusal::kNone;
  // Only a log's damage is the recovery mode's to refuse.
  std::set<std::string> injected_logs;
  std::copy_if(injected.begin(), injected.end(), std::inserter(injected_logs, injected_logs.end()),
               IsLogFile);
  const bool torn = NamesAnyPath(s, torn_logs);
  if (NamesAnyPath(s, injected_logs) || (torn && !injected_logs.empty()))
    return Refusal::kStopsAtInjectedDamage;
  return torn ? Refusal::kReopenPointInTime : Refusal::kNone;
}

FaultPlan::FaultPlan(sim::Simulation* sim, bool enabled, bool detect)
    : enabled_(enabled), sim_(sim) {
  if (!enabled_) {
    survive_ = std::make_unique<faults::DiskFaultInjector>(survive_config_, sim);
    detect_ = std::make_unique<faults::DiskFaultInjector>(detect_config_, sim);
    return;
  }
  const faults::FaultConfig drawn = faults::DrawFaultConfig(sim->rng());
  survive_config_ = drawn;
  for (FaultKind kind : kDetectKinds) {
    survive_config_.set(kind, 0);
    detect_config_.set(kind, detect ? drawn.rate_one_in(kind) : 0);
  }
  survive_ = std::make_unique<faults::DiskFaultInjector>(survive_config_, sim);
  detect_ = std::make_unique<faults::DiskFaultInjector>(detect_config_, sim);
  if (detect_config_.enabled(FaultKind::kBitFlip)) crash_flip_one_in_ = 1 + sim->rng()->Uniform(8);
  sim->set_fault_point_hook(
      [this, hook = faults::MakeFaultPointHook(survive_config_, sim, &point_counts_)](
          const char* name) { return !paused_ && hook(name); });
}

faults::FaultPolicy::Decision FaultPlan::Decide(const Request& request) {
  if (!enabled_ || paused_) return Decision();
  Decision d = survive_->Decide(request);
  const bool lost_pages =
      request.op == Op::kSync && !d.status.ok() && d.failed_sync != sim::FailedSync::kKeepsPages;
  if (lost_pages && IsLogFile(*request.path)) lossy_sync_logs_.insert(*request.path);
  if (d.status.ok() && IsTableFile(*request.path)) {
    const Decision media = detect_->Decide(request);
    if (media.unreadable_sector.has_value() || media.misdirect_to_sector.has_value()) {
      damaged_paths_.insert(*request.path);
    }
    const uint64_t extra = d.extra_latency_ns;
    const uint32_t short_reads = d.short_reads;
    d = media;
    d.extra_latency_ns += extra;
    d.short_reads += short_reads;
  }
  return d;
}

void FaultPlan::AfterCrash(sim::DiskMedia* disk) {
  if (!enabled_ || crash_flip_one_in_ == 0 || !sim_->rng()->OneIn(crash_flip_one_in_)) return;
  // One bit of one durable file: a table file, a MANIFEST, CURRENT, or a
  // WAL when allowed (see the header), where the engine can detect it
  // (DetectableBytes). Crash-time faults get a per-crash rate, not a
  // per-op one.
  // Damage to the live MANIFEST or CURRENT ends the run (every Open fails
  // on it), so one flip in kMetadataFlipOneIn goes there.
  const bool metadata = sim_->rng()->OneIn(kMetadataFlipOneIn);
  std::vector<std::string> eligible;
  for (const sim::DiskMedia::DurableFile& file : disk->DurableFiles()) {
    const bool kind_ok =
        metadata ? IsManifestFile(file.path) || IsCurrentFile(file.path)
                 : IsTableFile(file.path) || (wal_damage_allowed_ && IsLogFile(file.path));
    if (kind_ok && file.size_bytes > 0) eligible.push_back(file.path);
  }
  if (eligible.empty()) return;
  const std::string& path = eligible[sim_->rng()->Uniform(eligible.size())];
  const uint64_t limit_bytes = DetectableBytes(disk, path);
  if (limit_bytes == 0) return;
  if (detect_->FlipRandomBit(disk, path, limit_bytes).ok())
    damaged_paths_.insert(path);  // counted then
}

uint64_t FaultPlan::total() const { return Sum(counts()); }

uint64_t FaultPlan::page_loss_total() const {
  const faults::FaultCounts& survive = survive_->counts();
  const auto dropped = survive.find(faults::FaultKindName(FaultKind::kFsyncDropsPages));
  return dropped == survive.end() ? 0 : dropped->second;
}

uint64_t FaultPlan::error_total() const {
  // Called around every workload read: sums in place, no merged map.
  const std::string_view slow = faults::FaultKindName(FaultKind::kSlowIo);
  const std::string_view short_read = faults::FaultKindName(FaultKind::kShortRead);
  uint64_t total = 0;
  for (const faults::FaultCounts* counts :
       {&survive_->counts(), &detect_->counts(), &point_counts_}) {
    for (const auto& [name, n] : *counts) {
      if (name != slow && name != short_read) total += n;
    }
  }
  return total;
}

faults::FaultCounts FaultPlan::counts() const {
  faults::FaultCounts all = survive_->counts();
  for (const auto& [name, n] : detect_->counts()) all[name] += n;
  for (const auto& [name, n] : point_counts_) all[name] += n;
  return all;
}

std::map<std::string, std::string> FaultPlan::Describe() const {
  std::map<std::string, std::string> out;
  if (!enabled_) return out;
  for (const auto& [k, v] : faults::Describe(survive_config_)) out["fault." + k] = v;
  for (const auto& [k, v] : faults::Describe(detect_config_)) {
    if (v != "0" && v != "off") out["fault." + k] = v;
  }
  return out;
}

}  // namespace shale::scenario
