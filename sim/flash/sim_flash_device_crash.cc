// SimFlashDevice's power loss: what each OPEN chunk's device cache leaves
// behind (the model is in sim_flash_device.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sim/flash/sim_flash_device.h"
#include "sim/flash/sim_flash_device_impl.h"

namespace shale::sim {

namespace {

std::string RandomBytes(ChoiceTape* rng, size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; i += sizeof(uint64_t)) {
    const uint64_t word = rng->Next64();
    std::memcpy(&bytes[i], &word, std::min(sizeof(word), n - i));
  }
  return bytes;
}

}  // namespace

void SimFlashDevice::PowerLoss() {
  Impl& d = *impl_;
  d.Fold({static_cast<uint64_t>(FlashEvent::kPowerLoss), d.stats.power_losses});
  const uint32_t chunks = d.geometry().chunks();
  d.last_power_loss.clear();
  for (uint32_t chunk = 0; chunk < chunks; ++chunk) {
    if (d.table.descriptor(chunk).state == ChunkState::kOpen) d.LoseCache(chunk);
  }
  const uint64_t now_ns = d.context->NowNanos();
  d.unit_busy_until_ns.assign(d.unit_busy_until_ns.size(), now_ns);
  d.group_busy_until_ns.assign(d.group_busy_until_ns.size(), now_ns);
  ++d.stats.power_losses;
}

const std::vector<FlashCacheLoss>& SimFlashDevice::last_power_loss() const {
  return impl_->last_power_loss;
}

void SimFlashDevice::Impl::LoseCache(uint32_t chunk) {
  const uint32_t cache_start = table.cache_start(chunk);
  const uint32_t old_write_pointer = table.descriptor(chunk).write_pointer;
  uint32_t write_pointer = cache_start;
  FlashCacheLoss loss{chunk, old_write_pointer, cache_start, false, "", ""};
  if (cache_start < old_write_pointer) {
    const FlashSector& first = Sectors(chunk)[0];
    loss.first_sector_data = first.data;
    loss.first_sector_data.resize(geometry().sector_bytes, '\0');
    loss.first_sector_oob = first.oob;
  }
  if (cache_start < old_write_pointer && context->rng()->OneIn(2)) {
    TearUnit(chunk, cache_start);
    write_pointer += geometry().ws_min;
    ++stats.torn_units;
    loss.torn = true;
  }
  loss.write_pointer = write_pointer;
  if (cache_start < old_write_pointer) last_power_loss.push_back(std::move(loss));
  Erase(chunk, write_pointer);
  table.ApplyPowerLoss(chunk, write_pointer);
  Fold({static_cast<uint64_t>(FlashEvent::kPowerLoss), chunk, cache_start, old_write_pointer,
        write_pointer});
}

void SimFlashDevice::Impl::TearUnit(uint32_t chunk, uint32_t first) {
  const FlashGeometry& g = geometry();
  ChoiceTape* rng = context->rng();
  const uint32_t intact = static_cast<uint32_t>(rng->Uniform(g.ws_min));
  std::vector<FlashSector>& sectors = Sectors(chunk);
  for (uint32_t sector = first + intact; sector < first + g.ws_min; ++sector) {
    FlashSector& torn = sectors[sector];
    torn.unreadable = rng->OneIn(2);
    torn.data = torn.unreadable ? std::string() : RandomBytes(rng, g.sector_bytes);
    torn.oob = torn.unreadable ? std::string() : RandomBytes(rng, g.oob_bytes);
    Fold({static_cast<uint64_t>(FlashEvent::kTornSector), chunk, sector, torn.unreadable});
  }
}

}  // namespace shale::sim
