// The `unordered-write` scenario: each seed draws a write mode and holds
// the engine to exactly the read promises that mode makes (the RocksDB
// unordered_write documentation):
//
//   mode        atomic reads   read-your-own-writes   immutable snapshots
//   vanilla     kept           kept                   kept
//   pipelined   kept           kept                   kept
//   unordered   dropped        kept                   dropped
//
// Writer tasks write batches that set every key of a group to one new
// version (the invariant: a group's keys agree); reader tasks read whole
// groups at snapshots and through iterators, and reread at the same
// snapshot later. A kept promise's violation fails the seed; a dropped
// promise's violation is counted in RunResult::observed, and the campaign
// summary reports per mode and promise "kept" or "dropped — first observed
// at seed S" (cli/run_summary.cc). Tasks are preempted at the engine's
// named yield points (sim::SimulationOptions::preempt_one_in), so a reader
// can land inside a write that takes no simulated time.
//
// It runs on Shale's engine and on a hosted engine that offers the write
// modes (EngineOffers::write_modes: RocksDB, whose options.h makes these
// promises, its WritePrepared mode through a TransactionDB). A hosted
// engine is held to a mode's promise only where its own promise table
// keeps the property too.
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

// The scenario singleton (registered by RegisterBuiltinScenarios).
const Scenario* UnorderedWriteScenario();

}  // namespace shale::scenario
