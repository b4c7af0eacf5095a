// The `open-channel` scenario: the crash-recovery workload and oracle, with
// the engine's WAL, tables and MANIFEST on a simulated open-channel SSD
// (sim/flash/sim_flash_device.h) through the flash backend
// (shale/flash_file_system.h), and its small files on the POSIX disk. Per
// seed the swarm also draws the device's geometry (groups, parallel units,
// chunks, sectors, ws_min, ws_opt, mw_cunits, open-chunk limit,
// endurance), its latencies and its factory-bad chunks; with faults on,
// programs and erases fail too. Power losses drop and tear what sits in the
// device cache. Every call that breaks a device rule fails the seed under
// the property "device rule", naming the rule and the call; the crash
// checks then tell whether the data survived.
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

// The scenario singleton (registered by RegisterBuiltinScenarios).
const Scenario* OpenChannelScenario();

}  // namespace shale::scenario
