// The names under which a crash-recovery run with I/O faults on reports
// what its checks covered (RunResult::observed), shared by the run and
// the campaign report, which sums them (report.h, Totals::FaultsOn).
#pragma once

namespace shale::scenario::fault_figures {

// Writes (plain, batches, prepares, commits, rollbacks) that returned OK,
// and that failed, over the run. Only runs with faults on report them.
inline constexpr const char* kWritesAcked = "writes acknowledged";
inline constexpr const char* kWritesFailed = "writes failed";
// Keys in the key space at every crash check, and those the checks read
// (all but the unreadable ones of a narrowed check).
inline constexpr const char* kKeysAtChecks = "keys at crash checks";
inline constexpr const char* kKeysReadAtChecks = "keys read at crash checks";
// Crash checks that read the DB key by key because a scan failed on
// detected damage, and the keys they could not read (left out of them).
inline constexpr const char* kNarrowedChecks = "crash checks narrowed by detected damage";
inline constexpr const char* kUnreadableKeys = "keys unreadable at crash checks (damage)";
// The largest share of the key space one crash check left out, per mille,
// over the checks that did not end the run (those leaving out a quarter or
// more end it as damage detected).
inline constexpr const char* kWorstCheckPermille =
    "largest share of keys a check left out (per mille)";
// Errors accepted with faults on, by their proof: this prefix, then
// ErrorProofName or kStuckTransactionProof (workload.h).
inline constexpr const char* kAcceptedErrorsPrefix = "accepted errors, proof: ";
// Crashes made at once because a write failed on a proven error.
inline constexpr const char* kDeadDbCrashes = "crashes after a failed write (dead DB)";
// Files the fault plan damaged.
inline constexpr const char* kDamagedFiles = "files damaged";

}  // namespace shale::scenario::fault_figures
