#include "scenarios/crash_recovery/recovered_txns.h"

#include <algorithm>

namespace shale::scenario {

namespace {

// Whether an acknowledged write had to survive the crash (as CheckRecovery
// decides it).
bool HadToSurvive(const WriteRecord& w, bool page_cache_kept) {
  return w.must_survive || (page_cache_kept && w.wal);
}

// "Commit" or "Rollback" if t's end was acknowledged in the crashed phase
// and had to survive the crash; else "".
std::string LostEnd(const WorkloadState& state, const NamedTxn& t, bool page_cache_kept) {
  if (t.end_phase != state.phase - 1) return "";
  if (t.end == NamedTxn::End::kCommitted) {
    return HadToSurvive(state.history->writes().at(t.commit_id), page_cache_kept) ? "Commit" : "";
  }
  if (t.end == NamedTxn::End::kRolledBack) {
    // A rollback is a WAL write (never disable_wal), synced if its
    // transaction's WriteOptions say so.
    return t.end_sync || page_cache_kept ? "Rollback" : "";
  }
  return "";
}

}  // namespace

bool CheckRecoveredPrepared(WorkloadState* state, bool page_cache_kept,
                            std::vector<std::string>* prepared) {
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
    if (it->second.settled) {
      state->Fail("prefix recovery", name, "finished", "prepared",
                  "a transaction an earlier recovery showed finished came back prepared");
      return false;
    }
    const std::string lost = LostEnd(*state, it->second, page_cache_kept);
    if (!lost.empty()) {
      state->Fail("durability", name, lost == "Commit" ? "committed" : "rolled back", "prepared",
                  "transaction " + name + "'s " + lost +
                      " had to survive the crash, yet it came back prepared");
      return false;
    }
  }
  // Every other one is finished (or never reached the WAL) in the new base.
  for (auto& [name, t] : state->named_txns) {
    if (!std::binary_search(prepared->begin(), prepared->end(), name)) t.settled = true;
  }
  return true;
}

void ResolvePrepared(WorkloadState* state, const std::vector<std::string>& prepared, Random* rng,
                     bool faults_enabled, const std::function<void(const std::string&)>& trace) {
  bool failed = false;
  for (const std::string& name : prepared) {
    Transaction* txn = state->txn_db->GetTransactionByName(name);
    NamedTxn& t = state->named_txns.at(name);
    const bool commit = rng->OneIn(2);
    Status st;
    uint64_t id = 0;
    if (commit) {
      id = state->history->BeginWrite(t.ops, /*wal=*/true, /*sync=*/false);
      state->txn_commits.insert(id);
      st = txn->Commit();
      state->history->EndWrite(id, st, txn->GetCommitSequence());
    } else {
      st = txn->Rollback();
    }
    trace("recovered prepared " + name + (commit ? ": commit " : ": rollback ") + st.ToString());
    if (st.ok()) {
      t.end = commit ? NamedTxn::End::kCommitted : NamedTxn::End::kRolledBack;
      t.end_phase = state->phase;
      t.commit_id = id;
      t.end_sync = false;
      t.settled = false;
      continue;
    }
    failed = true;
    if (!faults_enabled) {
      return state->Fail("no spurious errors", name, "OK", st.ToString(),
                         std::string(commit ? "Commit" : "Rollback") +
                             " of a recovered prepared transaction failed");
    }
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
                              bool page_cache_kept) {
  if (v.property != "durability" || state.txn_commits.empty()) return "";
  std::vector<const WriteRecord*> acked;
  for (const WriteRecord& w : state.history->writes()) {
    if (w.outcome == WriteRecord::Outcome::kAcked) acked.push_back(&w);
  }
  std::sort(acked.begin(), acked.end(),
            [](const WriteRecord* a, const WriteRecord* b) { return a->sequence < b->sequence; });
  size_t floor = 0;  // the cut had to include acked[0, floor)
  for (size_t i = 0; i < acked.size(); i++) {
    if (HadToSurvive(*acked[i], page_cache_kept)) floor = i + 1;
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
