// A flash backend on a simulated device, run inside a Simulation: the
// device, a SimDisk for the small files, and helpers to mount, crash and
// read back.
#pragma once

#include <memory>
#include <string>

#include "shale/env.h"
#include "shale/flash_file_system.h"
#include "sim/disk/sim_disk.h"
#include "sim/flash/sim_flash_device.h"
#include "sim/simulation.h"

namespace shale_test {

inline shale::FlashGeometry SmallGeometry() {
  shale::FlashGeometry g;
  g.groups = 2;
  g.parallel_units_per_group = 2;
  g.chunks_per_unit = 16;
  g.sectors_per_chunk = 16;
  g.sector_bytes = 4096;
  g.oob_bytes = 32;
  g.ws_min = 2;
  g.ws_opt = 4;
  g.mw_cunits = 4;
  g.max_open_chunks = 6;
  return g;
}

class FlashFixture {
 public:
  explicit FlashFixture(uint64_t seed = 1, const shale::FlashGeometry& geometry = SmallGeometry())
      : sim_(Options(seed)),
        disk_(&sim_, shale::sim::LatencyProfile::Zero()),
        device_(&sim_, DeviceOptions(geometry)) {}
  // The instance was made inside the simulation and cannot be destroyed
  // outside it (its locks are the simulation's): it is abandoned.
  ~FlashFixture() { (void)fs_.release(); }

  // Runs fn as the simulation's main task. The fixture's file system (if
  // mounted) is shut down when fn returns; call no method of it after.
  shale::Status Run(const std::function<void()>& fn) {
    return sim_.Run([&] {
      (void)disk_.CreateDirIfMissing("/db");
      fn();
      if (fs_ != nullptr) fs_->Shutdown();
    });
  }

  // Mounts a fresh instance (the previous one, if any, must be gone).
  shale::Status Mount(const shale::FlashFsOptions& options = {}) {
    return shale::OpenFlashFileSystem(&device_, &disk_, sim_.runtime(), options, &fs_);
  }
  // The process dies: its tasks end and its instance is abandoned (never
  // destroyed, as the crashed process's memory is gone).
  void ProcessCrash() {
    sim_.Crash();
    (void)fs_.release();
    disk_.ProcessCrash();
  }
  void PowerLoss() {
    ProcessCrash();
    device_.PowerLoss();
    disk_.PowerLoss(1);
  }

  shale::FlashFileSystem* fs() { return fs_.get(); }
  shale::sim::SimFlashDevice* device() { return &device_; }
  shale::sim::Simulation* sim() { return &sim_; }

 private:
  static shale::sim::SimulationOptions Options(uint64_t seed) {
    shale::sim::SimulationOptions o;
    o.seed = seed;
    return o;
  }
  static shale::sim::SimFlashDeviceOptions DeviceOptions(const shale::FlashGeometry& g) {
    shale::sim::SimFlashDeviceOptions o;
    o.geometry = g;
    return o;
  }

  shale::sim::Simulation sim_;
  shale::sim::SimDisk disk_;
  shale::sim::SimFlashDevice device_;
  std::unique_ptr<shale::FlashFileSystem> fs_;
};

// Writes data to path (new file), then Syncs if sync, then Closes.
inline shale::Status WriteFlashFile(shale::FileSystem* fs, const std::string& path,
                                    const std::string& data, bool sync) {
  std::unique_ptr<shale::WritableFile> f;
  shale::Status s = fs->NewWritableFile(path, shale::FileOptions(), &f);
  if (s.ok()) s = f->Append(data);
  if (s.ok() && sync) s = f->Sync();
  if (f != nullptr) {
    shale::Status c = f->Close();
    if (s.ok()) s = c;
  }
  return s;
}

// The whole file through a sequential reader, or "<error: ...>".
inline std::string ReadFlashFile(shale::FileSystem* fs, const std::string& path) {
  std::unique_ptr<shale::SequentialFile> f;
  shale::Status s = fs->NewSequentialFile(path, shale::FileOptions(), &f);
  if (!s.ok()) return "<error: " + s.ToString() + ">";
  std::string out;
  std::string scratch(10000, '\0');
  for (;;) {
    shale::Slice got;
    s = f->Read(scratch.size(), &got, scratch.data());
    if (!s.ok()) return "<error: " + s.ToString() + ">";
    if (got.empty()) return out;
    out.append(got.data(), got.size());
  }
}

// Deterministic bytes: n of them, from a seed.
inline std::string Pattern(size_t n, uint32_t seed) {
  std::string out(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    out[i] = static_cast<char>(x >> 16);
  }
  return out;
}

}  // namespace shale_test
