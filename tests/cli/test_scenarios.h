// Scenario doubles for the CLI tests. `shale run` forks its workers from
// the calling process, so doubles registered here run in them too.
//
//   test-fail-on-7  passes every seed except multiples of 7, which fail with
//                   a fixed "durability" failure; trace_hash depends only on
//                   the seed. Probes: even seeds reach write.slowdown,
//                   multiples of 3 compaction.trivial_move.
//   test-crash      seed 3 calls abort(); seed 4 sleeps forever (watchdog);
//                   every other seed passes.
//   test-reads-a-pointer
//                   planted nondeterminism: passes, with a trace hash made
//                   from the address of a fresh map (differs by process).
#pragma once

namespace shale::cli::testing {

// Idempotent. Call at the start of every test that runs a campaign.
void RegisterTestScenarios();

}  // namespace shale::cli::testing
