#include "scenarios/crash_recovery/flash_under_test.h"

#include <algorithm>

#include "faults/disk_fault_injector.h"
#include "flash/flash_format.h"
#include "scenarios/crash_recovery/fault_plan.h"
#include "scenarios/crash_recovery/flash_figures.h"

namespace shale::scenario {

// Forwards every call to the mounted instance; IOError while none is.
// Every flash file's handles are tracked (SyncedSizes).
class FlashUnderTest::Mounted final : public FileSystem {
 public:
  Mounted(SyncedSizes* synced, const std::function<void(const std::string&)>* deleted)
      : synced_(synced), deleted_(deleted) {}
  void set_target(FileSystem* target) { target_ = target; }

  Status NewSequentialFile(const std::string& p, const FileOptions& o,
                           std::unique_ptr<SequentialFile>* r) override {
    return target_ ? target_->NewSequentialFile(p, o, r) : Unmounted(p);
  }
  Status NewRandomAccessFile(const std::string& p, const FileOptions& o,
                             std::unique_ptr<RandomAccessFile>* r) override {
    return target_ ? target_->NewRandomAccessFile(p, o, r) : Unmounted(p);
  }
  Status NewWritableFile(const std::string& p, const FileOptions& o,
                         std::unique_ptr<WritableFile>* r) override {
    if (target_ == nullptr) return Unmounted(p);
    Status s = target_->NewWritableFile(p, o, r);
    if (s.ok() && IsFlashFileName(p)) *r = synced_->Track(p, /*created=*/true, 0, std::move(*r));
    return s;
  }
  Status ReopenWritableFile(const std::string& p, const FileOptions& o,
                            std::unique_ptr<WritableFile>* r) override {
    if (target_ == nullptr) return Unmounted(p);
    Status s = target_->ReopenWritableFile(p, o, r);
    if (s.ok() && IsFlashFileName(p)) {
      const uint64_t size = (*r)->GetFileSize();
      *r = synced_->Track(p, /*created=*/false, size, std::move(*r));
    }
    return s;
  }
  Status FileExists(const std::string& p) override {
    return target_ ? target_->FileExists(p) : Unmounted(p);
  }
  Status GetChildren(const std::string& d, std::vector<std::string>* n) override {
    return target_ ? target_->GetChildren(d, n) : Unmounted(d);
  }
  Status GetFileSize(const std::string& p, uint64_t* s) override {
    return target_ ? target_->GetFileSize(p, s) : Unmounted(p);
  }
  Status DeleteFile(const std::string& p) override {
    if (target_ == nullptr) return Unmounted(p);
    Status s = target_->DeleteFile(p);
    if (s.ok()) synced_->Deleted(p);
    if (s.ok() && *deleted_) (*deleted_)(p);
    return s;
  }
  Status RenameFile(const std::string& s, const std::string& d) override {
    return target_ ? target_->RenameFile(s, d) : Unmounted(s);
  }
  Status CreateDirIfMissing(const std::string& d) override {
    return target_ ? target_->CreateDirIfMissing(d) : Unmounted(d);
  }
  Status DeleteDir(const std::string& d) override {
    return target_ ? target_->DeleteDir(d) : Unmounted(d);
  }
  Status SyncDir(const std::string& d) override {
    return target_ ? target_->SyncDir(d) : Unmounted(d);
  }
  Status LockFile(const std::string& p, std::unique_ptr<FileLock>* l) override {
    return target_ ? target_->LockFile(p, l) : Unmounted(p);
  }
  Status UnlockFile(std::unique_ptr<FileLock> l) override {
    return target_ ? target_->UnlockFile(std::move(l)) : Unmounted("");
  }

 private:
  static Status Unmounted(const std::string& path) {
    return Status::IOError("flash: no file system mounted", path);
  }
  SyncedSizes* const synced_;
  const std::function<void(const std::string&)>* const deleted_;
  FileSystem* target_ = nullptr;
};

namespace {

// Chunks on the device, whatever the parallel units: room for every live
// file (each takes at least one chunk) and the WAL's padding.
constexpr uint32_t kTargetChunks = 512;

FlashGeometry DrawGeometry(sim::ChoiceTape* rng) {
  FlashGeometry g;
  g.groups = 1 + static_cast<uint32_t>(rng->Uniform(2));
  g.parallel_units_per_group = 1u << rng->Uniform(3);
  g.chunks_per_unit = (kTargetChunks + g.parallel_units() - 1) / g.parallel_units();
  g.ws_min = 1u << rng->Uniform(3);
  g.ws_opt = g.ws_min << rng->Uniform(3);
  g.sectors_per_chunk = g.ws_opt * (4u << rng->Uniform(3));
  const uint32_t mw_choices[] = {0, g.ws_min, g.ws_opt, 2 * g.ws_opt};
  g.mw_cunits = mw_choices[rng->Uniform(4)];
  g.oob_bytes = rng->OneIn(2) ? 32 : 64;
  g.max_open_chunks = 8 + static_cast<uint32_t>(rng->Uniform(9));
  // Some devices wear out within a run: their chunks go OFFLINE at their
  // second or fourth reset. Not those of small chunks, which a run resets
  // so often that the device would run out of them.
  const uint32_t resets_choices[] = {1, 3, 40, 3000};
  g.max_resets = resets_choices[rng->Uniform(4)];
  if (g.sectors_per_chunk < 32) g.max_resets = std::max(g.max_resets, 40u);
  g.zeros_past_write_pointer = rng->OneIn(2);
  return g;
}

sim::FlashTiming DrawTiming(sim::ChoiceTape* rng) {
  sim::FlashTiming t;
  t.read_ns = 80'000 + rng->Uniform(40'001);
  t.program_ns = 1'000'000 + rng->Uniform(1'000'001);
  t.erase_ns = 3'000'000 + rng->Uniform(2'000'001);
  t.channel_bytes_per_us = 100 + rng->Uniform(301);
  return t;
}

void DescribeDevice(const sim::SimFlashDeviceOptions& o,
                    std::map<std::string, std::string>* described) {
  const FlashGeometry& g = o.geometry;
  auto& m = *described;
  m["disk"] = "open-channel";
  m["flash.geometry"] = std::to_string(g.groups) + " groups x " +
                        std::to_string(g.parallel_units_per_group) + " units x " +
                        std::to_string(g.chunks_per_unit) + " chunks x " +
                        std::to_string(g.sectors_per_chunk) + " sectors";
  m["flash.ws_min"] = std::to_string(g.ws_min);
  m["flash.ws_opt"] = std::to_string(g.ws_opt);
  m["flash.mw_cunits"] = std::to_string(g.mw_cunits);
  m["flash.oob_bytes"] = std::to_string(g.oob_bytes);
  m["flash.max_open_chunks"] = std::to_string(g.max_open_chunks);
  m["flash.max_resets"] = std::to_string(g.max_resets);
  m["flash.read_past_write_pointer"] = g.zeros_past_write_pointer ? "zeros" : "error";
  m["flash.factory_bad_chunks"] = std::to_string(o.factory_bad_chunks.size());
  m["flash.program_us"] = std::to_string(o.timing.program_ns / 1000);
}

}  // namespace

FlashUnderTest::FlashUnderTest(sim::DiskContext* context, FileSystem* small_files,
                               uint64_t planted_bugs, std::map<std::string, std::string>* described)
    : context_(context),
      small_files_(small_files),
      mounted_(std::make_unique<Mounted>(&synced_, &delete_sink_)) {
  sim::ChoiceTape& rng = *context->rng();
  sim::SimFlashDeviceOptions o;
  o.geometry = DrawGeometry(&rng);
  o.timing = DrawTiming(&rng);
  std::set<uint32_t> bad;
  const uint64_t bad_count = rng.Uniform(o.geometry.chunks() / 32 + 1);
  for (uint64_t i = 0; i < bad_count; i++) {
    bad.insert(static_cast<uint32_t>(rng.Uniform(o.geometry.chunks())));
  }
  o.factory_bad_chunks.assign(bad.begin(), bad.end());
  DescribeDevice(o, described);
  device_ = std::make_unique<sim::SimFlashDevice>(context, o);
  fs_options_.owner_id = 1;
  fs_options_.planted_bugs = planted_bugs;
  fs_options_.read_cache_bytes = rng.OneIn(2) ? 0 : uint64_t{64} << 10;
  (*described)["flash.read_cache_bytes"] = std::to_string(fs_options_.read_cache_bytes);
  fs_options_.buffer_across_flush = rng.OneIn(2);
  (*described)["flash.buffer_across_flush"] = fs_options_.buffer_across_flush ? "true" : "false";
}

FlashUnderTest::~FlashUnderTest() {
  // Instances belong to the simulation that made them (their locks are
  // its): never destroyed outside it (see Abandon).
  (void)instance_.release();
  for (auto& stopped : stopped_) (void)stopped.release();
}

FileSystem* FlashUnderTest::fs() { return mounted_.get(); }

Status FlashUnderTest::Mount(Runtime* runtime) {
  if (instance_ != nullptr) return Status::OK();
  Status s = OpenFlashFileSystem(device_.get(), small_files_, runtime, fs_options_, &instance_);
  if (!s.ok()) return s;
  mounted_->set_target(instance_.get());
  for (const SyncedSizes::Loss& loss : synced_.Check(instance_.get())) {
    if (loss_sink_) loss_sink_(loss);
  }
  return s;
}

void FlashUnderTest::Abandon() {
  mounted_->set_target(nullptr);
  power_lost_ = false;
  lost_at_abandon_.clear();
  if (instance_ == nullptr) return;
  for (std::string& path : instance_->FilesWithUnprogrammedData()) {
    lost_at_abandon_.insert(std::move(path));
  }
  Accumulate(instance_->final_stats());
  (void)instance_.release();  // died with the process
}

void FlashUnderTest::Shutdown() {
  if (instance_ == nullptr) return;
  instance_->Shutdown();
  Accumulate(instance_->final_stats());
  mounted_->set_target(nullptr);
  stopped_.push_back(std::move(instance_));
}

void FlashUnderTest::PowerLoss() {
  device_->PowerLoss();
  power_lost_ = true;
}

std::set<std::string> FlashUnderTest::LastCrashLostPaths() const {
  std::set<std::string> paths = lost_at_abandon_;
  if (!power_lost_) return paths;
  const FlashGeometry& g = device_->geometry();
  for (const sim::FlashCacheLoss& loss : device_->last_power_loss()) {
    flash::SectorTag tag;
    flash::ChunkStart start;
    if (loss.first_sector_oob.size() != g.oob_bytes ||
        !flash::DecodeTag(loss.first_sector_data.data(), loss.first_sector_data.size(),
                          loss.first_sector_oob.data(), loss.first_sector_oob.size(), &tag) ||
        tag.kind != flash::SectorKind::kStart ||
        !flash::DecodeChunkStart(Slice(loss.first_sector_data.data(), tag.valid_bytes), &start)) {
      continue;  // not a chunk of the backend's
    }
    paths.insert(start.name);
  }
  return paths;
}

void FlashUnderTest::EnableMediaFaults(std::map<std::string, uint64_t>* faults_by_kind,
                                       std::function<void(const std::string& kind)> injected,
                                       std::function<void(const std::string& path)> damaged,
                                       std::function<bool()> paused) {
  faults_by_kind_ = faults_by_kind;
  damaged_sink_ = std::move(damaged);
  paused_ = std::move(paused);
  sim::ChoiceTape& rng = *context_->rng();
  const uint64_t program_one_in = 50u << rng.Uniform(5);
  const uint64_t erase_one_in = 10u << rng.Uniform(5);
  const uint64_t decay_one_in = kReadDecayOneIn << rng.Uniform(4);
  sim::DiskContext* context = context_;
  const std::function<bool()> is_paused = paused_;
  const auto fails = [context, faults_by_kind, injected, is_paused](uint64_t one_in,
                                                                    const char* kind) {
    if ((is_paused && is_paused()) || !context->rng()->OneIn(one_in)) return false;
    (*faults_by_kind)[kind]++;
    faults::TraceFault(context, kind, nullptr);
    if (injected) injected(kind);
    return true;
  };
  device_->set_fault_hooks(
      {[fails, program_one_in](uint32_t, uint32_t, uint32_t) {
         return fails(program_one_in, "flash_program_failure");
       },
       [fails, erase_one_in](uint32_t) { return fails(erase_one_in, "flash_erase_failure"); },
       [this, decay_one_in](uint32_t chunk, uint32_t sector, uint32_t count) {
         MaybeDecayOnRead(decay_one_in, chunk, sector, count);
       }});
}

void FlashUnderTest::set_violation_sink(std::function<void(const sim::FlashRuleViolation&)> sink) {
  device_->set_violation_sink(std::move(sink));
}

void FlashUnderTest::Accumulate(const FlashFsStats& stats) {
  totals_.bytes_appended += stats.bytes_appended;
  totals_.pad_sectors += stats.pad_sectors;
  totals_.chunks_sealed += stats.chunks_sealed;
  totals_.damaged_ranges_found += stats.damaged_ranges_found;
}

void FlashUnderTest::Describe(std::map<std::string, uint64_t>* observed) const {
  const FlashFsStats& all = totals_;
  const FlashGeometry& g = device_->geometry();
  uint64_t resets = 0;
  uint32_t max_wear = 0;
  uint64_t offline = 0;
  for (const ChunkDescriptor& d : device_->Peek()) {
    resets += d.wear;
    max_wear = std::max(max_wear, d.wear);
    if (d.state == ChunkState::kOffline) offline++;
  }
  namespace f = flash_figures;
  auto& o = *observed;
  o[f::kBytesWritten] = all.bytes_appended;
  o[f::kBytesProgrammed] = device_->stats().sectors_programmed * g.sector_bytes;
  o[f::kPadSectors] = all.pad_sectors;
  o[f::kChunksSealed] = all.chunks_sealed;
  o[f::kResets] = resets;
  o[f::kChunks] = g.chunks();
  o[f::kMaxWear] = max_wear;
  o[f::kChunksOffline] = offline;
  o[f::kTornUnits] = device_->stats().torn_units;
  o[f::kDamagedRanges] = all.damaged_ranges_found;
}

}  // namespace shale::scenario
