// The engine half of a scenario's run, shared by every scenario that can
// drive a hosted engine (crash-recovery, snapshot): ready the engine named
// by RunConfig::engine, and describe its drawn options in place of Shale's.
//
// Thread safety: call from the thread that runs the scenario, outside its
// simulation.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>

#include "scenarios/engine/hosted_engine.h"
#include "scenarios/scenario.h"
#include "sim/simulation.h"

namespace shale::scenario {

// Readies config.engine for a run: *hosted is nullptr for Shale's own
// engine, or the hosted engine, prepared (HostedEngine::Prepare). Returns
// false, with the run failed as "hosting" in *result, for an engine name
// nobody registered or one that cannot be hosted here.
bool PrepareRunEngine(const RunConfig& config, RunResult* result, const HostedEngine** hosted);

// A hosted engine's options for one run (HostedEngine::Draw from sim's
// tape, described in *described): they carry the run's planted hosting
// bugs and, when the run is traced, send the engine's info log into sim's
// trace; *described also names the engine and its version ("engine").
// REQUIRES: sim outlives the options.
std::unique_ptr<HostedOptions> DrawHostedOptions(const HostedEngine& engine,
                                                 const RunConfig& config, sim::Simulation* sim,
                                                 std::map<std::string, std::string>* described);

// Keeps, of *described, the keys named and those of the disk ("disk...");
// what else a scenario drew for Shale's engine means nothing for a hosted
// one, whose own draws are described next.
void KeepDescribed(std::initializer_list<const char*> keys,
                   std::map<std::string, std::string>* described);

}  // namespace shale::scenario
