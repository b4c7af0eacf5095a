#include "scenarios/crash_recovery/recovered_txns.h"

#include <algorithm>

namespace shale::scenario {

namespace {

// Whether an acknowledged write had to survive the crash (as CheckRecovery
// decides it).
bool HadToSurvive(const WriteRecord& w, const CheckScope& scope) {
  return scope.durability && MustSurvive(w, scope.process_crash);
}

// "Commit" or "Rollback" if t's end was acknowledged in the crashed phase
// and had to survive the crash; else "".
std::string LostEnd(const WorkloadState& state, const NamedTxn& t, const CheckScope& scope) {
  if (t.end_phase != state.phase - 1) return "";
  if (t.end == NamedTxn::End::kCommitted) {
    return HadToSurvive(state.history->writes().at(t.commit_id), scope) ? "Commit" : "";
  }
  if (t.end == NamedTxn::End::kRolledBack) {
    // A rollback is a WAL write (never disable_wal), synced if its
    // transaction's WriteOptions say so. Where the log is written at
    // acknowledgement (WalWrites::kAtAck) a process crash keeps it too;
    // where the engine buffers the log (kByBarrier), an unsynced rollback
    // reaches the file only with a later barrier, which History does not
    // tie to it: only a synced one is held to survive there.
    const bool written_at_ack = state.history->wal_writes() == WalWrites::kAtAck;
    const bool kept = t.end_sync || (scope.process_crash && written_at_ack);
    return scope.durability && kept ? "Rollback" : "";
  }
  return "";
}

// True if the recovered state holds a WAL write that began after section
// was acknowledged (so was logged after it): among acked[0, min_cut),
// which every cut that fits the state holds.
bool HoldsWriteLoggedAfter(const WriteRecord& section, const std::vector<const WriteRecord*>& acked,
                           uint64_t min_cut) {
  for (uint64_t i = 0; i < min_cut && i < acked.size(); i++) {
    const WriteRecord& w = *acked[i];
    if (w.wal && !w.ops.empty() && w.begin_event > section.end_event) return true;
  }
  return false;
}

// Why t, prepared in the crashed phase, must still be prepared, or
// nullptr if it need not be. It must be if its Prepare had to survive (it
// was synced or a barrier covered it, or the recovered state holds a write
// logged after it) and it did not finish: it never ended, or its
// acknowledged Commit is not among the writes the recovered state holds.
const char* MustBePrepared(const WorkloadState& state, const NamedTxn& t, const CheckScope& scope,
                           const std::vector<const WriteRecord*>& acked,
                           const RecoveryVerdict& verdict) {
  const int crashed = state.phase - 1;
  if (t.prepare_phase != crashed) return nullptr;
  const char* why = "an earlier recovery found its section on disk";
  if (t.prepare_id != NamedTxn::kRecoveredSection) {
    const WriteRecord& section = state.history->writes().at(t.prepare_id);
    if (section.outcome != WriteRecord::Outcome::kAcked) return nullptr;
    if (HadToSurvive(section, scope)) {
      why = "it was synced, or a barrier after it was";
    } else if (scope.durability && HoldsWriteLoggedAfter(section, acked, verdict.min_cut)) {
      why = "the recovered DB holds a write that began after it was acknowledged";
    } else {
      return nullptr;
    }
  }
  if (t.end_attempt_phase != crashed) return why;  // never finished
  if (t.end_phase != crashed || t.end != NamedTxn::End::kCommitted) {
    return nullptr;  // a rollback, or an end that failed or a crash cut short: indeterminate
  }
  for (uint64_t i = 0; i < verdict.cut && i < acked.size(); i++) {
    if (acked[i]->id == t.commit_id) return nullptr;
  }
  return why;
}

}  // namespace

bool CheckRecoveredPrepared(WorkloadState* state, const CheckScope& scope,
                            const RecoveryVerdict& verdict, std::vector<std::string>* prepared) {
  *prepared = state->txn_db->GetPreparedTransactionNames();
  for (const std::string& name : *prepared) {
    const Transaction* txn = state->txn_db->GetTransactionByName(name);
    if (txn == nullptr || txn->GetState() != Transaction::State::kPrepared) {
      state->Fail("transactions", name, "a prepared transaction",
                  txn == nullptr ? "none" : "another state",
                  "GetPreparedTransactionNames lists " + name +
                      " but GetTransactionByName does not give it prepared");
      return false;
    }
    const auto it = state->named_txns.find(name);
    if (it == state->named_txns.end()) {
      state->Fail("no phantoms", name, "no such transaction", "prepared",
                  "recovery brought back a prepared transaction no client prepared");
      return false;
    }
    if (it->second.settled && scope.durability) {
      state->Fail("prefix recovery", name, "finished", "prepared",
                  "a transaction an earlier recovery showed finished came back prepared");
      return false;
    }
    const std::string lost = LostEnd(*state, it->second, scope);
    if (!lost.empty()) {
      state->Fail("durability", name, lost == "Commit" ? "committed" : "rolled back", "prepared",
                  "transaction " + name + "'s " + lost +
                      " had to survive the crash, yet it came back prepared");
      return false;
    }
  }
  // Every other one is finished (or never reached the WAL) in the new base,
  // unless it could not be.
  const std::vector<const WriteRecord*> acked = AckedBySequence(*state->history);
  for (auto& [name, t] : state->named_txns) {
    if (std::binary_search(prepared->begin(), prepared->end(), name)) continue;
    if (const char* why = MustBePrepared(*state, t, scope, acked, verdict)) {
      state->Fail("durability", name, "prepared", "not prepared",
                  "transaction " + name + "'s Prepare had to survive the crash (" + why +
                      ") and it did not finish, yet it did not come back prepared");
      return false;
    }
    t.settled = true;
  }
  return true;
}

void ResolvePrepared(WorkloadState* state, const std::vector<std::string>& prepared,
                     sim::ChoiceTape* rng, bool faults_enabled,
                     const std::function<void(const std::string&)>& trace) {
  bool failed = false;
  for (const std::string& name : prepared) {
    Transaction* txn = state->txn_db->GetTransactionByName(name);
    NamedTxn& t = state->named_txns.at(name);
    const bool commit = rng->OneIn(2);
    t.prepare_phase = state->phase;
    t.prepare_id = NamedTxn::kRecoveredSection;
    t.end_attempt_phase = state->phase;
    if (state->txn_changed) state->txn_changed(name);
    Status st;
    uint64_t id = 0;
    if (commit) {
      st = CommitTracked(state, txn, t.ops, /*sync=*/false, &id);
    } else {
      st = RollbackPrepared(state, txn, t.ops, /*sync=*/false);
    }
    trace("recovered prepared " + name + (commit ? ": commit " : ": rollback ") + st.ToString());
    if (st.ok()) {
      t.end = commit ? NamedTxn::End::kCommitted : NamedTxn::End::kRolledBack;
      t.end_phase = state->phase;
      t.commit_id = id;
      t.end_sync = false;
      t.settled = false;
      if (state->txn_changed) state->txn_changed(name);
      continue;
    }
    failed = true;
    state->stuck_prepared_phase = state->phase;
    if (!faults_enabled || !state->AcceptError(st, state->incarnation_mark)) {
      return state->Fail("no spurious errors", name, "OK", st.ToString(),
                         std::string(commit ? "Commit" : "Rollback") +
                             " of a recovered prepared transaction failed");
    }
    state->WantRecovery(st, /*grace_ops=*/0);  // it holds its keys until then
  }
  if (!failed) RequireNoPrepared(state, "after the recovered prepared transactions were resolved");
}

void RequireNoPrepared(WorkloadState* state, const std::string& when) {
  if (state->txn_db == nullptr || state->failed) return;
  const std::vector<std::string> left = state->txn_db->GetPreparedTransactionNames();
  if (left.empty()) return;
  state->Fail("transactions", left.front(), "none prepared",
              std::to_string(left.size()) + " prepared", "prepared transactions left " + when);
}

std::string LostTxnCommitNote(const WorkloadState& state, const RecoveryVerdict& v,
                              const CheckScope& scope) {
  if (v.property != "durability" || state.txn_commits.empty()) return "";
  const std::vector<const WriteRecord*> acked = AckedBySequence(*state.history);
  size_t floor = 0;  // the cut had to include acked[0, floor)
  for (size_t i = 0; i < acked.size(); i++) {
    if (HadToSurvive(*acked[i], scope)) floor = i + 1;
  }
  const WriteRecord* lost = nullptr;
  for (size_t i = 0; i < floor; i++) {
    for (const KeyOp& op : acked[i]->ops) {
      if (op.key == v.key) lost = acked[i];
    }
  }
  if (lost == nullptr || state.txn_commits.count(lost->id) == 0) return "";
  return std::string(" (the lost write is a transaction commit") + (lost->sync ? ", sync" : "") +
         ")";
}

}  // namespace shale::scenario
