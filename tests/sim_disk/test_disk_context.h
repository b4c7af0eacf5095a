// Test helpers for SimDisk: a trivial DiskContext (no scheduler: switch
// points are counted, delays summed, the PRNG seeded, folds recorded) and a
// failed sync through the disk's media interface.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/disk/sim_disk.h"
#include "sim/disk_context.h"
#include "util/random.h"

namespace shale_test {

class TestDiskContext final : public shale::sim::DiskContext {
 public:
  explicit TestDiskContext(uint64_t seed = 7) : rng_(seed) {}
  void SwitchPoint(const char* what) override {
    (void)what;
    ++switch_points;
  }
  void Delay(uint64_t ns) override { delay_ns += ns; }
  // Time advances only by delays.
  uint64_t NowNanos() const override { return delay_ns; }
  shale::sim::ChoiceTape* rng() override { return &rng_; }
  void Fold(uint64_t value) override { folds.push_back(value); }

  uint64_t switch_points = 0;
  uint64_t delay_ns = 0;
  std::vector<uint64_t> folds;

 private:
  shale::sim::ChoiceTape rng_;
};

// survive_one_in for a power loss that keeps no unsynced sector write.
inline constexpr uint64_t kNeverSurvives = uint64_t{1} << 62;

// The page-cache contents of path, or "<missing>".
inline std::string Visible(const shale::sim::SimDisk& disk, const std::string& path) {
  std::string data;
  const shale::Status s = disk.ReadVisible(path, &data);
  return s.ok() ? data : "<missing>";
}

// A Sync of w that fails (as a fault decorator makes one fail) and does
// fate to the dirty pages. REQUIRES: w is a SimDisk (MediaFile) handle.
inline shale::Status FailSync(shale::WritableFile* w,
                              shale::sim::FailedSync fate = shale::sim::FailedSync::kDropsPages) {
  auto* media = dynamic_cast<shale::sim::MediaFile*>(w);
  if (media == nullptr) return shale::Status::InvalidArgument("not a MediaFile");
  return media->FailSync(shale::Status::IOError("injected"), fate);
}

}  // namespace shale_test
