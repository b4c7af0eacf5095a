// The differential scenarios, which `shale diff` runs:
//   diff-options  (`shale diff --against options`, the default): a seed's
//     log (diff_log.h) runs on Shale under several option sets drawn from
//     the seed (block size, buffer and file sizes, level targets, bloom
//     bits, open files, write modes, direct I/O, ...), each on its own
//     simulated disk; every set must answer exactly as the first (the
//     engine's defaults). As Pebble's metamorphic tests.
//   diff-rocksdb  (`shale diff --against rocksdb`): the same log on Shale
//     (defaults, simulated disk) and on RocksDB (Debian's, real files in
//     --out or TMPDIR); needs a binary built with SHALE_BENCH_COMPARE.
// A difference fails the seed, with the log cut down to the shortest one
// that still differs (diff_shrink.h) in the failure file's history, each
// op with both answers. Differences Shale means to have are listed by name
// in diff_scenarios.cc, skipped, and counted in RunResult::observed.
//
// The answers are deterministic (single-threaded logs; Shale's side runs
// in simulations), so the trace hash is a hash of every simulation's trace
// and every answer.
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

const Scenario* DiffOptionsScenario();
const Scenario* DiffRocksDbScenario();

}  // namespace shale::scenario
