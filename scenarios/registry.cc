// The scenario registry. Built-in scenarios register themselves here, in
// one place, so `shale scenarios` and CI's registry check see them all.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_split.h"
#include "scenarios/scenario.h"

namespace shale::scenario {

namespace {
std::vector<const Scenario*>* Registry() {
  static auto* const registry = new std::vector<const Scenario*>();
  return registry;
}
}  // namespace

void RegisterScenario(const Scenario* scenario) {
  std::vector<const Scenario*>* r = Registry();
  r->push_back(scenario);
  std::sort(r->begin(), r->end(), [](const Scenario* a, const Scenario* b) {
    return std::strcmp(a->name(), b->name()) < 0;
  });
}

std::string Scenario::PinValueError(const std::string& engine, const std::string& name,
                                    const std::string& value) const {
  const std::string alternatives = PinnableOptions(engine)[name];
  if (alternatives.empty()) return "";
  const std::vector<std::string> allowed = absl::StrSplit(alternatives, '|');
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return "";
  return "--pin " + name + " takes " + alternatives + ", not '" + value + "'";
}

const std::vector<const Scenario*>& AllScenarios() { return *Registry(); }

const Scenario* FindScenario(const std::string& name) {
  for (const Scenario* s : AllScenarios()) {
    if (name == s->name()) return s;
  }
  return nullptr;
}

}  // namespace shale::scenario
