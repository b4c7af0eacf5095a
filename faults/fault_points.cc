// Survive: every named engine fault point (the full statement is at the top
// of fault_points.h). Detect only: none.
#include "faults/fault_points.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <memory>
#include <string>

namespace shale::faults {
namespace {

uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// The state one hook keeps for its run.
struct FaultPointState {
  uint64_t activate_one_in = 0;
  uint64_t fire_one_in = 0;
  sim::DiskContext* context = nullptr;
  FaultCounts* counts = nullptr;
  std::map<std::string, bool> active;  // point name -> activated this run

  bool Ask(const char* name) {
    if (activate_one_in == 0) return false;
    const std::string key(name);
    auto it = active.find(key);
    if (it == active.end()) {
      const bool on = context->rng()->OneIn(activate_one_in);
      it = active.emplace(key, on).first;
      context->Fold(Fnv1a("fault_point.activate"));
      context->Fold(Fnv1a(key));
      context->Fold(on ? 1 : 0);
    }
    if (!it->second || !context->rng()->OneIn(fire_one_in)) return false;
    ++(*counts)["fault_point." + key];
    TraceFault(context, "fault_point." + key, nullptr);
    context->Fold(Fnv1a("fault_point.fire"));
    context->Fold(Fnv1a(key));
    return true;
  }
};

}  // namespace

std::function<bool(const char* name)> MakeFaultPointHook(const FaultConfig& config,
                                                         sim::DiskContext* context,
                                                         FaultCounts* counts) {
  assert(context != nullptr && counts != nullptr);
  auto state = std::make_shared<FaultPointState>();
  state->activate_one_in = config.fault_point_activate_one_in;
  state->fire_one_in = config.fault_point_activate_one_in == 0
                           ? 0
                           : std::max<uint64_t>(config.fault_point_fire_one_in, 1);
  state->context = context;
  state->counts = counts;
  return [state](const char* name) { return state->Ask(name); };
}

}  // namespace shale::faults
