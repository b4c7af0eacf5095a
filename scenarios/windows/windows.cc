#include "scenarios/windows/windows.h"

#include "scenarios/crash_recovery/crash_recovery.h"

namespace shale::scenario {

namespace {

class Windows final : public Scenario {
 public:
  const char* name() const override { return "windows"; }
  const char* summary() const override {
    return "the crash-recovery workload on the Windows disk: share modes, delete pending, "
           "unbuffered alignment, file pointers, no directory sync; every broken rule fails";
  }
  std::vector<std::string> properties() const override {
    std::vector<std::string> properties = CrashRecoveryProperties();
    properties.push_back("windows rule");
    return properties;
  }
  RunResult Run(const RunConfig& config) const override {
    return RunCrashRecovery(name(), config, DiskModel::kWindows);
  }
};

}  // namespace

const Scenario* WindowsScenario() {
  static const auto* const scenario = new Windows();
  return scenario;
}

}  // namespace shale::scenario
