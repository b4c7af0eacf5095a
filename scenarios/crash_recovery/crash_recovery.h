// The `crash-recovery` scenario (see crash_recovery.cc for what one seed does).
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

// The scenario singleton (registered by RegisterBuiltinScenarios).
const Scenario* CrashRecoveryScenario();

}  // namespace shale::scenario
