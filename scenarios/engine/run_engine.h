// The engine half of a scenario's run, shared by every scenario that can
// drive a hosted engine (crash-recovery, snapshot): ready the engine named
// by RunConfig::engine, and describe its drawn options in place of Shale's.
//
// Thread safety: call from the thread that runs the scenario, outside its
// simulation.
#pragma once

#include <initializer_list>
#include <map>
#include <string>

#include "scenarios/engine/hosted_engine.h"
#include "scenarios/scenario.h"

namespace shale::scenario {

// Readies config.engine for a run: *hosted is nullptr for Shale's own
// engine, or the hosted engine, prepared (HostedEngine::Prepare). Returns
// false, with the run failed as "hosting" in *result, for an engine name
// nobody registered or one that cannot be hosted here.
bool PrepareRunEngine(const RunConfig& config, RunResult* result, const HostedEngine** hosted);

// Keeps, of *described, the keys named and those of the disk ("disk...");
// what else a scenario drew for Shale's engine means nothing for a hosted
// one, whose own draws are described next.
void KeepDescribed(std::initializer_list<const char*> keys,
                   std::map<std::string, std::string>* described);

}  // namespace shale::scenario
