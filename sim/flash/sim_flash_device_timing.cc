// SimFlashDevice's timing: each parallel unit does one media operation at a
// time and each group's channel one transfer at a time (the model is in
// sim_flash_device.h).
#include <algorithm>
#include <cstdint>

#include "sim/flash/sim_flash_device.h"
#include "sim/flash/sim_flash_device_impl.h"

namespace shale::sim {

namespace {

uint64_t DivUp(uint64_t n, uint64_t d) { return (n + d - 1) / d; }

}  // namespace

uint64_t SimFlashDevice::Impl::TransferDoneNs(uint32_t chunk, uint64_t ready_ns, uint64_t bytes) {
  uint64_t& channel = group_busy_until_ns[geometry().GroupOf(chunk)];
  const uint64_t bytes_per_us = options.timing.channel_bytes_per_us;
  // A channel speed of 0 stands for an instant channel.
  const uint64_t transfer_ns = bytes_per_us == 0 ? 0 : bytes * 1000 / bytes_per_us;
  channel = std::max(ready_ns, channel) + transfer_ns;
  return channel;
}

uint64_t SimFlashDevice::Impl::WriteDoneNs(uint32_t chunk, uint32_t count, uint64_t bytes) {
  const uint64_t arrived_ns = TransferDoneNs(chunk, context->NowNanos(), bytes);
  uint64_t& unit = unit_busy_until_ns[geometry().UnitOf(chunk)];
  const uint64_t start_ns = std::max(arrived_ns, unit);
  unit = start_ns + DivUp(count, geometry().ws_opt) * options.timing.program_ns;
  return geometry().mw_cunits > 0 ? start_ns : unit;
}

uint64_t SimFlashDevice::Impl::ReadDoneNs(uint32_t chunk, uint32_t count, uint64_t bytes) {
  uint64_t& unit = unit_busy_until_ns[geometry().UnitOf(chunk)];
  unit = std::max(context->NowNanos(), unit) +
         DivUp(count, geometry().ws_min) * options.timing.read_ns;
  return TransferDoneNs(chunk, unit, bytes);
}

uint64_t SimFlashDevice::Impl::ResetDoneNs(uint32_t chunk) {
  uint64_t& unit = unit_busy_until_ns[geometry().UnitOf(chunk)];
  unit = std::max(context->NowNanos(), unit) + options.timing.erase_ns;
  return unit;
}

void SimFlashDevice::Impl::WaitUntil(uint64_t done_ns) {
  const uint64_t now_ns = context->NowNanos();
  if (done_ns > now_ns) context->Delay(done_ns - now_ns);
}

}  // namespace shale::sim
