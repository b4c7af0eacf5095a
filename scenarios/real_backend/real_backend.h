// Scenario `real-backend`: the crash-recovery workload on real files, with
// real threads, killed with SIGKILL.
//
// One seed: the configuration is drawn from the seed as the simulated
// scenario draws it (engine options, write modes, transactions), and so is
// the kill point: after the n-th write begins, n ms after the DB opened,
// or (under power loss) as the n-th file sync starts. A child process
// opens a fresh DB in a directory of its own under RunConfig::work_dir
// with the POSIX Env, runs 2-4 client threads (their turns taken as in
// turn_db.h), and streams its History, its transactions and its milestones
// to the parent (journal.h), which kills it at the kill point. Half the
// seeds run the child on PowerLossFs, and the parent then carries out a
// power loss on the dead child's files (power_loss_ledger.h). The parent
// reopens the DB and checks it with the crash-recovery oracle, against the
// History it rebuilt from the journal: CheckRecovery (every acknowledged
// WAL write survives a kill; a power loss keeps a prefix that holds every
// write that had to survive), then the recovered prepared transactions
// (recovered_txns.h), which it commits or rolls back before closing.
// Checks the child makes while it runs (read consistency, snapshots,
// real-time order, no spurious errors) fail the seed as in simulation.
//
// A real run is not deterministic: RunResult::deterministic is false and
// its failure carries the journal's lines (RunResult::recorded_history).
//
// Thread safety: Run forks, so call it from a single-threaded process
// (a campaign worker, `shale replay`, a test); it returns with the child
// reaped and its DB closed.
#pragma once

#include "scenarios/scenario.h"

namespace shale::scenario {

const Scenario* RealBackendScenario();

}  // namespace shale::scenario
