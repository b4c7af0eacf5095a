// The `windows` scenario: the crash-recovery workload and oracle, with the
// engine on the Windows disk (sim/disk/windows_disk.h). Per seed the swarm
// also draws the volume's sector size (512 or 4096), POSIX-semantics
// delete, direct (unbuffered) I/O for tables, and share-delete on open.
// Every call that breaks a Windows rule fails the seed under the property
// "windows rule", naming the rule, the call, the path and which part of the
// engine held the file; the crash checks then tell whether the data
// survived a crash there.
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

// The scenario singleton (registered by RegisterBuiltinScenarios).
const Scenario* WindowsScenario();

}  // namespace shale::scenario
