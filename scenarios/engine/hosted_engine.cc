// The registry of hosted engines: see hosted_engine.h.
#include "scenarios/engine/hosted_engine.h"

#include <algorithm>

namespace shale::scenario {

namespace {

std::vector<const HostedEngine*>& Registry() {
  static auto* const engines = new std::vector<const HostedEngine*>();
  return *engines;
}

}  // namespace

void RegisterHostedEngine(const HostedEngine* engine) {
  if (FindHostedEngine(engine->name()) != nullptr) return;
  Registry().push_back(engine);
}

const HostedEngine* FindHostedEngine(const std::string& name) {
  for (const HostedEngine* engine : Registry()) {
    if (name == engine->name()) return engine;
  }
  return nullptr;
}

std::vector<std::string> EngineNames() {
  std::vector<std::string> names;
  for (const HostedEngine* engine : Registry()) names.push_back(engine->name());
  std::sort(names.begin(), names.end());
  names.insert(names.begin(), kShaleEngine);
  return names;
}

}  // namespace shale::scenario
