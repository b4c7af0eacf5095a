// The one list of built-in scenarios.
#include "scenarios/crash_recovery/crash_recovery.h"
#include "scenarios/scenario.h"

namespace shale::scenario {

void RegisterBuiltinScenarios() {
  static bool registered = false;
  if (registered) return;
  registered = true;
  RegisterScenario(CrashRecoveryScenario());
}

}  // namespace shale::scenario
