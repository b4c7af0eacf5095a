#include "scenarios/crash_recovery/crash_trigger.h"

#include <cassert>
#include <cstring>

namespace shale::scenario {

CrashTrigger::CrashTrigger(sim::Simulation* sim) : sim_(sim) {
  sim_->set_point_hook([this](const char* name) { OnPoint(name); });
}

CrashTrigger::~CrashTrigger() { sim_->set_point_hook(nullptr); }

const std::vector<const char*>& CrashTrigger::WorkloadTargets() {
  static const std::vector<const char*> kTargets = {
      "manifest.roll",
      "manifest.before_write",
      "manifest.before_set_current",
      "manifest.after_set_current",
      "flush.after_build",
      "flush.before_install",
      "compaction.after_output",
      "compaction.before_install",
      "wal.before_sync",
      "write.after_wal_append",
      "write.before_publish",
      "obsolete.after_delete",
      "wal.after_delete",
  };
  return kTargets;
}

const std::vector<const char*>& CrashTrigger::DiskTargets() {
  static const std::vector<const char*> kTargets = {
      "disk.append", "disk.sync",   "disk.sync_dir", "disk.rename",
      "disk.delete", "disk.create", "disk.reopen",   "disk.close",
  };
  return kTargets;
}

void CrashTrigger::Arm(std::string name, uint64_t hit, std::function<void()> on_fire,
                       uint64_t then_any) {
  assert(hit == 0 || on_fire != nullptr);
  then_any_ = then_any;
  armed_ = true;
  fired_ = false;
  name_ = std::move(name);
  hit_ = hit;
  matches_ = 0;
  points_seen_ = 0;
  on_fire_ = std::move(on_fire);
  gate_ = nullptr;
}

void CrashTrigger::OnPoint(const char* name) {
  if (!armed_) return;
  points_seen_++;
  if (hit_ == 0) return;
  if (!name_.empty() && std::strcmp(name, name_.c_str()) != 0) return;
  if (gate_ && !gate_()) return;
  if (++matches_ < hit_) return;
  if (then_any_ > 0) {  // the named point is reached: count on from it
    sim_->TraceEvent(std::string("crash point reached: ") + name + ", crashing " +
                     std::to_string(then_any_) + " points later");
    name_.clear();
    gate_ = nullptr;
    hit_ = then_any_;
    matches_ = 0;
    then_any_ = 0;
    return;
  }
  armed_ = false;  // on_fire may reach points itself
  fired_ = true;
  sim_->TraceEvent(std::string("crash point reached: ") + name);
  on_fire_();
  sim_->ParkCurrentTask();
}

}  // namespace shale::scenario
