// The one list of built-in scenarios.
#include "scenarios/scenario.h"

namespace shale::scenario {

void RegisterBuiltinScenarios() {
  static bool registered = false;
  if (registered) return;
  registered = true;
  // Each scenario's file adds a line here as it lands, e.g.
  //   RegisterScenario(CrashRecoveryScenario());
}

}  // namespace shale::scenario
