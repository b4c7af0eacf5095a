// Damage at rest on the open-channel SSD: decay found at read time, and
// crash-time damage to one sector or to a whole chunk (flash_under_test.h).
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "faults/disk_fault_injector.h"
#include "flash/flash_format.h"
#include "scenarios/crash_recovery/fault_plan.h"
#include "scenarios/crash_recovery/flash_under_test.h"

namespace shale::scenario {

namespace {

// The tag of chunk:sector of device if it reads whole; false otherwise.
bool PeekTag(const sim::SimFlashDevice& device, uint32_t chunk, uint32_t sector,
             flash::SectorTag* tag, std::string* data) {
  const FlashGeometry& g = device.geometry();
  std::string oob;
  return device.PeekSector(chunk, sector, data, &oob) &&
         flash::DecodeTag(data->data(), g.sector_bytes, oob.data(), g.oob_bytes, tag);
}

// A chunk's START, read whole.
bool PeekStart(const sim::SimFlashDevice& device, uint32_t chunk, flash::ChunkStart* start) {
  flash::SectorTag tag;
  std::string data;
  return PeekTag(device, chunk, 0, &tag, &data) && tag.kind == flash::SectorKind::kStart &&
         flash::DecodeChunkStart(Slice(data.data(), tag.valid_bytes), start) &&
         start->file_id == tag.file_id && start->chain_index == tag.chain_index;
}

// A DATA sector and the file bytes it holds.
struct DataSector {
  uint32_t sector = 0;
  uint32_t valid_bytes = 0;
};

// The DATA sectors of a full CLOSED chunk of a table or WAL, and its file's
// name; empty if the chunk is not such a chunk.
std::vector<DataSector> DamageableSectors(const sim::SimFlashDevice& device, uint32_t chunk,
                                          std::string* name) {
  const uint32_t last = device.geometry().sectors_per_chunk - 1;
  flash::SectorTag tag;
  flash::ChunkStart start;
  std::string data;
  if (!PeekStart(device, chunk, &start) || !PeekTag(device, chunk, last, &tag, &data) ||
      tag.kind != flash::SectorKind::kClose || tag.file_id != start.file_id) {
    return {};
  }
  // Not the MANIFEST: the live one's damage would end the run at every Open.
  if (!IsTableFile(start.name) && !IsLogFile(start.name)) return {};
  std::vector<DataSector> sectors;
  for (uint32_t sector = 1; sector < last; sector++) {
    if (PeekTag(device, chunk, sector, &tag, &data) && tag.kind == flash::SectorKind::kData &&
        tag.file_id == start.file_id && tag.valid_bytes > 0) {
      sectors.push_back({sector, tag.valid_bytes});
    }
  }
  *name = start.name;
  return sectors;
}

}  // namespace

void FlashUnderTest::MaybeDecayOnRead(uint64_t one_in, uint32_t chunk, uint32_t first,
                                      uint32_t count) {
  if ((paused_ && paused_()) || !context_->rng()->OneIn(one_in)) return;
  std::string name;
  std::vector<DataSector> covered = DamageableSectors(*device_, chunk, &name);
  if (!IsTableFile(name)) return;  // a WAL is read only by recovery, which it would end
  std::erase_if(covered,
                [&](const DataSector& d) { return d.sector < first || d.sector - first >= count; });
  if (covered.empty()) return;
  const uint32_t sector = covered[context_->rng()->Uniform(covered.size())].sector;
  if (!device_->DamageSector(chunk, sector, sim::FlashSectorDamage::kUnreadable, 0, 0).ok()) return;
  if (faults_by_kind_ != nullptr) (*faults_by_kind_)[kReadDecayName]++;
  faults::TraceFault(context_, kReadDecayName, &name);
  if (damaged_sink_) damaged_sink_(name);
}

namespace {

// Whether chunk is a full CLOSED chunk holding no TRUNCATE whose CLOSE
// counts `*data_bytes` DATA bytes (what losing it takes).
bool PlainClosedChunk(const sim::SimFlashDevice& device, uint32_t chunk, uint64_t* data_bytes) {
  const uint32_t last = device.geometry().sectors_per_chunk - 1;
  flash::SectorTag tag;
  std::string data;
  flash::ChunkClose close;
  if (!PeekTag(device, chunk, last, &tag, &data) || tag.kind != flash::SectorKind::kClose ||
      !flash::DecodeChunkClose(Slice(data.data(), tag.valid_bytes), &close)) {
    return false;
  }
  for (uint32_t sector = 1; sector < last; sector++) {
    if (PeekTag(device, chunk, sector, &tag, &data) && tag.kind == flash::SectorKind::kTruncate) {
      return false;
    }
  }
  *data_bytes = close.data_bytes;
  return true;
}

// The CLOSED chunks whose loss a mount can prove: of a table or WAL whose
// first chunk is there, neither that first chunk nor the file's last
// (flash_format.h keeps no record outside the chunks, so losing either
// reads as an interrupted erase or a shorter file), with no TRUNCATE, and
// whose neighbours in the chain are there and continue it (the next one
// starts where its DATA ends).
std::vector<uint32_t> LosableChunks(const sim::SimFlashDevice& device) {
  const std::vector<ChunkDescriptor> chunks = device.Peek();
  struct Link {
    uint32_t chain_index;
    uint32_t chunk;
    uint64_t start_offset;
    bool operator<(const Link& o) const { return chain_index < o.chain_index; }
  };
  std::map<uint64_t, std::vector<Link>> by_file;
  std::map<uint64_t, bool> named_ok;
  for (uint32_t chunk = 0; chunk < chunks.size(); chunk++) {
    flash::ChunkStart start;
    if (chunks[chunk].state == ChunkState::kFree || chunks[chunk].state == ChunkState::kOffline ||
        !PeekStart(device, chunk, &start)) {
      continue;
    }
    by_file[start.file_id].push_back({start.chain_index, chunk, start.start_offset});
    named_ok[start.file_id] = IsTableFile(start.name) || IsLogFile(start.name);
  }
  std::vector<uint32_t> losable;
  for (auto& [file_id, chain] : by_file) {
    std::sort(chain.begin(), chain.end());
    if (!named_ok[file_id] || chain.front().chain_index != 0) continue;
    for (size_t i = 1; i + 1 < chain.size(); i++) {
      const Link& at = chain[i];
      uint64_t data_bytes = 0;
      if (chunks[at.chunk].state == ChunkState::kClosed &&
          chain[i - 1].chain_index + 1 == at.chain_index &&
          chain[i + 1].chain_index == at.chain_index + 1 &&
          PlainClosedChunk(device, at.chunk, &data_bytes) && data_bytes > 0 &&
          chain[i + 1].start_offset == at.start_offset + data_bytes) {
        losable.push_back(at.chunk);
      }
    }
  }
  return losable;
}

}  // namespace

bool FlashUnderTest::LoseChunkAtCrash(sim::ChoiceTape* rng, std::string* path) {
  const std::vector<uint32_t> losable = LosableChunks(*device_);
  if (losable.empty()) return false;
  const uint32_t chunk = losable[rng->Uniform(losable.size())];
  flash::ChunkStart start;
  if (!PeekStart(*device_, chunk, &start) || !device_->LoseChunk(chunk).ok()) return false;
  if (faults_by_kind_ != nullptr) (*faults_by_kind_)[kLostChunkName]++;
  faults::TraceFault(context_, kLostChunkName, &start.name);
  *path = start.name;
  return true;
}

bool FlashUnderTest::DamageAtCrash(sim::ChoiceTape* rng, std::string* path) {
  if (rng->OneIn(kLostChunkOneIn) && LoseChunkAtCrash(rng, path)) return true;
  const FlashGeometry& g = device_->geometry();
  const std::vector<ChunkDescriptor> chunks = device_->Peek();
  std::vector<uint32_t> closed;
  for (uint32_t chunk = 0; chunk < chunks.size(); chunk++) {
    const ChunkDescriptor& d = chunks[chunk];
    if (d.state == ChunkState::kClosed && d.write_pointer == g.sectors_per_chunk) {
      closed.push_back(chunk);
    }
  }
  if (closed.empty()) return false;
  const uint32_t chunk = closed[rng->Uniform(closed.size())];
  std::string name;
  const std::vector<DataSector> sectors = DamageableSectors(*device_, chunk, &name);
  if (sectors.empty()) return false;
  const DataSector target = sectors[rng->Uniform(sectors.size())];
  const auto damage = static_cast<sim::FlashSectorDamage>(rng->Uniform(3));
  const uint64_t byte =
      damage == sim::FlashSectorDamage::kDataBitFlip  ? rng->Uniform(target.valid_bytes)
      : damage == sim::FlashSectorDamage::kOobBitFlip ? rng->Uniform(flash::kTagBytes)
                                                      : 0;
  const int bit = static_cast<int>(rng->Uniform(8));
  if (!device_->DamageSector(chunk, target.sector, damage, static_cast<uint32_t>(byte), bit).ok()) {
    return false;
  }
  constexpr const char* kKinds[] = {"flash_unreadable_sector", "flash_data_bit_flip",
                                    "flash_oob_bit_flip"};
  if (faults_by_kind_ != nullptr) (*faults_by_kind_)[kKinds[static_cast<int>(damage)]]++;
  faults::TraceFault(context_, kKinds[static_cast<int>(damage)], &name);
  *path = name;
  return true;
}

}  // namespace shale::scenario
