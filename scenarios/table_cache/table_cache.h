// The `table-cache` scenario: the Get-cost study of the RocksDB TableReader
// churn, in simulated time. With a small max_open_files nearly every Get
// re-creates a table reader, and on RocksDB 5.9 each re-creation cost about
// 1.2 ms of system calls (open, fcntl, stat, realpath's lstat chain, an
// fopen of the device's logical_block_size, the footer read): 14k Get/s on
// 40 cores against 300k with max_open_files = -1.
//
// One seed:
//  1. fills a DB (drawn key count, value size and block size; small files
//     and level targets, so a few hundred tables over several levels), lets
//     its compactions settle, and closes it;
//  2. for each Env model (sim/disk/host_cost_fs.h: RocksDB 5.9's open path
//     and Shale's) and each max_open_files setting (5%, 20%, 50% and 100%
//     of the table files, and -1), reopens it over a HostCostFs on a loaded
//     40-core NVMe host, warms the table cache (one full scan, then a few
//     Gets per reader), then runs N reader tasks of random Gets and
//     measures table-reader opens, system calls and simulated time;
//  3. reports those figures per (model, setting) in RunResult::observed
//     (scenarios/table_cache/table_cache_figures.h); the campaign sums them
//     into the table and plot (report/table_cache_study.h).
// Checks, every seed: every Get answers as the model of what was written
// says ("reads match the model"); no call fails ("no spurious errors");
// at -1, no reader is opened after the warm-up ("readers stay open"); and
// the table files open at once never exceed the cache's bound plus one
// pinned per reader ("open tables bounded").
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

// The scenario singleton (registered by RegisterBuiltinScenarios).
const Scenario* TableCacheScenario();

}  // namespace shale::scenario
