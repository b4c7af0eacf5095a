// `shale bench --fs=sim-flash`: db_bench's workloads with the engine on a
// simulated open-channel SSD (sim/flash/sim_flash_device.h) through the
// flash backend (shale/flash_file_system.h), run as tasks of a simulation
// and timed in SIMULATED seconds. Two more benchmarks measure the device
// alone, as fio would:
//   rawwrite  one writer per parallel unit, each programming ws_opt units
//             into its own chunks, num * (key_size + value_size) bytes in all
//   rawread   the same writers' data read back in ws_opt units
//
// The device (its parameters printed in the header, chosen from the
// LinuxCon 2015 open-channel talk and the OCSSD 2.0 specification):
//   4 KiB sectors, ws_min 4 (a 16 KiB page), ws_opt 8 (two planes),
//   mw_cunits 8, 256 sectors (1 MiB) a chunk; programming a ws_opt unit
//   takes 1 ms (32 MB/s a unit, the talk's raw figure for one LUN),
//   sensing a page 100 us, an erase 4 ms; each channel moves 200 MB/s.
//   --flash_units parallel units: up to 8 share one channel (group); more
//   are split 8 a group.
// The simulation charges no CPU time, so each workload operation costs
// --flash_host_us_per_op of its thread's simulated time (the engine's own
// work on the host).
//
// Each run of fills starts on a fresh device; the benchmarks after a fill
// run on what it left. After each such run, a line gives the backend's
// write amplification, resets, wear and read-cache hits.
//
// Returns a process exit code as RunBench does.
// Thread safety: call from one thread.
#pragma once

#include <ostream>

#include "bench_config.h"
#include "sim/flash/sim_flash_device.h"

namespace shale::bench {

int RunSimFlashBench(const BenchConfig& config, std::ostream& out, std::ostream& err);

// The device both flash runs use (the simulated one, and --fs=flash's
// file-backed one, which takes only the geometry): see the file comment.
sim::SimFlashDeviceOptions BenchFlashDevice(const BenchConfig& config);

}  // namespace shale::bench
