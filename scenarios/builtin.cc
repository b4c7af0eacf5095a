// The one list of built-in scenarios.
#include "scenarios/crash_recovery/crash_recovery.h"
#include "scenarios/diff/diff_scenarios.h"
#include "scenarios/open_channel/open_channel.h"
#include "scenarios/real_backend/real_backend.h"
#include "scenarios/scenario.h"
#include "scenarios/snapshot/snapshot.h"
#include "scenarios/table_cache/table_cache.h"
#include "scenarios/unordered_write/unordered_write.h"
#include "scenarios/windows/windows.h"

namespace shale::scenario {

void RegisterBuiltinScenarios() {
  static bool registered = false;
  if (registered) return;
  registered = true;
  RegisterScenario(CrashRecoveryScenario());
  RegisterScenario(SnapshotScenario());
  RegisterScenario(UnorderedWriteScenario());
  RegisterScenario(WindowsScenario());
  RegisterScenario(OpenChannelScenario());
  RegisterScenario(RealBackendScenario());
  RegisterScenario(TableCacheScenario());
  RegisterScenario(DiffOptionsScenario());
  RegisterScenario(DiffRocksDbScenario());
}

}  // namespace shale::scenario
