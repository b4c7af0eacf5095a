// HostedRig: a simulation set up to host an engine, as every hosted test
// needs it: tasks on OS threads of their own (os_thread_tasks), a SimDisk
// with NVMe latency, and a shale::Env over both. The rig outlives the run.
#pragma once

#include <cstdint>

#include "shale/env.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::hosted {

inline sim::SimulationOptions HostedSimOptions(uint64_t seed) {
  sim::SimulationOptions options;
  options.seed = seed;
  options.os_thread_tasks = true;
  return options;
}

struct HostedRig {
  explicit HostedRig(uint64_t seed)
      : sim(HostedSimOptions(seed)),
        disk(&sim, sim::LatencyProfile::NVMe()),
        env(&disk, sim.clock(), sim.runtime()) {}
  sim::Simulation sim;
  sim::SimDisk disk;
  Env env;
};

}  // namespace shale::hosted
