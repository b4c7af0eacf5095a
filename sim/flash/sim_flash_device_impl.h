// SimFlashDevice's state, shared by its calls (sim_flash_device.cc), its
// timing (sim_flash_device_timing.cc) and its power loss
// (sim_flash_device_crash.cc). Internal to sim/flash/.
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "flash/chunk_table.h"
#include "sim/disk_context.h"
#include "sim/flash/sim_flash_device.h"

namespace shale::sim {

// One sector as the media holds it.
struct FlashSector {
  std::string data;         // up to its last non-zero byte (the rest are zeros)
  std::string oob;          // oob_bytes
  bool unreadable = false;  // reads of it fail (torn by a power loss)
};

// What a trace fold says happened; fixed numbers so traces stay comparable.
enum class FlashEvent : uint64_t {
  kReport = 1,
  kWrite = 2,
  kRead = 3,
  kReset = 4,
  kViolation = 5,
  kPowerLoss = 6,
  kTornSector = 7,
  kDamagedSector = 8,
  kLostChunk = 9,
};

struct SimFlashDevice::Impl {
  Impl(DiskContext* context, const SimFlashDeviceOptions& options);

  const FlashGeometry& geometry() const { return options.geometry; }

  // ---- storage
  // The sectors of chunk (sectors_per_chunk of them), made on first use.
  std::vector<FlashSector>& Sectors(uint32_t chunk);
  // Forgets chunk's sectors from `first` on.
  void Erase(uint32_t chunk, uint32_t first);

  // ---- the calls, after their switch point and argument checks
  Status DoWrite(uint32_t chunk, uint32_t sector, uint32_t count, const Slice& data,
                 const Slice& oob);
  Status DoRead(uint32_t chunk, uint32_t sector, uint32_t count, char* data, char* oob);
  Status DoReset(uint32_t chunk);
  // Copies sectors below the write pointer out, and zeros for those past it.
  Status CopyOut(uint32_t chunk, uint32_t sector, uint32_t count, char* data, char* oob);

  // ---- power loss: what an OPEN chunk's device cache leaves behind
  void LoseCache(uint32_t chunk);
  // Tears the ws_min unit at first: an intact prefix, then sectors that are
  // unreadable or garbage.
  void TearUnit(uint32_t chunk, uint32_t first);

  // ---- rules and trace
  // Records a broken rule, tells the sink, folds it; the call's status.
  Status Violation(const std::string& rule, std::string call);
  void Fold(std::initializer_list<uint64_t> words);
  void FoldCall(FlashEvent event, uint32_t chunk, uint32_t sector, uint32_t count, const Status& s);

  // ---- timing: when the call's work is done, in simulated nanoseconds
  uint64_t WriteDoneNs(uint32_t chunk, uint32_t count, uint64_t bytes);
  uint64_t ReadDoneNs(uint32_t chunk, uint32_t count, uint64_t bytes);
  uint64_t ResetDoneNs(uint32_t chunk);
  // Moves bytes over chunk's channel once ready_ns has come; when they land.
  uint64_t TransferDoneNs(uint32_t chunk, uint64_t ready_ns, uint64_t bytes);
  // The calling task waits until done_ns.
  void WaitUntil(uint64_t done_ns);

  DiskContext* const context;
  const SimFlashDeviceOptions options;
  flash::ChunkTable table;
  std::vector<std::vector<FlashSector>> media;  // by chunk
  std::vector<uint64_t> unit_busy_until_ns;     // by parallel unit
  std::vector<uint64_t> group_busy_until_ns;    // by group (channel)
  FlashFaultHooks hooks;
  std::function<void(const FlashRuleViolation&)> sink;
  std::vector<FlashRuleViolation> violations;
  FlashDeviceStats stats;
  std::vector<FlashCacheLoss> last_power_loss;
};

// "Write(chunk 17, sector 8, 4 sectors)".
std::string FlashCall(const char* op, uint32_t chunk, uint32_t sector, uint32_t count);
// "chunk 17 sector 8".
std::string FlashWhere(uint32_t chunk, uint32_t sector);

}  // namespace shale::sim
