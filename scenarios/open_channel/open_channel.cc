#include "scenarios/open_channel/open_channel.h"

#include "scenarios/crash_recovery/crash_recovery.h"

namespace shale::scenario {

const Scenario* OpenChannelScenario() {
  static const Scenario* const scenario = NewCrashRecoveryOnDisk(
      "open-channel",
      "the crash-recovery workload with WAL, tables and MANIFEST on an open-channel SSD: "
      "chunk rules, device cache, bad chunks, program and erase failures",
      DiskModel::kOpenChannel, "device rule");
  return scenario;
}

}  // namespace shale::scenario
