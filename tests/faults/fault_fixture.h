// Test helpers for the fault layer: a SimDisk on a trivial DiskContext with
// a durable "/db", worn by a FaultInjectingFs (fs) whose DiskFaultInjector
// is installed after setup (Arm). Calls through disk get no faults.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "faults/disk_fault_injector.h"
#include "faults/fault_injecting_fs.h"
#include "faults/swarm.h"
#include "sim/disk/sim_disk.h"
#include "sim_disk/test_disk_context.h"

namespace shale_test {

// A config with only `kind` on, at 1 in one_in.
inline shale::faults::FaultConfig Only(shale::faults::FaultKind kind, uint64_t one_in) {
  shale::faults::FaultConfig config;
  config.set(kind, one_in);
  if (kind == shale::faults::FaultKind::kSlowIo) config.slow_io_max_ns = 1'000'000;
  return config;
}

struct FaultFixture {
  explicit FaultFixture(const shale::faults::FaultConfig& config, uint64_t seed = 7)
      : ctx(seed),
        disk(&ctx, shale::sim::LatencyProfile::Zero()),
        fs(&disk, &ctx),
        injector(config, &ctx) {
    REQUIRE(disk.CreateDirIfMissing("/db").ok());
    REQUIRE(disk.SyncDir("/").ok());
  }

  // Creates path holding data, synced, under a synced name (no faults yet
  // if called before Arm()).
  void WriteDurable(const std::string& path, const std::string& data) {
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fs.NewWritableFile(path, shale::FileOptions(), &w).ok());
    REQUIRE(w->Append(data).ok());
    REQUIRE(w->Sync().ok());
    REQUIRE(fs.SyncDir("/db").ok());
    REQUIRE(w->Close().ok());
  }

  void Arm() { fs.set_policy(&injector); }
  void Disarm() { fs.set_policy(nullptr); }

  uint64_t count(const char* kind) const {
    const auto it = injector.counts().find(kind);
    return it == injector.counts().end() ? 0 : it->second;
  }

  std::string Visible(const std::string& path) const {
    std::string data;
    return disk.ReadVisible(path, &data).ok() ? data : "<missing>";
  }
  std::string Durable(const std::string& path) const {
    std::string data;
    return disk.ReadDurable(path, &data).ok() ? data : "<missing>";
  }

  TestDiskContext ctx;
  shale::sim::SimDisk disk;
  shale::faults::FaultInjectingFs fs;
  shale::faults::DiskFaultInjector injector;
};

// Bits that differ between two equally long strings.
inline int BitsDiffering(const std::string& a, const std::string& b) {
  REQUIRE(a.size() == b.size());
  int bits = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    bits += __builtin_popcount(static_cast<unsigned char>(a[i] ^ b[i]));
  }
  return bits;
}

}  // namespace shale_test
