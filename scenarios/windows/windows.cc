#include "scenarios/windows/windows.h"

#include "scenarios/crash_recovery/crash_recovery.h"

namespace shale::scenario {

const Scenario* WindowsScenario() {
  static const Scenario* const scenario = NewCrashRecoveryOnDisk(
      "windows",
      "the crash-recovery workload on the Windows disk: share modes, delete pending, "
      "unbuffered alignment, file pointers, no directory sync; every broken rule fails",
      DiskModel::kWindows, "windows rule");
  return scenario;
}

}  // namespace shale::scenario
