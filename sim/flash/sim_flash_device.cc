// SimFlashDevice's calls: rules, storage and trace (the model is in
// sim_flash_device.h; timing is in sim_flash_device_timing.cc, power loss in
// sim_flash_device_crash.cc).
#include "sim/flash/sim_flash_device.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "sim/flash/sim_flash_device_impl.h"
#include "util/hash.h"

namespace shale::sim {

namespace {

// What is wrong with a write's buffers ("" if nothing): the caller's
// mistake, but not a device rule.
std::string WriteBufferError(const FlashGeometry& g, const Slice& data, const Slice& oob) {
  if (data.data() == nullptr && data.size() > 0) return "null write data";
  if (data.size() % g.sector_bytes != 0) {
    return "write data is not a whole number of sectors (" + std::to_string(data.size()) +
           " bytes, sectors of " + std::to_string(g.sector_bytes) + ")";
  }
  if (oob.size() != data.size() / g.sector_bytes * g.oob_bytes) {
    return "write oob is not oob_bytes per sector (" + std::to_string(oob.size()) + " bytes, " +
           std::to_string(g.oob_bytes) + " a sector)";
  }
  return "";
}

// Bytes up to the last non-zero one: what a sector stores (the zeros after
// it, padding mostly, are implied).
size_t StoredLength(const char* data, size_t n) {
  while (n > 0 && data[n - 1] == 0) n--;
  return n;
}

}  // namespace

std::string FlashCall(const char* op, uint32_t chunk, uint32_t sector, uint32_t count) {
  return std::string(op) + "(chunk " + std::to_string(chunk) + ", sector " +
         std::to_string(sector) + ", " + std::to_string(count) + " sectors)";
}

std::string FlashWhere(uint32_t chunk, uint32_t sector) {
  return "chunk " + std::to_string(chunk) + " sector " + std::to_string(sector);
}

std::string FlashRuleViolation::ToString() const {
  return call + ": " + rule + (task.empty() ? "" : " [called by task " + task + "]");
}

// ---- Impl: storage

SimFlashDevice::Impl::Impl(DiskContext* ctx, const SimFlashDeviceOptions& opts)
    : context(ctx),
      options(opts),
      table(opts.geometry),
      media(opts.geometry.chunks()),
      unit_busy_until_ns(opts.geometry.parallel_units(), 0),
      group_busy_until_ns(opts.geometry.groups, 0) {
  for (uint32_t chunk : opts.factory_bad_chunks) {
    assert(chunk < opts.geometry.chunks());
    table.MarkFactoryBad(chunk);
  }
}

std::vector<FlashSector>& SimFlashDevice::Impl::Sectors(uint32_t chunk) {
  std::vector<FlashSector>& sectors = media[chunk];
  if (sectors.empty()) sectors.resize(geometry().sectors_per_chunk);
  return sectors;
}

void SimFlashDevice::Impl::Erase(uint32_t chunk, uint32_t first) {
  std::vector<FlashSector>& sectors = media[chunk];
  if (first == 0) {
    std::vector<FlashSector>().swap(sectors);
    return;
  }
  for (uint32_t i = first; i < sectors.size(); ++i) sectors[i] = FlashSector();
}

// ---- Impl: the calls

Status SimFlashDevice::Impl::DoWrite(uint32_t chunk, uint32_t sector, uint32_t count,
                                     const Slice& data, const Slice& oob) {
  if (std::string rule = table.CheckWrite(chunk, sector, count); !rule.empty()) {
    return Violation(rule, FlashCall("Write", chunk, sector, count));
  }
  const uint64_t done_ns = WriteDoneNs(chunk, count, data.size() + oob.size());
  Status s;
  if (hooks.program_fails && hooks.program_fails(chunk, sector, count)) {
    table.ApplyProgramFailure(chunk);
    ++stats.program_failures;
    // Only the hook fails programs: the failure is injected, and says so.
    s = Status::IOError("program failure (injected fault: flash_program_failure)",
                        FlashWhere(chunk, sector));
  } else {
    const FlashGeometry& g = geometry();
    std::vector<FlashSector>& sectors = Sectors(chunk);
    for (uint32_t i = 0; i < count; ++i) {
      FlashSector& out = sectors[sector + i];
      const char* bytes = data.data() + uint64_t{i} * g.sector_bytes;
      out.data.assign(bytes, StoredLength(bytes, g.sector_bytes));
      out.oob.assign(oob.data() + uint64_t{i} * g.oob_bytes, g.oob_bytes);
      out.unreadable = false;
    }
    table.ApplyWrite(chunk, count);
    stats.sectors_programmed += count;
    Fold({static_cast<uint64_t>(FlashEvent::kWrite), Hash64(data.data(), data.size()),
          Hash64(oob.data(), oob.size())});
  }
  WaitUntil(done_ns);
  return s;
}

Status SimFlashDevice::Impl::DoRead(uint32_t chunk, uint32_t sector, uint32_t count, char* data,
                                    char* oob) {
  if (std::string rule = table.CheckRead(chunk, sector, count); !rule.empty()) {
    return Violation(rule, FlashCall("Read", chunk, sector, count));
  }
  if (hooks.before_read) hooks.before_read(chunk, sector, count);
  const FlashGeometry& g = geometry();
  const ChunkDescriptor& d = table.descriptor(chunk);
  Status s;
  if (d.state == ChunkState::kOffline) {
    s = Status::IOError("read of an OFFLINE chunk", "chunk " + std::to_string(chunk));
  } else if (!g.zeros_past_write_pointer && table.ReadsPastWritePointer(chunk, sector, count)) {
    s = Status::IOError("read past the write pointer",
                        FlashWhere(chunk, std::max(sector, d.write_pointer)));
  } else {
    s = CopyOut(chunk, sector, count, data, oob);
  }
  const uint64_t bytes = uint64_t{count} * (g.sector_bytes + (oob == nullptr ? 0 : g.oob_bytes));
  WaitUntil(ReadDoneNs(chunk, count, bytes));
  if (s.ok()) stats.sectors_read += count;
  return s;
}

Status SimFlashDevice::Impl::CopyOut(uint32_t chunk, uint32_t sector, uint32_t count, char* data,
                                     char* oob) {
  const FlashGeometry& g = geometry();
  const uint32_t write_pointer = table.descriptor(chunk).write_pointer;
  for (uint32_t i = 0; i < count; ++i) {
    char* data_out = data + uint64_t{i} * g.sector_bytes;
    char* oob_out = oob == nullptr ? nullptr : oob + uint64_t{i} * g.oob_bytes;
    const FlashSector* in = sector + i < write_pointer ? &Sectors(chunk)[sector + i] : nullptr;
    if (in != nullptr && in->unreadable) {
      return Status::IOError("unrecoverable read error", FlashWhere(chunk, sector + i));
    }
    const size_t stored = in == nullptr ? 0 : in->data.size();
    if (stored > 0) std::memcpy(data_out, in->data.data(), stored);
    std::memset(data_out + stored, 0, g.sector_bytes - stored);
    if (oob_out == nullptr) continue;
    if (in == nullptr) {
      std::memset(oob_out, 0, g.oob_bytes);
    } else {
      std::memcpy(oob_out, in->oob.data(), g.oob_bytes);
    }
  }
  return Status::OK();
}

Status SimFlashDevice::Impl::DoReset(uint32_t chunk) {
  if (std::string rule = table.CheckReset(chunk); !rule.empty()) {
    return Violation(rule, "Reset(chunk " + std::to_string(chunk) + ")");
  }
  // The hook is asked only when wear alone does not fail the erase, so its
  // draws do not depend on the endurance limit.
  const bool worn_out = table.ResetWillFail(chunk);
  const bool injected = !worn_out && hooks.erase_fails && hooks.erase_fails(chunk);
  const bool failed = worn_out || injected;
  table.ApplyReset(chunk, failed);
  Erase(chunk, 0);
  ++stats.resets;
  if (failed) ++stats.erase_failures;
  WaitUntil(ResetDoneNs(chunk));
  if (injected) {
    return Status::IOError("erase failure (injected fault: flash_erase_failure)",
                           "chunk " + std::to_string(chunk));
  }
  if (failed) return Status::IOError("erase failure", "chunk " + std::to_string(chunk));
  return Status::OK();
}

// ---- Impl: rules and trace

Status SimFlashDevice::Impl::Violation(const std::string& rule, std::string call) {
  const FlashRuleViolation v{rule, std::move(call), context->CurrentTaskName()};
  violations.push_back(v);
  ++stats.rule_violations;
  if (sink) sink(v);
  Fold({static_cast<uint64_t>(FlashEvent::kViolation), Hash64(rule.data(), rule.size())});
  return Status::InvalidArgument("device rule: " + rule, v.call);
}

void SimFlashDevice::Impl::Fold(std::initializer_list<uint64_t> words) {
  context->Fold(Hash64(reinterpret_cast<const char*>(words.begin()), words.size() * 8));
}

void SimFlashDevice::Impl::FoldCall(FlashEvent event, uint32_t chunk, uint32_t sector,
                                    uint32_t count, const Status& s) {
  Fold({static_cast<uint64_t>(event), chunk, sector, count, static_cast<uint64_t>(s.code())});
}

// ---- SimFlashDevice

SimFlashDevice::SimFlashDevice(DiskContext* context, const SimFlashDeviceOptions& options)
    : impl_(std::make_unique<Impl>(context, options)) {}

SimFlashDevice::~SimFlashDevice() = default;

const FlashGeometry& SimFlashDevice::geometry() const { return impl_->geometry(); }

Status SimFlashDevice::ReportChunks(std::vector<ChunkDescriptor>* report) {
  impl_->context->SwitchPoint("flash.report");
  Status s;
  if (report == nullptr) {
    s = Status::InvalidArgument("null chunk report");
  } else {
    *report = impl_->table.Report();
    impl_->WaitUntil(impl_->context->NowNanos() + impl_->options.timing.report_ns);
  }
  impl_->FoldCall(FlashEvent::kReport, 0, 0, 0, s);
  return s;
}

Status SimFlashDevice::Write(uint32_t chunk, uint32_t sector, const Slice& data, const Slice& oob) {
  impl_->context->SwitchPoint("flash.write");
  const uint64_t sectors = data.size() / geometry().sector_bytes;
  const uint32_t count = static_cast<uint32_t>(std::min<uint64_t>(sectors, UINT32_MAX));
  Status s;
  if (std::string error = WriteBufferError(geometry(), data, oob); !error.empty()) {
    s = Status::InvalidArgument(error, FlashCall("Write", chunk, sector, count));
  } else {
    s = impl_->DoWrite(chunk, sector, count, data, oob);
  }
  impl_->FoldCall(FlashEvent::kWrite, chunk, sector, count, s);
  return s;
}

Status SimFlashDevice::Read(uint32_t chunk, uint32_t sector, uint32_t count, char* data,
                            char* oob) {
  impl_->context->SwitchPoint("flash.read");
  Status s;
  if (data == nullptr && count > 0) {
    s = Status::InvalidArgument("null read buffer", FlashCall("Read", chunk, sector, count));
  } else {
    s = impl_->DoRead(chunk, sector, count, data, oob);
  }
  impl_->FoldCall(FlashEvent::kRead, chunk, sector, count, s);
  return s;
}

Status SimFlashDevice::Reset(uint32_t chunk) {
  impl_->context->SwitchPoint("flash.reset");
  const Status s = impl_->DoReset(chunk);
  impl_->FoldCall(FlashEvent::kReset, chunk, 0, 0, s);
  return s;
}

void SimFlashDevice::set_fault_hooks(FlashFaultHooks hooks) { impl_->hooks = std::move(hooks); }

Status SimFlashDevice::DamageSector(uint32_t chunk, uint32_t sector, FlashSectorDamage damage,
                                    uint32_t byte, int bit) {
  Impl& d = *impl_;
  const FlashGeometry& g = d.geometry();
  const std::string where = FlashWhere(chunk, sector);
  if (chunk >= g.chunks() || sector >= d.table.descriptor(chunk).write_pointer ||
      d.media[chunk].empty()) {
    return Status::InvalidArgument("damage to a sector not programmed", where);
  }
  const uint32_t limit = damage == FlashSectorDamage::kDataBitFlip  ? g.sector_bytes
                         : damage == FlashSectorDamage::kOobBitFlip ? g.oob_bytes
                                                                    : UINT32_MAX;
  if (byte >= limit || bit < 0 || bit > 7) {
    return Status::InvalidArgument("damage outside the sector", where);
  }
  FlashSector& target = d.Sectors(chunk)[sector];
  if (damage == FlashSectorDamage::kUnreadable) {
    target.unreadable = true;
  } else {
    std::string& bytes = damage == FlashSectorDamage::kDataBitFlip ? target.data : target.oob;
    if (bytes.size() <= byte) bytes.resize(byte + 1, '\0');  // a stored zero past the end
    bytes[byte] = static_cast<char>(bytes[byte] ^ (1 << bit));
  }
  d.Fold({static_cast<uint64_t>(FlashEvent::kDamagedSector), chunk, sector,
          static_cast<uint64_t>(damage), byte, static_cast<uint64_t>(bit)});
  return Status::OK();
}

Status SimFlashDevice::LoseChunk(uint32_t chunk) {
  Impl& d = *impl_;
  if (chunk >= d.geometry().chunks() || d.table.descriptor(chunk).state != ChunkState::kClosed) {
    return Status::InvalidArgument("loss of a chunk not CLOSED", "chunk " + std::to_string(chunk));
  }
  d.table.ApplyLoss(chunk);
  d.Erase(chunk, 0);
  d.Fold({static_cast<uint64_t>(FlashEvent::kLostChunk), chunk});
  return Status::OK();
}

bool SimFlashDevice::PeekSector(uint32_t chunk, uint32_t sector, std::string* data,
                                std::string* oob) const {
  const Impl& d = *impl_;
  const FlashGeometry& g = d.geometry();
  if (chunk >= g.chunks() || sector >= d.table.descriptor(chunk).write_pointer ||
      d.media[chunk].empty() || d.media[chunk][sector].unreadable) {
    return false;
  }
  const FlashSector& in = d.media[chunk][sector];
  *data = in.data;
  data->resize(g.sector_bytes, '\0');
  *oob = in.oob;
  oob->resize(g.oob_bytes, '\0');
  return true;
}

void SimFlashDevice::set_violation_sink(std::function<void(const FlashRuleViolation&)> sink) {
  impl_->sink = std::move(sink);
}

const std::vector<FlashRuleViolation>& SimFlashDevice::violations() const {
  return impl_->violations;
}

const FlashDeviceStats& SimFlashDevice::stats() const { return impl_->stats; }

std::vector<ChunkDescriptor> SimFlashDevice::Peek() const { return impl_->table.Report(); }

}  // namespace shale::sim
