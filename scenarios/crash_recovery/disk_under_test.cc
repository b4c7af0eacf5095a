#include "scenarios/crash_recovery/disk_under_test.h"

namespace shale::scenario {

namespace {

sim::WindowsDiskOptions DrawWindows(sim::ChoiceTape* tape,
                                    std::map<std::string, std::string>* described) {
  sim::ChoiceTape& rng = *tape;
  sim::WindowsDiskOptions o;
  o.sector_bytes = rng.OneIn(2) ? 512 : 4096;
  o.posix_delete = rng.OneIn(4);
  (*described)["disk"] = "windows";
  (*described)["windows.sector_bytes"] = std::to_string(o.sector_bytes);
  (*described)["windows.posix_delete"] = o.posix_delete ? "true" : "false";
  return o;
}

}  // namespace

DiskUnderTest::DiskUnderTest(DiskModel model, sim::DiskContext* context,
                             const sim::LatencyProfile& latency, uint64_t planted_bugs,
                             std::map<std::string, std::string>* described)
    : base_(std::make_unique<sim::SimDisk>(context, latency)) {
  if (model == DiskModel::kWindows) {
    windows_ = std::make_unique<sim::WindowsDisk>(base_.get(), context,
                                                  DrawWindows(context->rng(), described));
  }
  FileSystem* disk = windows_ != nullptr ? static_cast<FileSystem*>(windows_.get()) : base_.get();
  faulty_ = std::make_unique<faults::FaultInjectingFs>(disk, context);
  if (model == DiskModel::kOpenChannel) {
    flash_ = std::make_unique<FlashUnderTest>(context, faulty_.get(), planted_bugs, described);
  }
}

sim::DiskMedia* DiskUnderTest::media() {
  return windows_ != nullptr ? static_cast<sim::DiskMedia*>(windows_.get()) : base_.get();
}

void DiskUnderTest::ProcessCrash() {
  if (flash_ != nullptr) flash_->Abandon();
  if (windows_ != nullptr) return windows_->ProcessCrash();
  base_->ProcessCrash();
}

void DiskUnderTest::PowerLoss(uint64_t survive_one_in) {
  if (flash_ != nullptr) {
    flash_->Abandon();
    flash_->PowerLoss();
  }
  if (windows_ != nullptr) return windows_->PowerLoss(survive_one_in);
  base_->PowerLoss(survive_one_in);
}

void DrawFileOptions(DiskModel model, sim::ChoiceTape* tape, Options* options,
                     std::map<std::string, std::string>* described) {
  sim::ChoiceTape& rng = *tape;
  const bool direct = rng.OneIn(2);
  options->use_direct_reads = direct;
  options->use_direct_io_for_flush_and_compaction = direct;
  (*described)["direct_io_for_tables"] = direct ? "true" : "false";
  options->use_direct_io_for_wal = direct && rng.OneIn(2);
  (*described)["direct_io_for_wal"] = options->use_direct_io_for_wal ? "true" : "false";
  if (model != DiskModel::kWindows) return;
  options->share_delete_on_open = rng.OneIn(2);
  (*described)["share_delete_on_open"] = options->share_delete_on_open ? "true" : "false";
}

bool DiskUnderTest::NameVisible(const std::string& path) {
  if (flash_ != nullptr && IsFlashFileName(path)) return flash_->fs()->FileExists(path).ok();
  return base_->HasVisibleName(path);
}

}  // namespace shale::scenario
