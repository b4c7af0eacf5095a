// The `snapshot` scenario (see snapshot.cc for what one seed does).
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

// The scenario singleton (registered by RegisterBuiltinScenarios).
const Scenario* SnapshotScenario();

}  // namespace shale::scenario
