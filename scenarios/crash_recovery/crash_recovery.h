// The `crash-recovery` scenario (see crash_recovery.cc for what one seed
// does), and its runs on other disk models (`windows`, `open-channel`).
#pragma once

#include <string>
#include <vector>

#include "scenarios/crash_recovery/disk_under_test.h"
#include "scenarios/scenario.h"

namespace shale::scenario {

// The scenario singleton (registered by RegisterBuiltinScenarios).
const Scenario* CrashRecoveryScenario();

// One crash-recovery run of config with the engine on a disk of `model`,
// reported under scenario_name.
RunResult RunCrashRecovery(const char* scenario_name, const RunConfig& config, DiskModel model);
// The properties a crash-recovery run checks.
std::vector<std::string> CrashRecoveryProperties();

// The crash-recovery workload and oracle on another disk model, whose own
// rule checks fail a seed under one more property (rule_property). The
// strings are static; the scenario is never destroyed.
const Scenario* NewCrashRecoveryOnDisk(const char* name, const char* summary, DiskModel model,
                                       const char* rule_property);

}  // namespace shale::scenario
