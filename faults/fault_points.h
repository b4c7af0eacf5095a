// What the engine must SURVIVE: every named fault point
// (Runtime::FaultPoint, e.g. "flush.before_install",
// "compaction.before_install", "write.wal_sync") is a failure the engine
// itself declared recoverable at that point: the operation it serves fails
// or is retried, it may be indeterminate, and every promise (durability,
// prefix recovery, atomicity, no phantoms, read consistency) still holds.
// Nothing here is silent damage, so there is nothing to merely DETECT.
//
// MakeFaultPointHook: the BUGGIFY idea. The hook, installed with
// Simulation::set_fault_point_hook, activates each point name the first time
// it is asked, with probability 1/config.fault_point_activate_one_in, for
// the rest of the run (activation is per hook: build a new one per run); an
// active point then answers true with probability
// 1/config.fault_point_fire_one_in. With fault points off
// (fault_point_activate_one_in == 0) it answers false and draws nothing.
// Every activation decision and every firing is folded into the context's
// trace; each firing is counted as "fault_point.<name>".
//
// Determinism: draws come from context->rng() in call order; activations
// are remembered in an ordered map keyed by name (not by pointer).
// Thread safety: none (one simulated task runs at a time).
// Ownership: the hook borrows context and counts; both must outlive it.
#pragma once

#include <functional>

#include "faults/disk_fault_injector.h"
#include "faults/swarm.h"
#include "sim/disk_context.h"

namespace shale::faults {

// REQUIRES: context and counts are not null.
std::function<bool(const char* name)> MakeFaultPointHook(const FaultConfig& config,
                                                         sim::DiskContext* context,
                                                         FaultCounts* counts);

}  // namespace shale::faults
