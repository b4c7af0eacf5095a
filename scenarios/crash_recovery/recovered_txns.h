// The crash-recovery scenario's transaction checks at a crash and at the
// end of a run (transactions on: WorkloadState::txn_db set).
//
// After a crash check passed, the DB's recovered prepared transactions must
// be explainable by what the clients did (WorkloadState::named_txns):
//   * each is reachable by name, in the prepared state ("transactions");
//   * each is one a client named and prepared ("no phantoms");
//   * none had a Commit or Rollback acknowledged that had to survive the
//     crash: a sync one, or any one when the page cache survived
//     ("durability"). A Commit's durability is its History record's, so a
//     SyncWAL or Flush after it counts too;
//   * none was seen finished (not prepared) by an earlier crash check: what
//     a recovery showed is the new base, and must not roll back ("prefix
//     recovery").
// And none is missing ("durability"): a transaction whose Prepare had to
// survive the crash (sync, covered by a later SyncWAL or Flush, or any one
// when the page cache survived; a recovered one always) must come back
// prepared unless it finished: its Commit reached the recovered state
// (within the recovery check's cut), or a Rollback (or a failed or cut-short
// Commit or Rollback, indeterminate) may have.
// Then each is committed (recorded in the fresh History as a write of the
// ops its client prepared, not sync: a recovered transaction has default
// WriteOptions) or rolled back, at random, and none may be left.
//
// Thread safety: none; called from the scenario's main task while no client
// runs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "scenarios/crash_recovery/workload.h"
#include "scenarios/oracle/recovery_check.h"
#include "sim/choice_tape.h"

namespace shale::scenario {

// The checks above, against the crashed phase's History (state->history,
// not yet reset) and state->phase (already past the crashed phase). Fills
// *prepared with the recovered names; on a violation fails state and
// returns false. scope: what the crash check held the state to (the same
// durability rules apply to prepares and ends). verdict: the passing
// RecoveryVerdict (the recovered state holds at least the first min_cut
// acknowledged writes in sequence order, and at most the first cut).
// A Prepare has a place in the cut by real time: a WAL write that began
// after it was acknowledged was logged after it, so a state that must hold
// such a write holds the Prepare too (checked where durability holds: an
// injected WAL flip may drop a log's middle).
// REQUIRES: state->txn_db set.
bool CheckRecoveredPrepared(WorkloadState* state, const CheckScope& scope,
                            const RecoveryVerdict& verdict, std::vector<std::string>* prepared);

// Commits or rolls back each of prepared (rng decides), recording commits in
// state->history (the fresh one); then requires none left, unless an
// operation failed with faults_enabled on an error the plan proves
// (WorkloadState::AcceptError; it stays prepared, and holds its keys,
// until the next crash check, which is wanted at once:
// WorkloadState::WantRecovery). Any other error fails state (no spurious
// errors).
// trace gets one line per transaction.
void ResolvePrepared(WorkloadState* state, const std::vector<std::string>& prepared,
                     sim::ChoiceTape* rng, bool faults_enabled,
                     const std::function<void(const std::string&)>& trace);

// Fails state ("transactions") if the DB has a prepared transaction; when
// says when, for the report. No-op without transactions or once failed.
void RequireNoPrepared(WorkloadState* state, const std::string& when);

// For a durability failure v: " (the lost write is a transaction commit[,
// sync])" if the write the key lost (the newest one touching it up to the
// last write that had to survive, as CheckRecovery's diagnosis finds it) is
// a transaction commit (state->txn_commits); else "".
std::string LostTxnCommitNote(const WorkloadState& state, const RecoveryVerdict& v,
                              const CheckScope& scope);

}  // namespace shale::scenario
