// The `snapshot` scenario's tasks: writers (puts, deletes, batches, client
// flushes and compactions), readers (take snapshots, read and iterate at
// them, repeat earlier reads, compact under them, release them), and the
// final checks once both are done.
//
// Thread safety: each function runs as (or in) one simulation task; they
// share only the SnapshotState.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/scenario_run.h"
#include "scenarios/snapshot/snapshot_state.h"
#include "sim/choice_tape.h"

namespace shale::scenario {

struct SnapshotWorkloadOptions {
  int key_space = 100;
  bool skewed_keys = false;
  int value_bytes_max = 100;
  int max_batch = 6;
  int sync_one_in = 20;           // a write is sync with probability 1/sync_one_in
  int no_wal_one_in = 10;         // a non-sync write skips the WAL with 1/no_wal_one_in
  int max_held = 4;               // snapshots one reader holds at once
  size_t max_kept_reads = 8;      // reads kept per snapshot for repeating
  int scan_moves_max = 12;        // moves of a bounded iteration
  uint64_t writer_ops_total = 0;  // for pacing the readers
  // What the engine offers (hosted_engine.h): without Flush, a flush is
  // left to CompactRange (LevelDB's flushes its memtable first); without
  // skipping the WAL, every write logs.
  EngineOffers offers;
};

// Each client asks its tape "one more operation?" before every operation
// (kMoreOpsOneIn).
// One writer's loop: up to ops operations drawn from tape, stopping early
// once the run failed. REQUIRES: tape outlives the task.
void RunSnapshotWriter(SnapshotState* state, const SnapshotWorkloadOptions& options,
                       sim::ChoiceTape* tape, int ops, int writer_id);

// One reader's loop: up to ops operations paced over the writers' progress.
// Snapshots still held at the end (long-lived ones among them) are moved to
// *survivors for the final checks, unreleased.
void RunSnapshotReader(SnapshotState* state, const SnapshotWorkloadOptions& options,
                       sim::ChoiceTape* tape, int ops, int reader_id,
                       std::vector<HeldSnapshot>* survivors);

// After every writer and reader ended: flushes and fully compacts the DB
// with the survivors held, repeats every read kept at them, compares every
// deferred answer, checks full iterations at a fresh snapshot both ways,
// and releases all snapshots.
void FinishSnapshotChecks(SnapshotState* state, const SnapshotWorkloadOptions& options,
                          std::vector<HeldSnapshot>* survivors);

// "key%06d".
std::string SnapshotKeyName(int index);

}  // namespace shale::scenario
