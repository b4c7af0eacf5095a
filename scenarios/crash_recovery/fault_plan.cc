#include "scenarios/crash_recovery/fault_plan.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "faults/fault_points.h"
#include "util/coding.h"
#include "util/crc32c.h"
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

// The injector's tag (faults/disk_fault_injector.cc, Env::InjectedFault):
// "injected fault: KIND".
constexpr std::string_view kTag = "injected fault: ";

bool IsKindChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// The kind the first tag in text names ("" if none).
std::string TagKind(const std::string& text) {
  const size_t at = text.find(kTag);
  if (at == std::string::npos) return "";
  size_t end = at + kTag.size();
  while (end < text.size() && IsKindChar(text[end])) end++;
  return text.substr(at + kTag.size(), end - at - kTag.size());
}

uint64_t Sum(const faults::FaultCounts& counts) {
  uint64_t total = 0;
  for (const auto& [name, n] : counts) total += n;
  return total;
}

std::string FaultKindPinName(FaultKind kind) {
  return std::string("fault.faults.") + faults::FaultKindName(kind);
}

}  // namespace

std::map<std::string, std::string> FaultKindPins() {
  std::map<std::string, std::string> pins;
  for (size_t i = 0; i < faults::kFaultKindCount; i++) {
    pins[FaultKindPinName(static_cast<FaultKind>(i))] = "off";
  }
  return pins;
}

std::set<FaultKind> FaultKindsPinnedOff(const std::map<std::string, std::string>& pins) {
  std::set<FaultKind> off;
  for (size_t i = 0; i < faults::kFaultKindCount; i++) {
    const auto kind = static_cast<FaultKind>(i);
    const auto it = pins.find(FaultKindPinName(kind));
    if (it != pins.end() && it->second == "off") off.insert(kind);
  }
  return off;
}

const char* ErrorProofName(ErrorProof proof) {
  switch (proof) {
    case ErrorProof::kNone:
      return "none";
    case ErrorProof::kInjectedFault:
      return "injected fault";
    case ErrorProof::kDamagedFile:
      return "damaged file";
  }
  return "none";
}

WalDamage WalDamageFor(WALRecoveryMode mode) {
  switch (mode) {
    case WALRecoveryMode::kAbsoluteConsistency:
    case WALRecoveryMode::kSkipAnyCorruptedRecords:
      return WalDamage::kAnyByte;
    case WALRecoveryMode::kTolerateCorruptedTailRecords:
      return WalDamage::kBeforeLastRecord;
    default:
      return WalDamage::kNone;
  }
}

bool IsLogFile(const std::string& path) { return EndsWith(path, ".log"); }
bool IsTableFile(const std::string& path) { return EndsWith(path, ".sst"); }

bool NamesAnyPath(const Status& s, const std::set<std::string>& paths) {
  const std::string text = s.ToString();
  return std::any_of(paths.begin(), paths.end(),
                     [&text](const std::string& p) { return text.find(p) != std::string::npos; });
}

std::vector<FragmentSpan> WholeFragments(const std::string& contents, bool with_padding) {
  std::vector<FragmentSpan> spans;
  uint64_t pos = 0;
  while (pos + log::kHeaderSize <= contents.size()) {
    const uint64_t left_in_block = log::kBlockSize - pos % log::kBlockSize;
    if (left_in_block < log::kHeaderSize) {
      pos += left_in_block;
      continue;
    }
    const uint64_t bytes = log::WholeFragmentBytesAt(contents, pos, with_padding);
    if (bytes == 0) break;  // the writer never appends after a failed write
    spans.push_back({pos, bytes});
    pos += bytes;
  }
  return spans;
}

uint64_t FirstSequenceFrom(const std::string& contents, uint64_t offset) {
  constexpr size_t kBatchHeaderBytes = 12;  // sequence (fixed64), count (fixed32)
  uint64_t after_last = 0;
  std::string header;  // the current record's first payload bytes
  for (const FragmentSpan& span : WholeFragments(contents, /*with_padding=*/true)) {
    const auto type = static_cast<uint8_t>(contents[span.offset + log::kHeaderSize - 1]);
    if (type == log::kPaddingType) continue;
    if (type == log::kFullType || type == log::kFirstType) header.clear();
    if (header.size() < kBatchHeaderBytes) {
      header.append(
          contents, span.offset + log::kHeaderSize,
          std::min<uint64_t>(span.bytes - log::kHeaderSize, kBatchHeaderBytes - header.size()));
    }
    if (type != log::kFullType && type != log::kLastType) continue;
    if (header.size() < kBatchHeaderBytes) continue;  // not a write batch
    const uint64_t sequence = DecodeFixed64(header.data());
    if (span.offset + span.bytes > offset) return sequence;
    after_last = sequence + DecodeFixed32(header.data() + 8);
  }
  return after_last;
}

SequenceRange SkippedByDamageAt(const std::string& contents, uint64_t offset) {
  const uint64_t next_block = (offset / log::kBlockSize + 1) * log::kBlockSize;
  uint64_t resume_at = contents.size();  // no record starts later: to the end
  for (const FragmentSpan& span : WholeFragments(contents, /*with_padding=*/true)) {
    const auto type = static_cast<uint8_t>(contents[span.offset + log::kHeaderSize - 1]);
    if (span.offset < next_block || (type != log::kFullType && type != log::kFirstType)) continue;
    resume_at = span.offset;
    break;
  }
  return SequenceRange{FirstSequenceFrom(contents, offset), FirstSequenceFrom(contents, resume_at)};
}

uint64_t LastWholeFragmentStart(const std::string& contents) {
  const std::vector<FragmentSpan> spans = WholeFragments(contents);
  return spans.empty() ? 0 : spans.back().offset;
}

namespace {

// RocksDB's record type for the SetCompressionType record that opens its
// WAL when wal_compression is on (db/log_format.h in its sources). The
// records after it are framed as ours, their payloads compressed.
constexpr uint8_t kRocksDbSetCompressionType = 9;

// contents, with a whole SetCompressionType record at its start read as a
// padding fragment (which readers skip between records), so that the rest
// reads as any log does.
Slice WithCompressionRecordAsPadding(const std::string& contents, std::string* padded) {
  if (contents.size() < log::kHeaderSize ||
      static_cast<uint8_t>(contents[6]) != kRocksDbSetCompressionType) {
    return Slice(contents);
  }
  const uint32_t length = static_cast<uint8_t>(contents[4]) |
                          (static_cast<uint32_t>(static_cast<uint8_t>(contents[5])) << 8);
  if (log::kHeaderSize + length > contents.size() ||
      crc32c::Unmask(DecodeFixed32(contents.data())) !=
          crc32c::Value(contents.data() + 6, 1 + length)) {
    return Slice(contents);
  }
  *padded = contents;
  (*padded)[6] = static_cast<char>(log::kPaddingType);
  EncodeFixed32(padded->data(), crc32c::Mask(crc32c::Value(padded->data() + 6, 1 + length)));
  return Slice(*padded);
}

}  // namespace

bool EndsInPartialRecord(const std::string& contents) {
  // The MANIFEST's reading: damage with no whole fragment after it is the
  // unfinished last record; anything whole after it is damage in the
  // middle, which a kill does not leave.
  log::ReplayResult result;
  std::string padded;  // Written only for a log that opens with that record.
  const Status s = log::ReplayLogWithDamagedTail(
      WithCompressionRecordAsPadding(contents, &padded), /*log_number=*/0,
      [](const Slice&) { return Status::OK(); }, &result);
  return s.ok() && result.stopped_at_damage;
}

std::vector<faults::ByteRange> WalFlipRanges(const std::string& contents) {
  const std::vector<FragmentSpan> spans = WholeFragments(contents);
  std::vector<faults::ByteRange> ranges;
  for (size_t i = 0; i + 1 < spans.size(); i++) {
    const uint64_t at = spans[i].offset;
    // The checksum, and the payload; never the length or the type.
    ranges.push_back({at, at + 4});
    if (spans[i].bytes > log::kHeaderSize)
      ranges.push_back({at + log::kHeaderSize, at + spans[i].bytes});
  }
  return ranges;
}

std::set<std::string> LogsTornByKill(const Status& s, const std::set<std::string>& killed_logs) {
  // The log reader's words (wal/log_reader.cc).
  if (s.ToString().find("truncated record at end of log") == std::string::npos) return {};
  return killed_logs;
}

std::set<std::string> LogsLeftUnclean(const std::vector<sim::SimDisk::SurvivingSector>& survivors,
                                      const std::vector<std::string>& holes) {
  using Fate = sim::SimDisk::SurvivingSector::Fate;
  std::set<std::string> unclean;
  for (const std::string& path : holes) {
    if (IsLogFile(path)) unclean.insert(path);
  }
  // The lowest torn sector of each file (by its first name).
  std::map<std::string, uint64_t> first_torn;
  for (const sim::SimDisk::SurvivingSector& s : survivors) {
    if (s.paths.empty() || s.fate != Fate::kTorn) continue;
    const auto [it, added] = first_torn.emplace(s.paths.front(), s.sector);
    if (!added) it->second = std::min(it->second, s.sector);
  }
  for (const sim::SimDisk::SurvivingSector& s : survivors) {
    if (s.paths.empty()) continue;
    const auto torn = first_torn.find(s.paths.front());
    const bool after_torn = torn != first_torn.end() && s.sector > torn->second;
    if (s.fate != Fate::kGarbage && !after_torn) continue;
    std::copy_if(s.paths.begin(), s.paths.end(), std::inserter(unclean, unclean.end()), IsLogFile);
  }
  return unclean;
}

Refusal ClassifyRefusal(const Status& s, WALRecoveryMode mode,
                        const std::set<std::string>& injected,
                        const std::set<std::string>& torn_logs) {
  // Point in time stops at damage and skip-any reads past it: neither may
  // refuse a log for it.
  if (!s.IsCorruption() || mode == WALRecoveryMode::kPointInTimeRecovery ||
      mode == WALRecoveryMode::kSkipAnyCorruptedRecords) {
    return Refusal::kNone;
  }
  // Only a log's damage is the recovery mode's to refuse.
  std::set<std::string> injected_logs;
  std::copy_if(injected.begin(), injected.end(), std::inserter(injected_logs, injected_logs.end()),
               IsLogFile);
  const bool torn = NamesAnyPath(s, torn_logs);
  if (NamesAnyPath(s, injected_logs) || (torn && !injected_logs.empty()))
    return Refusal::kStopsAtInjectedDamage;
  return torn ? Refusal::kReopenPointInTime : Refusal::kNone;
}

FaultPlan::FaultPlan(sim::Simulation* sim, bool enabled, bool detect,
                     const std::set<faults::FaultKind>& pinned_off)
    : enabled_(enabled), sim_(sim) {
  if (!enabled_) {
    survive_ = std::make_unique<faults::DiskFaultInjector>(survive_config_, sim);
    detect_ = std::make_unique<faults::DiskFaultInjector>(detect_config_, sim);
    return;
  }
  faults::FaultConfig drawn = faults::DrawFaultConfig(sim->rng());
  for (FaultKind kind : pinned_off) drawn.set(kind, 0);
  // Damage a table holds is for good (the engine refuses what reads it:
  // compactions fail, so writes stop after every reopen), so a damaged run
  // soon ends as detected. Half the runs damage nothing, so that the
  // faults the engine must survive reach every phase.
  const bool damage = detect && sim->rng()->OneIn(2);
  survive_config_ = drawn;
  for (FaultKind kind : kDetectKinds) {
    survive_config_.set(kind, 0);
    detect_config_.set(kind, damage ? drawn.rate_one_in(kind) : 0);
  }
  survive_ = std::make_unique<faults::DiskFaultInjector>(survive_config_, sim);
  detect_ = std::make_unique<faults::DiskFaultInjector>(detect_config_, sim);
  // Every damaging run flips bits at crashes: a crash-time flip is the one
  // that can land in a WAL recovery must replay. Without the bit_flip kind
  // drawn, only in WALs (a flipped table soon ends a run as detected).
  if (damage) crash_flip_one_in_ = 1 + sim->rng()->Uniform(8);
  crash_flips_logs_only_ = !detect_config_.enabled(FaultKind::kBitFlip);
  sim->set_fault_point_hook([this, hook = faults::MakeFaultPointHook(
                                       survive_config_, sim, &point_counts_)](const char* name) {
    if (paused_ || !hook(name)) return false;
    // Env::InjectedFault's tag names the point.
    injected_tags_.push_back({++clock_, name, "", false});
    return true;
  });
}

faults::FaultPolicy::Decision FaultPlan::Decide(const Request& request) {
  const uint64_t now = ++clock_;
  if (request.op == Op::kDelete) MarkDeleted(*request.path, now);
  if (!enabled_ || paused_) return Decision();
  Decision d = survive_->Decide(request);
  const bool lost_pages =
      request.op == Op::kSync && !d.status.ok() && d.failed_sync != sim::FailedSync::kKeepsPages;
  if (lost_pages && IsLogFile(*request.path)) lossy_sync_logs_.insert(*request.path);
  if (!d.status.ok()) {
    injected_tags_.push_back(
        {now, TagKind(d.status.ToString()), *request.path, request.op == Op::kCreate});
  }
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

void FaultPlan::AfterCrash(sim::DiskMedia* disk, const FlashDamage& flash_damage) {
  if (!enabled_ || crash_flip_one_in_ == 0 || !sim_->rng()->OneIn(crash_flip_one_in_)) return;
  // One bit of one durable file: a table file, a MANIFEST, CURRENT, or a
  // WAL when allowed (see the header), where the engine can detect it
  // (DetectableBytes, WalFlipRanges). Crash-time faults get a per-crash
  // rate, not a per-op one.
  // Damage to the live MANIFEST or CURRENT ends the run (every Open fails
  // on it), so one flip in kMetadataFlipOneIn goes there.
  const bool metadata = sim_->rng()->OneIn(kMetadataFlipOneIn) && !crash_flips_logs_only_;
  if (flash_damage && !metadata) {
    // The device reports a sector's damage to no one; the backend must.
    std::string path;
    if (flash_damage(&path)) damaged_paths_.insert(path);
    return;
  }
  const bool logs = wal_damage_ != WalDamage::kNone;
  std::vector<std::string> eligible;
  std::string live_log;  // the newest log (paths sort by file number)
  for (const sim::DiskMedia::DurableFile& file : disk->DurableFiles()) {
    if (file.size_bytes == 0) continue;
    const bool table = IsTableFile(file.path) && !crash_flips_logs_only_;
    const bool kind_ok = metadata ? IsManifestFile(file.path) || IsCurrentFile(file.path)
                                  : table || (logs && IsLogFile(file.path));
    if (kind_ok) eligible.push_back(file.path);
    if (!metadata && logs && IsLogFile(file.path)) live_log = std::max(live_log, file.path);
  }
  if (eligible.empty()) return;
  // Three in four flips a WAL may take aim at the live log, whose records the
  // next recovery replays (a random file is rarely it).
  const bool aim_live = !live_log.empty() && !sim_->rng()->OneIn(4);
  const std::string path = aim_live ? live_log : eligible[sim_->rng()->Uniform(eligible.size())];
  std::vector<faults::ByteRange> ranges = {{0, DetectableBytes(disk, path)}};
  std::string before;  // a log's contents before the flip
  if (IsLogFile(path) && !disk->ReadDurable(path, &before).ok()) return;
  if (IsLogFile(path) && wal_damage_ == WalDamage::kBeforeLastRecord) {
    ranges = WalFlipRanges(before);
  }
  uint64_t flipped_at = 0;
  if (!detect_->FlipBitIn(disk, path, ranges, &flipped_at).ok()) return;  // counted if done
  damaged_paths_.insert(path);
  if (!IsLogFile(path)) return;
  const uint64_t floor = FirstSequenceFrom(before, flipped_at);
  const auto [it, added] = log_damage_floor_.emplace(path, floor);
  if (!added) it->second = std::min(it->second, floor);
  log_flip_offsets_[path].push_back(flipped_at);
}

bool FaultPlan::FlipOffsets(const std::string& log, std::vector<uint64_t>* offsets) const {
  if (LogDamageFloor({log}) == 0) return false;
  const auto flipped = log_flip_offsets_.find(log);
  if (flipped != log_flip_offsets_.end()) *offsets = flipped->second;
  return true;
}

void FaultPlan::MarkDeleted(const std::string& path, uint64_t now) {
  if (damaged_paths_.count(path) != 0) deleted_at_[path] = now;
}

uint64_t FaultPlan::LogDamageFloor(const std::set<std::string>& logs) const {
  uint64_t floor = UINT64_MAX;
  for (const std::string& path : logs) {
    if (lossy_sync_logs_.count(path) != 0) return 0;
    const auto flipped = log_damage_floor_.find(path);
    if (flipped != log_damage_floor_.end()) floor = std::min(floor, flipped->second);
    if (flipped == log_damage_floor_.end() && damaged_paths_.count(path) != 0) return 0;
  }
  return floor;
}

bool FaultPlan::CarriesTagSince(const std::string& text, uint64_t mark) const {
  const auto since =
      std::upper_bound(injected_tags_.begin(), injected_tags_.end(), mark,
                       [](uint64_t m, const InjectedTag& tag) { return m < tag.clock; });
  for (auto tag = since; tag != injected_tags_.end(); ++tag) {
    if (tag->create && text.find(tag->path + "/") != std::string::npos) return true;
  }
  for (size_t at = text.find(kTag); at != std::string::npos; at = text.find(kTag, at + 1)) {
    const std::string kind = TagKind(text.substr(at));
    if (std::any_of(since, injected_tags_.end(),
                    [&kind](const InjectedTag& tag) { return tag.kind == kind; })) {
      return true;
    }
  }
  return false;
}

ErrorProof FaultPlan::Prove(const Status& s, uint64_t mark) const {
  const std::string text = s.ToString();
  if (CarriesTagSince(text, mark)) return ErrorProof::kInjectedFault;
  const bool media_error =
      s.IsCorruption() || (s.IsIOError() && !s.IsPathNotFound() && !s.IsNoSpace());
  if (!media_error) return ErrorProof::kNone;
  // Present now, or deleted since the mark (the engine may discard a
  // damaged output it failed on, after the error was made).
  const auto named_and_present = [&](const std::set<std::string>& paths) {
    return std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
      if (text.find(p) == std::string::npos) return false;
      const auto deleted = deleted_at_.find(p);
      return name_visible_(p) || (deleted != deleted_at_.end() && deleted->second > mark);
    });
  };
  if (named_and_present(damaged_paths_)) return ErrorProof::kDamagedFile;
  if (s.IsCorruption() && named_and_present(lossy_sync_logs_)) return ErrorProof::kDamagedFile;
  return ErrorProof::kNone;
}

uint64_t FaultPlan::total() const { return Sum(counts()); }

uint64_t FaultPlan::page_loss_total() const {
  const faults::FaultCounts& survive = survive_->counts();
  const auto dropped = survive.find(faults::FaultKindName(FaultKind::kFsyncDropsPages));
  return dropped == survive.end() ? 0 : dropped->second;
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
