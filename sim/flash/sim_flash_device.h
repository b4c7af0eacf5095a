// SimFlashDevice: an Open-Channel SSD 2.0 chunk device in simulated time.
//
// It keeps every rule and media behaviour that shale/flash_device.h states
// (the rules through a flash::ChunkTable, engine/flash/chunk_table.h), and
// adds what only a simulation has: latency, power loss, and injected
// program and erase failures. Where the specification leaves a choice, the
// model makes this one:
//   * A program failure closes the chunk early and makes it grown bad (its
//     next Reset fails and takes it OFFLINE). The specification lets the
//     host decide whether to retire such a chunk; here the media decides.
//   * A read of a sector in the device cache is a host error (a rule), not
//     a read of the cached data.
//   * At a power loss, each OPEN chunk loses its cached sectors. With
//     probability 1/2 its first cached ws_min unit is torn: a prefix of the
//     unit (0..ws_min-1 sectors, uniform) reads back intact, and each later
//     sector of the unit is unreadable (reads fail with IOError) or garbage
//     (random data and OOB), 1/2 each. The write pointer then stands after
//     the torn unit, or at the first cached sector when none is torn.
//   * Reading a sector past the write pointer fails with IOError or returns
//     zeros (data and OOB), as the geometry's zeros_past_write_pointer says.
//   * A sector at rest may be damaged (DamageSector, decided by the caller):
//     made unreadable, or one bit of its data or OOB flipped; and a CLOSED
//     chunk may be lost whole (LoseChunk: OFFLINE, its sectors gone). The
//     device reports nothing; the host's checks must find it.
//   * Every write's data and OOB bytes are folded into the trace.
//
// Timing (all in simulated time; the caller waits with context->Delay):
//   * Each parallel unit does one media operation at a time; each group
//     (channel) moves one transfer at a time. Different units overlap.
//   * A write first moves its bytes over the group's channel, then programs
//     ceil(sectors / ws_opt) program units of program_ns each on its unit.
//     With a device cache (mw_cunits > 0) the call returns once the unit
//     has started programming (the data is in the cache); without one, once
//     the program is done.
//   * A read senses ceil(sectors / ws_min) units of read_ns each on its
//     unit, then moves the bytes over the channel; it returns when they
//     have arrived.
//   * A Reset erases for erase_ns on its unit and returns when done.
//   * ReportChunks costs report_ns.
// Every call is a scheduling point (context->SwitchPoint) before it acts,
// and every call, outcome and power-loss decision is folded into the trace.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: borrows the context, which must outlive the device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "flash/chunk_table.h"
#include "shale/flash_device.h"
#include "sim/disk_context.h"

namespace shale::sim {

struct FlashTiming {
  uint64_t read_ns = 100'000;       // per ws_min unit sensed
  uint64_t program_ns = 1'500'000;  // per ws_opt program unit
  uint64_t erase_ns = 4'000'000;
  uint64_t report_ns = 10'000;
  uint64_t channel_bytes_per_us = 200;  // 200 MB/s per group
};

struct SimFlashDeviceOptions {
  FlashGeometry geometry;
  FlashTiming timing;
  std::vector<uint32_t> factory_bad_chunks;  // OFFLINE from the start
};

// Damage done to one programmed sector at rest (SimFlashDevice::DamageSector).
enum class FlashSectorDamage : uint8_t {
  kUnreadable,   // reads of it fail with an uncorrectable error until a Reset
  kDataBitFlip,  // one bit of its data flipped
  kOobBitFlip,   // one bit of its OOB bytes flipped
};

// Decides injected media failures; either may be empty (never fails).
struct FlashFaultHooks {
  // Whether the write of `sectors` sectors at chunk:sector fails to program.
  std::function<bool(uint32_t chunk, uint32_t sector, uint32_t sectors)> program_fails;
  // Whether the Reset of chunk fails (the chunk goes OFFLINE).
  std::function<bool(uint32_t chunk)> erase_fails;
  // Told of each read of `sectors` sectors at chunk:sector that breaks no
  // rule, before it reads: it may damage sectors (DamageSector), as a read
  // disturb or decay found only when read does, and the read sees that.
  std::function<void(uint32_t chunk, uint32_t sector, uint32_t sectors)> before_read;
};

// A call that broke a device rule.
struct FlashRuleViolation {
  std::string rule;  // "write not at the write pointer (sector 8, write pointer 12)"
  std::string call;  // "Write(chunk 17, sector 8, 4 sectors)"
  std::string task;  // the task that made the call; may be empty
  // "Write(chunk 17, sector 8, 4 sectors): write not at the write pointer
  // (sector 8, write pointer 12) [called by task flush]"
  std::string ToString() const;
};

struct FlashDeviceStats {
  uint64_t sectors_programmed = 0;  // by successful writes
  uint64_t sectors_read = 0;
  uint64_t resets = 0;  // attempted, failed ones included
  uint64_t program_failures = 0;
  uint64_t erase_failures = 0;  // injected or worn out
  uint64_t rule_violations = 0;
  uint64_t power_losses = 0;
  uint64_t torn_units = 0;  // ws_min units torn by power losses
};

// What a power loss took from one OPEN chunk.
struct FlashCacheLoss {
  uint32_t chunk = 0;
  uint32_t old_write_pointer = 0;  // before the power loss
  uint32_t write_pointer = 0;      // after it
  bool torn = false;               // its first cached unit was torn
  // Sector 0 of the chunk as it was before the power loss (data, then
  // OOB), so a checker can tell whose chunk it was even if sector 0 was
  // lost; empty if the chunk had no sector 0.
  std::string first_sector_data;
  std::string first_sector_oob;
};

class SimFlashDevice final : public FlashDevice {
 public:
  // REQUIRES: options.geometry.Invalid() is empty; factory-bad chunks are
  // in range.
  SimFlashDevice(DiskContext* context, const SimFlashDeviceOptions& options);
  ~SimFlashDevice() override;

  // ---- FlashDevice (see shale/flash_device.h)
  const FlashGeometry& geometry() const override;
  Status ReportChunks(std::vector<ChunkDescriptor>* report) override;
  Status Write(uint32_t chunk, uint32_t sector, const Slice& data, const Slice& oob) override;
  Status Read(uint32_t chunk, uint32_t sector, uint32_t count, char* data, char* oob) override;
  Status Reset(uint32_t chunk) override;

  // ---- simulation
  // The power fails and comes back (see the file comment). Units that were
  // busy are idle afterwards.
  void PowerLoss();
  // The chunks the last PowerLoss() took sectors from, in chunk order.
  const std::vector<FlashCacheLoss>& last_power_loss() const;
  void set_fault_hooks(FlashFaultHooks hooks);
  // Damages a sector below chunk's write pointer at rest, as media decay
  // or a read disturb does (folded into the trace). byte: the data byte
  // (kDataBitFlip, < sector_bytes) or OOB byte (kOobBitFlip, < oob_bytes)
  // whose bit (0..7) flips; ignored for kUnreadable. InvalidArgument if
  // the sector is not programmed or byte or bit is out of range.
  [[nodiscard]] Status DamageSector(uint32_t chunk, uint32_t sector, FlashSectorDamage damage,
                                    uint32_t byte, int bit);
  // A CLOSED chunk is lost as a whole at rest (a failed block or die): it
  // goes OFFLINE and every sector it held is gone; reads of it fail (folded
  // into the trace). InvalidArgument if chunk is not CLOSED.
  [[nodiscard]] Status LoseChunk(uint32_t chunk);
  // A programmed, readable sector's data (sector_bytes) and OOB, without
  // latency, switch point or trace; false if it is neither.
  bool PeekSector(uint32_t chunk, uint32_t sector, std::string* data, std::string* oob) const;
  // Called with each rule violation, after it is recorded and before the
  // call fails. Empty: none.
  void set_violation_sink(std::function<void(const FlashRuleViolation&)> sink);
  const std::vector<FlashRuleViolation>& violations() const;
  const FlashDeviceStats& stats() const;
  // The chunk states now, without latency, switch point or trace.
  std::vector<ChunkDescriptor> Peek() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shale::sim
