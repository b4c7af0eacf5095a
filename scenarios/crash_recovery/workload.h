// The crash-recovery workload: client tasks that write, read, iterate,
// flush, compact and sync against a DB inside a Simulation, recording every
// write in a History and checking every read against it.
//
// Checks made while the clients run (scenarios/oracle/history.h has the
// promises):
//   * read consistency: a Get returns a value the key had at some moment
//     during the call (the value after every write acknowledged before the
//     call, or one a write in flight during it gave);
//   * iterators: a forward and a backward pass over one iterator (one
//     implicit snapshot) agree, and each value is one the key could have;
//   * immutable snapshots: reads at a snapshot repeat exactly after a flush
//     and a full compaction;
//   * no spurious errors: with I/O faults off, no operation fails; with
//     them on, an error needs a proof (FaultPlan::Prove): the tag of a
//     fault injected during the read, or, for writes, flushes and
//     compactions, since the DB was opened (a background error stops them
//     until a reopen), or damage to a file that still exists and is named;
//   * real-time order: a write that began after another was acknowledged
//     has a higher sequence; a snapshot is at or past every write
//     acknowledged before GetSnapshot was called (fresh snapshots).
//
// Transactions (WorkloadOptions::transactions; the DB is a TransactionDB):
// a third of the single-key writes become a transaction of 1..max_batch
// Puts/Deletes that, half the time, is named and prepared, then commits
// (7/8) or rolls back. A commit changes the History's state: BeginWrite
// just before Commit(), EndWrite with its log sequence after it (commits
// are ordered by it, as plain writes by their batch's sequence: the order
// recovery replays them in; Transaction::GetLogSequence), synced as
// the transaction's WriteOptions say. A Prepare enters it as a write with
// no key ops (sequence 0), so that its durability is tracked like any
// write's. A WritePrepared rollback of a prepared transaction enters it as
// the write of the keys' old values it is (RollbackPrepared). Any other
// rollback, an unfinished or an aborted (lock conflict) transaction never
// enters it, so any of its values seen by a read or after recovery is a
// phantom. A lock conflict (Busy: deadlock;
// TimedOut) is not a failure: the transaction is rolled back.
//
// Thread safety: all tasks run on the simulation's one thread; the shared
// state here is only touched between seam calls, so it needs no lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "scenarios/crash_recovery/fault_plan.h"
#include "scenarios/engine/hosted_engine.h"
#include "scenarios/oracle/history.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "shale/db.h"
#include "shale/env.h"
#include "shale/transaction_db.h"
#include "sim/choice_tape.h"

namespace shale::scenario {

// The kinds of operation a client draws (Client::Step).
enum class OpKind : uint8_t {
  kWrite,
  kBatch,
  kGet,
  kIterate,
  kBarrier,  // a durability barrier: SyncWAL, or an empty sync write
  kFlush,    // Flush, or CompactRange of every key without it
  kCompact,  // CompactRange of a drawn key range
  kSnapshotReread,
};
inline constexpr size_t kOpKinds = 8;

struct WorkloadOptions {
  int key_space = 400;
  bool skewed_keys = false;
  int value_bytes_max = 200;
  // 1 value in large_value_one_in (0: none) is up to large_value_bytes.
  int large_value_one_in = 0;
  int large_value_bytes = 0;
  int sync_one_in = 8;     // a write is sync with probability 1/sync_one_in
  int no_wal_one_in = 12;  // a non-sync write skips the WAL with 1/no_wal_one_in
  int max_batch = 6;
  bool faults_enabled = false;  // I/O faults on: errors are indeterminate, not failures
  bool transactions = false;    // the DB is a TransactionDB: transactions join the mix
  // A prepared transaction waits up to this long (simulated time; 0: not
  // at all) before its second phase, as a two-phase-commit participant
  // waits for its coordinator. Other clients write meanwhile, so the
  // memtable and its WAL may switch, and a flush retire the Prepare's
  // log, between the Prepare and its commit or rollback marker.
  uint64_t prepare_to_finish_us_max = 0;
  // Reads at one snapshot (or one iterator) repeat. False under
  // unordered_write, which promises only per-key consistency and
  // read-your-own-writes: the forward and backward passes, a Get against
  // its iterator, and a snapshot reread are then not compared.
  bool snapshots_immutable = true;
  // What the engine offers (hosted_engine.h). Without Flush, a flush is a
  // CompactRange of every key, which promises no durability; without
  // SyncWAL, the durability barrier is a sync write of an empty batch (the
  // engine's own promise that a sync write is durable covers the log up
  // to it); without skipping the WAL, every write logs.
  EngineOffers offers;
  // The operation mix: empty for the default one (rare flushes and
  // compactions, as in RocksDB's stress test), else a weight per OpKind
  // (DrawSwarmMix), so a short run can be mostly compactions, or have no
  // reads at all.
  std::vector<uint32_t> mix_weights;
};

// A transaction a client named and prepared (or tried to), for the whole
// run: after a crash, the scenario finds the recovered prepared ones by
// name, checks they may be prepared, and commits (with these ops) or rolls
// them back.
struct NamedTxn {
  enum class End : uint8_t { kNone, kCommitted, kRolledBack };
  // prepare_id of a transaction recovered prepared: recovery found its
  // section on disk, so it was durable.
  static constexpr uint64_t kRecoveredSection = UINT64_MAX;
  std::vector<KeyOp> ops;
  int prepare_phase = -1;  // WorkloadState::phase of its (last) prepare
  uint64_t prepare_id =
      0;  // History id of the section (no ops) in that phase, or kRecoveredSection
  int end_attempt_phase = -1;  // phase of its last Commit or Rollback attempt
  End end = End::kNone;        // its last acknowledged Commit or Rollback
  int end_phase = -1;          // WorkloadState::phase of that acknowledgement
  uint64_t commit_id = 0;      // History id of the commit (kCommitted), in that phase's History
  bool end_sync = false;       // the Commit or Rollback was a sync write
  std::string prepare_wal;     // WorkloadState::newest_wal when its Prepare was acknowledged
  // A crash check found it not prepared after it had ended: it may never
  // come back prepared (no resurrection).
  bool settled = false;
};

// The proof of a write's lock timeout (TimedOut) while a proven error has
// left a prepared transaction holding its locks.
inline constexpr const char* kStuckTransactionProof = "lock held by a stuck prepared transaction";

// The state the client tasks share: the DB, the history, the first failure.
struct WorkloadState {
  DB* db = nullptr;
  TransactionDB* txn_db = nullptr;  // db as a TransactionDB, when transactions are on
  bool write_prepared = false;      // txn_db's write policy is WritePrepared
  History* history = nullptr;
  Runtime* runtime = nullptr;
  uint64_t ops_done = 0;
  uint64_t engine_ops = 0;  // see RunResult::engine_ops
  int phase = 0;            // crashes so far: makes every written value unique
  int clients_running = 0;  // tasks main's WaitForOps waits for (clients, or one opener/closer)
  bool crash_point_reached = false;  // a CrashTrigger fired: main should crash now
  bool failed = false;
  Failure failure;
  // Whether a broken property fails the run (PromiseTable::Checks of the
  // engine's table); null: every property does. A property the engine does
  // not promise still ends the run (its model no longer holds), with
  // broke_unpromised set.
  std::function<bool(const std::string& property)> promised;
  bool broke_unpromised = false;
  std::function<uint64_t()> step;  // the scheduler's step count, for reports
  // Folds a hash into the run's trace hash: every value a check compares
  // goes through it (HashKeyValue), so equal hashes mean equal reads.
  std::function<void(uint64_t)> fold;
  // When the run is traced (shale replay --trace, shale shrink's story):
  // called with one line per workload operation, what it did and what it
  // got back. Null otherwise (no line is built).
  std::function<void(const std::string&)> story;
  // With I/O faults on (null otherwise): the plan's mark and its proof of
  // an error (FaultPlan::Mark, FaultPlan::Prove). An error is accepted only
  // with a proof: a read's from a fault injected since the read began; any
  // other call's since the incarnation began (incarnation_mark: a
  // background error of this incarnation fails later calls with its cause).
  std::function<uint64_t()> fault_mark;
  std::function<ErrorProof(const Status&, uint64_t mark)> prove_error;
  uint64_t incarnation_mark = 0;
  // Errors accepted so far, by proof (ErrorProofName, or
  // kStuckTransactionProof).
  std::map<std::string, uint64_t> accepted_errors;
  // The phase in which a proven error left a prepared transaction holding
  // its locks (a failed Commit or Rollback: it stays prepared until the
  // next crash check); -1 if none. A write may then time out on a lock.
  int stuck_prepared_phase = -1;
  // The newest WAL file's name on the disk now (simulated disks only; null
  // elsewhere).
  std::function<std::string()> newest_wal;
  // Set when a prepared transaction's Commit or Rollback is acknowledged
  // without sync while a newer WAL than the one its Prepare went to is the
  // newest (newest_wal); cleared by the next acknowledged sync write. While
  // set, a finish marker may sit in the live WAL's unsynced tail with its
  // Prepare in an older log that a flush may retire.
  bool unsynced_finish_after_wal_switch = false;
  // Set when a write, commit, flush, compaction or WAL sync failed on a
  // proven error (faults on): the DB may have stopped taking writes (a
  // background error). Once recovery is due (RecoveryDue: after a drawn
  // grace of up to kRecoveryGraceOps more operations, so that an engine
  // that wrongly takes writes after a failure is seen to), the clients
  // stop and the scenario crashes and reopens the DB, rather than let them
  // write into a dead DB.
  bool recovery_wanted = false;
  uint64_t recovery_at_ops = 0;  // ops_done when recovery is due
  std::string recovery_cause;    // the error that first set recovery_wanted
  static constexpr uint64_t kRecoveryGraceOps = 8;
  // Wants recovery for the error cause, due after grace_ops more
  // operations (an earlier want keeps its cause and its due point).
  void WantRecovery(const Status& cause, uint64_t grace_ops) {
    if (!recovery_wanted) {
      recovery_wanted = true;
      recovery_at_ops = ops_done + grace_ops;
      recovery_cause = cause.ToString();
    }
    NoteProgress();
  }
  bool RecoveryDue() const { return recovery_wanted && ops_done >= recovery_at_ops; }
  // Writes (plain writes, batches, prepares, commits, rollbacks) that
  // returned OK, and that failed, over the whole run.
  uint64_t writes_acked = 0;
  uint64_t writes_failed = 0;

  // Transactions. named_txns: every name a client gave a transaction it
  // prepared, whole run (names are unique: "t<phase>.<client>.<op>").
  // txn_commits: the History ids of the current History that are
  // transaction commits (for failure reports). Counters for the report.
  std::map<std::string, NamedTxn> named_txns;
  std::set<uint64_t> txn_commits;
  uint64_t txn_lock_busy = 0;      // Busy (deadlock detected) from Put/Delete
  uint64_t txn_lock_timeouts = 0;  // TimedOut from Put/Delete

  // Set where another process keeps a copy of this state (the real-backend
  // child's journal): told, after the change, of each change to a
  // named_txns record (by name), of each id added to txn_commits, and of
  // the first failure.
  std::function<void(const std::string& name)> txn_changed;
  std::function<void(uint64_t id)> commit_noted;
  std::function<void()> failed_hook;

  // Blocks the calling task (the scenario's main) until ops_done reaches
  // target, no client runs, a crash point was reached, recovery is due,
  // or the run failed.
  // The task that gets there
  // wakes it, so a waiting main costs no scheduling points.
  // REQUIRES: runtime set; one waiter at a time.
  void WaitForOps(uint64_t target);
  // Called by clients after each operation and as they exit.
  void NoteProgress();

  void Fail(const std::string& property, const std::string& key, const std::string& expected,
            const std::string& observed, const std::string& message);

  // History::EndWrite, then the real-time order check: an acknowledged
  // write with ops must have a higher sequence than every write with ops
  // acknowledged before it began. sequence, visible_at: History::EndWrite.
  void EndWrite(uint64_t id, const Status& status, uint64_t sequence, uint64_t visible_at = 0);
  // The same for a transaction's Commit or Rollback: ordered by its log
  // sequence, visible at its commit sequence.
  void EndWrite(uint64_t id, const Status& status, const Transaction& txn);
  // The plan's mark now (0 with faults off): take it before a read.
  uint64_t FaultMark() const { return fault_mark ? fault_mark() : 0; }
  // The plan's proof that st came from its faults since mark, counted in
  // accepted_errors unless kNone; always kNone with faults off (a spurious
  // error). REQUIRES: !st.ok().
  ErrorProof ProveError(const Status& st, uint64_t mark);
  // ProveError(st, mark) != kNone.
  bool AcceptError(const Status& st, uint64_t mark) {
    return ProveError(st, mark) != ErrorProof::kNone;
  }
  // DB::GetSnapshot, checked fresh: its sequence is at or past every
  // write acknowledged before the call.
  const Snapshot* GetFreshSnapshot();

 private:
  bool WaitOver() const {
    return ops_done >= wake_at_ops_ || clients_running == 0 || crash_point_reached || failed ||
           RecoveryDue();
  }

  // One mutex and condvar per wait: a crash may abandon a client that holds
  // the last one, so a wait never reuses it. At most 3 per crash, plus one.
  std::vector<std::unique_ptr<Mutex>> wait_mus_;
  std::unique_ptr<CondVar> wait_cv_;
  bool waiting_ = false;
  uint64_t wake_at_ops_ = 0;
};

// Commits txn and enters the commit in the History as a write of ops
// (ordered by its log sequence, visible at its commit sequence); *id is
// its write id. Returns the Commit's status.
Status CommitTracked(WorkloadState* state, Transaction* txn, std::vector<KeyOp> ops, bool sync,
                     uint64_t* id);

// A WritePrepared rollback of a prepared transaction writes each of its
// keys' committed values back over the prepared data, through the WAL (as
// RocksDB's does), so a value a disable_wal write gave may outlive that
// write. RollbackPrepared enters that write in the History as a write of
// the values: it reads them first (the transaction's locks keep them until
// the rollback) and checks each read against the History. Under
// WriteCommitted a rollback writes only a marker and changes no key.
// Returns the Rollback's status; if a read fails (I/O faults), the
// rollback is not tried and the read's error is returned.
// REQUIRES: txn is prepared and holds the locks on ops' keys.
Status RollbackPrepared(WorkloadState* state, Transaction* txn, const std::vector<KeyOp>& ops,
                        bool sync);

// One client task's loop: up to `ops` operations drawn from tape. Before
// each it asks the tape "one more operation?" (kMoreOpsOneIn); it stops
// early once the state has failed or recovery is due. REQUIRES: state and tape outlive the
// task.
void RunClient(WorkloadState* state, const WorkloadOptions& options, sim::ChoiceTape* tape, int ops,
               int client_id);

std::string KeyName(int index);

// Reads every key and value it yields, from the first, into *out,
// replacing it; returns the iterator's status. The caller owns it (and so
// when it is destroyed).
Status ReadAll(Iterator* it, State* out);

}  // namespace shale::scenario
