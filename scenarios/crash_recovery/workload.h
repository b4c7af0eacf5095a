// The crash-recovery workload: client tasks that write, read, iterate,
// flush, compact and sync against a DB inside a Simulation, recording every
// write in a History and checking every read against it.
//
// Checks made while the clients run (BRIEF section 5):
//   * read consistency: a Get returns a value the key had at some moment
//     during the call (the value after every write acknowledged before the
//     call, or one a write in flight during it gave);
//   * iterators: a forward and a backward pass over one iterator (one
//     implicit snapshot) agree, and each value is one the key could have;
//   * immutable snapshots: reads at a snapshot repeat exactly after a flush
//     and a full compaction;
//   * no spurious errors: with I/O faults off, no operation fails.
//
// Thread safety: all tasks run on the simulation's one thread; the shared
// state here is only touched between seam calls, so it needs no lock.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/oracle/history.h"
#include "scenarios/scenario.h"
#include "shale/db.h"
#include "shale/env.h"
#include "util/random.h"

namespace shale::scenario {

struct WorkloadOptions {
  int key_space = 400;
  bool skewed_keys = false;
  int value_bytes_max = 200;
  int sync_one_in = 8;      // a write is sync with probability 1/sync_one_in
  int no_wal_one_in = 12;   // a non-sync write skips the WAL with 1/no_wal_one_in
  int max_batch = 6;
  bool faults_enabled = false;  // I/O faults on: errors are indeterminate, not failures
};

// The state the client tasks share: the DB, the history, the first failure.
struct WorkloadState {
  DB* db = nullptr;
  History* history = nullptr;
  Runtime* runtime = nullptr;
  uint64_t ops_done = 0;
  uint64_t engine_ops = 0;  // see RunResult::engine_ops
  int phase = 0;  // crashes so far: makes every written value unique
  int clients_running = 0;
  bool failed = false;
  Failure failure;
  std::function<uint64_t()> step;  // the scheduler's step count, for reports

  // Blocks the calling task (the scenario's main) until ops_done reaches
  // target, no client runs, or the run failed. The client that gets there
  // wakes it, so a waiting main costs no scheduling points.
  // REQUIRES: runtime set; one waiter at a time.
  void WaitForOps(uint64_t target);
  // Called by clients after each operation and as they exit.
  void NoteProgress();

  void Fail(const std::string& property, const std::string& key, const std::string& expected,
            const std::string& observed, const std::string& message);

 private:
  bool WaitOver() const { return ops_done >= wake_at_ops_ || clients_running == 0 || failed; }

  // One mutex and condvar per wait: a crash may abandon a client that holds
  // the last one, so a wait never reuses it. At most crashes + 1 per run.
  std::vector<std::unique_ptr<Mutex>> wait_mus_;
  std::unique_ptr<CondVar> wait_cv_;
  bool waiting_ = false;
  uint64_t wake_at_ops_ = 0;
};

// One client task's loop: `ops` operations drawn from rng, stopping early
// once the state has failed. REQUIRES: state outlives the task.
void RunClient(WorkloadState* state, const WorkloadOptions& options, uint64_t client_seed,
               int ops, int client_id);

std::string KeyName(int index);

}  // namespace shale::scenario
