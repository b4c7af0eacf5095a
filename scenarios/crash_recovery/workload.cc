#include "scenarios/crash_recovery/workload.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "absl/strings/str_cat.h"

#include "scenarios/oracle/one_cut.h"
#include "scenarios/oracle/recovery_check.h"

namespace shale::scenario {

namespace {

// What a failed read check says the key should have held: the first value
// the history allows (the settled one, when still possible).
std::string ExpectedText(const std::string& key, const ReadStart& start, const History& history) {
  const std::vector<Value> possible = history.PossibleValues(key, start);
  return possible.empty() ? "<nothing>" : DescribeValue(possible.front());
}

class Client {
 public:
  Client(WorkloadState* state, const WorkloadOptions& options, sim::ChoiceTape* tape, int id)
      : s_(state), o_(options), rng_(tape), id_(id) {}

  void Run(int ops) {
    for (int i = 0; i < ops && !s_->failed && !s_->RecoveryDue() && MoreOps(rng_); i++) {
      op_index_ = i;
      Step(i);
      s_->ops_done++;
      s_->NoteProgress();
    }
  }

 private:
  // The mix, per mille. Flushes and manual compactions are rare, as in
  // RocksDB's stress test: background flushes and compactions of the small
  // drawn buffers and files already form many files and >= 3 levels.
  void Step(int i) {
    if (!o_.mix_weights.empty()) return StepOfKind(i, PickKind());
    const uint64_t pick = rng_->Uniform(1000);
    if (pick < 500 && o_.transactions && rng_->OneIn(3)) return Transact(i);
    if (pick < 500) return Write(i, /*batch=*/false);
    if (pick < 620) return Write(i, /*batch=*/true);
    if (pick < 900) return Get();
    if (pick < 960) return Iterate();
    if (pick < 985) return Barrier(/*flush=*/false);
    if (pick < 993) return Barrier(/*flush=*/true);
    if (pick < 997) return Compact();
    return SnapshotReread();
  }

  // A kind drawn by mix_weights. REQUIRES: some weight is not zero.
  OpKind PickKind() {
    uint64_t total = 0;
    for (const uint32_t w : o_.mix_weights) total += w;
    uint64_t pick = rng_->Uniform(total);
    size_t k = 0;
    while (pick >= o_.mix_weights[k]) pick -= o_.mix_weights[k++];
    return static_cast<OpKind>(k);
  }

  void StepOfKind(int i, OpKind kind) {
    switch (kind) {
      case OpKind::kWrite:
      case OpKind::kBatch:
        if (o_.transactions && rng_->OneIn(3)) return Transact(i);
        return Write(i, /*batch=*/kind == OpKind::kBatch);
      case OpKind::kGet:
        return Get();
      case OpKind::kIterate:
        return Iterate();
      case OpKind::kBarrier:
        return Barrier(/*flush=*/false);
      case OpKind::kFlush:
        return Barrier(/*flush=*/true);
      case OpKind::kCompact:
        return Compact();
      case OpKind::kSnapshotReread:
        return SnapshotReread();
    }
  }

  int PickKey() {
    const uint64_t n = static_cast<uint64_t>(o_.key_space);
    if (!o_.skewed_keys) return static_cast<int>(rng_->Uniform(n));
    return static_cast<int>(rng_->Skewed(12) % n);
  }

  std::string NewValue(int i) {
    std::string v = absl::StrCat("p", s_->phase, ".c", id_, ".", i, ".");
    const bool large = o_.large_value_one_in > 0 && rng_->OneIn(o_.large_value_one_in);
    const int max_bytes = large ? o_.large_value_bytes : o_.value_bytes_max;
    v.resize(v.size() + rng_->Uniform(static_cast<uint64_t>(max_bytes)), 'a' + id_ % 26);
    return v;
  }

  void Write(int i, bool batch) {
    std::vector<KeyOp> ops;
    const int n =
        batch ? 1 + static_cast<int>(rng_->Uniform(static_cast<uint64_t>(o_.max_batch))) : 1;
    WriteBatch wb;
    for (int j = 0; j < n; j++) {
      const std::string key = KeyName(PickKey());
      if (rng_->OneIn(5)) {
        wb.Delete(key);
        ops.push_back(KeyOp{key, std::nullopt});
      } else {
        std::string v = NewValue(i * 16 + j);
        wb.Put(key, v);
        ops.push_back(KeyOp{key, std::move(v)});
      }
    }
    WriteOptions wo;
    wo.sync = rng_->OneIn(static_cast<uint64_t>(o_.sync_one_in));
    // Drawn whether or not the engine can skip its log, so the tape stays.
    wo.disable_wal =
        !wo.sync && rng_->OneIn(static_cast<uint64_t>(o_.no_wal_one_in)) && o_.offers.skip_wal;
    const std::string told = telling() ? DescribeKeyOps(ops) : "";
    const uint64_t id = s_->history->BeginWrite(std::move(ops), !wo.disable_wal, wo.sync);
    const Status st = s_->db->Write(wo, &wb);
    s_->engine_ops += static_cast<uint64_t>(n);
    s_->EndWrite(id, st, wb.Sequence());
    if (telling()) {
      Tell(absl::StrCat(batch ? "batch " : "write ", told, wo.sync ? " (sync)" : "",
                        wo.disable_wal ? " (no WAL)" : "", " -> ", st.ToString()));
    }
    CheckStatus(st, "Write");
  }

  // One transaction (see the file comment in workload.h). Its handle lives
  // only in this call: a crash ends the task without unwinding, so it is
  // never destroyed after the DB is abandoned. Destroyed here, a prepared
  // one whose Commit or Rollback failed (I/O faults) is adopted by the DB
  // and stays prepared until the next crash check resolves it.
  void Transact(int i) {
    WriteOptions wo;
    wo.sync = rng_->OneIn(static_cast<uint64_t>(o_.sync_one_in));
    TransactionOptions to;
    to.deadlock_detect = true;
    std::unique_ptr<Transaction> txn = s_->txn_db->BeginTransaction(wo, to);
    std::optional<LockedRead> locked;
    if (rng_->OneIn(3) && !ReadForUpdate(txn.get(), &locked)) return Abort(txn.get());
    std::vector<KeyOp> ops;
    if (!BufferWrites(txn.get(), i, &ops)) return Abort(txn.get());
    if (rng_->OneIn(3) && !ReadOwnWrite(txn.get(), ops)) return Abort(txn.get());
    if (locked.has_value() && !RereadLocked(txn.get(), *locked, ops)) return Abort(txn.get());
    const bool prepare = rng_->OneIn(2);
    const bool commit = !rng_->OneIn(8);
    NamedTxn* named = nullptr;  // map nodes are stable
    if (prepare) {
      const std::string name = absl::StrCat("t", s_->phase, ".", id_, ".", i);
      Status st = txn->SetName(name);
      if (!st.ok()) {
        s_->Fail("transactions", "", "OK", st.ToString(), "SetName(" + name + ") failed");
        return Abort(txn.get());
      }
      // Known before Prepare starts: a crash during it may leave it prepared.
      named = &s_->named_txns[name];
      named->ops = ops;
      // The section changes no key: History tracks only its durability.
      named->prepare_id = s_->history->BeginWrite({}, /*wal=*/true, wo.sync);
      named->prepare_phase = s_->phase;
      if (s_->txn_changed) s_->txn_changed(name);
      st = txn->Prepare();
      s_->EndWrite(named->prepare_id, st, /*sequence=*/0);
      s_->engine_ops++;
      if (!st.ok()) {
        CheckStatus(st, "Prepare");
        return Abort(txn.get());  // still started: only releases its locks
      }
      if (s_->newest_wal) named->prepare_wal = s_->newest_wal();
      if (o_.prepare_to_finish_us_max > 0) {
        s_->runtime->SleepForMicroseconds(rng_->Uniform(o_.prepare_to_finish_us_max + 1));
      }
    }
    if (telling()) {
      Tell(absl::StrCat("transaction ", DescribeKeyOps(ops), prepare ? ", prepared" : "",
                        commit ? ", commit" : ", rollback", wo.sync ? " (sync)" : ""));
    }
    Finish(txn.get(), named, std::move(ops), commit, wo.sync);
  }

  // The transaction's Puts and Deletes (ops: what it buffered). False if
  // it must end: a lock it could not take (counted), or a failure.
  bool BufferWrites(Transaction* txn, int i, std::vector<KeyOp>* ops) {
    const int n = 1 + static_cast<int>(rng_->Uniform(static_cast<uint64_t>(o_.max_batch)));
    for (int j = 0; j < n; j++) {
      std::string key = KeyName(PickKey());
      Status st;
      if (rng_->OneIn(5)) {
        st = txn->Delete(key);
        ops->push_back(KeyOp{std::move(key), std::nullopt});
      } else {
        std::string v = NewValue(i * 16 + j);
        st = txn->Put(key, v);
        ops->push_back(KeyOp{std::move(key), std::move(v)});
      }
      s_->engine_ops++;
      if (st.ok()) continue;
      if (!CountedLockConflict(st)) {  // Put/Delete only lock and buffer: no I/O that could fail
        s_->Fail("transactions", ops->back().key, "OK, Busy or TimedOut", st.ToString(),
                 "Transaction::Put/Delete failed");
      }
      return false;
    }
    return true;
  }

  // A key a transaction read with GetForUpdate, and what it read.
  struct LockedRead {
    std::string key;
    Value value;
  };

  // GetForUpdate of a random key: it locks the key, and what it reads must
  // be a value the key could have (read consistency). locked: the read,
  // when it succeeded. False if the transaction must end (a lock conflict,
  // counted; a read error, checked; a failure).
  bool ReadForUpdate(Transaction* txn, std::optional<LockedRead>* locked) {
    const std::string key = KeyName(PickKey());
    const ReadStart start = s_->history->BeginRead();
    const uint64_t token = s_->FaultMark();
    std::string value;
    const Status st = txn->GetForUpdate(ReadOptions(), key, &value);
    s_->engine_ops++;
    if (telling())
      Tell(absl::StrCat("transaction get for update ", key, " -> ", ReadText(st, value)));
    if (CountedLockConflict(st)) return false;
    if (!st.ok() && !st.IsNotFound()) return CheckReadStatus(st, token, "GetForUpdate"), false;
    const Value observed = st.ok() ? Value(value) : Value();
    CheckPossible(key, observed, start, "GetForUpdate");
    if (s_->failed) return false;
    *locked = LockedRead{key, observed};
    return true;
  }

  // Transaction::Get of a key the transaction wrote reads its own last
  // write (read-your-own-writes), from its buffer.
  bool ReadOwnWrite(Transaction* txn, const std::vector<KeyOp>& ops) {
    const std::string& key = ops[rng_->Uniform(ops.size())].key;
    std::string value;
    const Status st = txn->Get(ReadOptions(), key, &value);
    s_->engine_ops++;
    if (telling())
      Tell(absl::StrCat("transaction get own write ", key, " -> ", ReadText(st, value)));
    return SameAsExpected(st, value, key, LastWrite(ops, key), "read-your-own-writes",
                          "Transaction::Get of a key the transaction wrote");
  }

  // Transaction::Get of the key GetForUpdate locked: no other writer could
  // change it since (strict two-phase locking), so it reads the same value,
  // or the transaction's own write if it wrote the key since (isolation).
  // Where unordered writes make a write visible after its writer released
  // the lock (snapshots_immutable false), the value may move; not checked.
  bool RereadLocked(Transaction* txn, const LockedRead& locked, const std::vector<KeyOp>& ops) {
    const uint64_t token = s_->FaultMark();
    std::string value;
    const Status st = txn->Get(ReadOptions(), locked.key, &value);
    s_->engine_ops++;
    if (telling())
      Tell(absl::StrCat("transaction get locked ", locked.key, " -> ", ReadText(st, value)));
    if (!st.ok() && !st.IsNotFound()) return CheckReadStatus(st, token, "Transaction::Get"), false;
    const bool own =
        std::any_of(ops.begin(), ops.end(), [&](const KeyOp& op) { return op.key == locked.key; });
    if (!own && !o_.snapshots_immutable) return true;
    return SameAsExpected(st, value, locked.key, own ? LastWrite(ops, locked.key) : locked.value,
                          own ? "read-your-own-writes" : "isolation",
                          own ? "Transaction::Get of a key the transaction wrote"
                              : "Transaction::Get of a key GetForUpdate locked read another value");
  }

  static Value LastWrite(const std::vector<KeyOp>& ops, const std::string& key) {
    Value last;
    for (const KeyOp& op : ops) {
      if (op.key == key) last = op.value;
    }
    return last;
  }

  static std::string ReadText(const Status& st, const std::string& value) {
    return st.ok() ? DescribeValue(Value(value)) : st.ToString();
  }

  // Fails property (and returns false) unless the read returned expected.
  bool SameAsExpected(const Status& st, const std::string& value, const std::string& key,
                      const Value& expected, const char* property, const char* what) {
    const Value observed = st.ok() ? Value(value) : Value();
    if ((st.ok() || st.IsNotFound()) && observed == expected) return true;
    s_->Fail(property, key, DescribeValue(expected),
             st.ok() || st.IsNotFound() ? DescribeValue(observed) : st.ToString(), what);
    return false;
  }

  // A lock the transaction could not take: Busy (a deadlock was found) or
  // TimedOut; counted, and the transaction ends.
  bool CountedLockConflict(const Status& st) {
    if (st.IsBusy()) s_->txn_lock_busy++;
    if (st.IsTimedOut()) s_->txn_lock_timeouts++;
    return st.IsBusy() || st.IsTimedOut();
  }

  // The second phase: Commit, or Rollback. named: the transaction's record
  // if it was prepared (else nullptr).
  void Finish(Transaction* txn, NamedTxn* named, std::vector<KeyOp> ops, bool commit, bool sync) {
    Status st;
    uint64_t id = 0;
    if (named != nullptr) {
      named->end_attempt_phase = s_->phase;
      if (s_->txn_changed) s_->txn_changed(txn->GetName());
    }
    if (commit) {
      st = CommitTracked(s_, txn, std::move(ops), sync, &id);
    } else if (named != nullptr) {
      st = RollbackPrepared(s_, txn, named->ops, sync);
    } else {
      st = txn->Rollback();
    }
    s_->engine_ops++;
    if (st.ok() && named != nullptr) {
      named->end = commit ? NamedTxn::End::kCommitted : NamedTxn::End::kRolledBack;
      named->end_phase = s_->phase;
      named->commit_id = id;
      named->end_sync = sync;
      if (!sync && s_->newest_wal && s_->newest_wal() != named->prepare_wal) {
        s_->unsynced_finish_after_wal_switch = true;
      }
      if (s_->txn_changed) s_->txn_changed(txn->GetName());
    }
    CheckStatus(st, commit ? "Commit" : "Rollback");
    if (!st.ok() && named != nullptr && !s_->failed) s_->stuck_prepared_phase = s_->phase;
  }

  // Rolls back a transaction that is still started: no WAL write, so it
  // cannot fail but by a bug.
  void Abort(Transaction* txn) {
    const Status st = txn->Rollback();
    if (!st.ok()) {
      s_->Fail("transactions", "", "OK", st.ToString(), "Rollback of a started transaction failed");
    }
  }

  void Get() {
    const std::string key = KeyName(PickKey());
    const ReadStart start = s_->history->BeginRead();
    const uint64_t token = s_->FaultMark();
    std::string value;
    const Status st = s_->db->Get(ReadOptions(), key, &value);
    s_->engine_ops++;
    if (telling()) {
      Tell(
          absl::StrCat("get ", key, " -> ", st.ok() ? DescribeValue(Value(value)) : st.ToString()));
    }
    if (!st.ok() && !st.IsNotFound()) return CheckReadStatus(st, token, "Get");
    const Value observed = st.ok() ? Value(value) : Value();
    CheckPossible(key, observed, start, "Get");
  }

  // A bounded scan, as RocksDB's stress test does: Seek to a random key,
  // walk up to kScanEntries forward, then come back over the same entries
  // with SeekForPrev/Prev on the same iterator (one snapshot: implicit, or
  // half the time explicit): both passes must agree, every value must be
  // one its key could have, and every key the scan passed over must be one
  // that may be absent (completeness). With an explicit snapshot, a Get at
  // it must agree with the iterator on a key it returned and on one it
  // passed over.
  void Iterate() {
    constexpr size_t kScanEntries = 16;
    const ReadStart since = s_->history->BeginRead();
    const Snapshot* snapshot = rng_->OneIn(2) ? s_->GetFreshSnapshot() : nullptr;
    ReadOptions ro;
    ro.snapshot = snapshot;
    const int start = PickKey();
    const uint64_t token = s_->FaultMark();
    Scan scan;
    {
      std::unique_ptr<Iterator> it(s_->db->NewIterator(ro));
      scan = Walk(it.get(), start, kScanEntries, since, token);
    }
    if (telling()) {
      Tell(absl::StrCat("scan from ", KeyName(start), snapshot ? " at a snapshot" : "", " -> ",
                        scan.entries.size(), " entries",
                        scan.entries.empty() ? "" : ", first " + scan.entries.front().first));
    }
    if (!s_->failed && scan.ok) {
      CheckComplete(scan.passed_over, since);
      if (snapshot != nullptr && !s_->failed && o_.snapshots_immutable) {
        CompareGets(ro, scan);
      }
    }
    if (snapshot != nullptr) s_->db->ReleaseSnapshot(snapshot);
  }

  struct Scan {
    bool ok = false;
    bool to_end = false;  // the walk ran off the last key
    std::vector<std::pair<std::string, std::string>> entries;
    std::vector<std::string> passed_over;  // PassedOver, once the forward pass is done
  };

  // The forward and backward passes of Iterate; checks them and their
  // values (since: when the read began, before the iterator's snapshot). ok:
  // both passes agreed and every value was possible.
  Scan Walk(Iterator* it, int start, size_t max_entries, const ReadStart& since, uint64_t token) {
    Scan scan;
    std::vector<std::pair<std::string, std::string>>& forward = scan.entries;
    std::vector<std::pair<std::string, std::string>> backward;
    for (it->Seek(KeyName(start)); it->Valid() && forward.size() < max_entries; it->Next()) {
      forward.emplace_back(it->key().ToString(), it->value().ToString());
    }
    scan.to_end = !it->Valid();
    scan.passed_over = PassedOver(start, scan);
    if (!forward.empty() && it->status().ok()) {
      for (it->SeekForPrev(forward.back().first); it->Valid() && backward.size() < forward.size();
           it->Prev()) {
        backward.emplace_back(it->key().ToString(), it->value().ToString());
      }
    }
    s_->engine_ops += 2 + forward.size() + backward.size();  // Seek, SeekForPrev, Next/Prev each
    if (!it->status().ok()) {
      CheckReadStatus(it->status(), token, "Iterator");
      return scan;
    }
    std::reverse(backward.begin(), backward.end());
    if (!o_.snapshots_immutable) {  // else compared whole below
      for (const auto& [k, v] : backward) {
        CheckPossible(k, Value(v), since, "Iterator");
        if (s_->failed) return scan;
      }
    }
    // The forward pass read at one snapshot: one sequence explains it.
    if (o_.snapshots_immutable && !CheckOneCut(scan)) return scan;
    if (o_.snapshots_immutable && forward != backward) {
      s_->Fail("read consistency", forward.empty() ? "" : forward.front().first,
               std::to_string(forward.size()) + " entries forward",
               std::to_string(backward.size()) + " entries backward",
               "one iterator's forward and backward passes disagree");
      return scan;
    }
    for (const auto& [k, v] : forward) {
      CheckPossible(k, Value(v), since, "Iterator");
      if (s_->failed) return scan;
    }
    scan.ok = true;
    return scan;
  }

  // The keys from the seek target (key index start) up to the scan's last
  // entry, or to the end of the key space if the walk ran off the end, that
  // the scan did not return, in order.
  std::vector<std::string> PassedOver(int start, const Scan& scan) const {
    std::vector<std::string> keys;
    size_t next = 0;  // scan.entries[next]: the next returned key
    for (int i = start; i < o_.key_space; i++) {
      std::string key = KeyName(i);
      if (!scan.to_end && (scan.entries.empty() || key > scan.entries.back().first)) break;
      while (next < scan.entries.size() && scan.entries[next].first < key) next++;
      if (next < scan.entries.size() && scan.entries[next].first == key) continue;
      keys.push_back(std::move(key));
    }
    return keys;
  }

  // Every key a scan passed over must be one that may be absent during the
  // call (completeness).
  void CheckComplete(const std::vector<std::string>& passed_over, const ReadStart& since) {
    for (const std::string& key : passed_over) {
      if (s_->history->Observe(key, since, Value())) continue;
      return s_->Fail("read consistency", key, ExpectedText(key, since, *s_->history), "<absent>",
                      "an iterator passed over a key that existed throughout the call");
    }
  }

  // Batch atomicity across keys: the iterator read at one snapshot, so one
  // sequence explains every value it returned and every key it passed over
  // (OneCutExplains): a batch is seen whole or not at all.
  // False (the run failed) if not.
  bool CheckOneCut(const Scan& scan) {
    std::vector<KeyObservation> observed;
    for (const auto& [k, v] : scan.entries) observed.emplace_back(k, Value(v));
    for (const std::string& k : scan.passed_over) observed.emplace_back(k, Value());
    std::string key;
    if (OneCutExplains(*s_->history, observed, &key)) return true;
    const auto seen = std::find_if(observed.begin(), observed.end(),
                                   [&key](const KeyObservation& o) { return o.first == key; });
    s_->Fail("atomicity", key, "the value at a sequence that explains the scan's other keys",
             DescribeValue(seen->second),
             "one iterator saw part of a batch: no one sequence explains the values it read");
    return false;
  }

  // At one explicit snapshot, Get agrees with the iterator: on a key the
  // scan returned (drawn), and on the first key in its range it passed over.
  void CompareGets(const ReadOptions& ro, const Scan& scan) {
    std::vector<std::pair<std::string, Value>> probes;
    if (!scan.entries.empty()) {
      const auto& [k, v] = scan.entries[rng_->Uniform(scan.entries.size())];
      probes.emplace_back(k, Value(v));
    }
    if (!scan.passed_over.empty()) probes.emplace_back(scan.passed_over.front(), Value());
    for (const auto& [key, expected] : probes) {
      const uint64_t token = s_->FaultMark();
      std::string value;
      const Status st = s_->db->Get(ro, key, &value);
      s_->engine_ops++;
      if (!st.ok() && !st.IsNotFound()) return CheckReadStatus(st, token, "Get at a snapshot");
      const Value observed = st.ok() ? Value(value) : Value();
      if (s_->fold) s_->fold(HashKeyValue(key, observed));
      if (observed == expected) continue;
      return s_->Fail("read consistency", key, DescribeValue(expected), DescribeValue(observed),
                      "Get and an iterator at one snapshot disagree");
    }
  }

  // Immutable snapshots: reads at one snapshot give the same answers before
  // and after a flush and a compaction of their key range.
  void SnapshotReread() {
    const Snapshot* snap = s_->GetFreshSnapshot();
    ReadOptions ro;
    ro.snapshot = snap;
    std::vector<std::string> keys;
    std::vector<Value> first;
    for (int j = 0; j < 4; j++) {
      keys.push_back(KeyName(PickKey()));
      const uint64_t token = s_->FaultMark();
      std::string v;
      const Status st = s_->db->Get(ro, keys.back(), &v);
      if (!st.ok() && !st.IsNotFound()) {
        s_->db->ReleaseSnapshot(snap);
        return CheckReadStatus(st, token, "Get at a snapshot");
      }
      first.push_back(st.ok() ? Value(v) : Value());
    }
    // Compact just the keys read: the versions they need are what a
    // compaction could wrongly drop.
    const auto [lo, hi] = std::minmax_element(keys.begin(), keys.end());
    const Slice lo_key(*lo), hi_key(*hi);
    Status st = o_.offers.flush ? s_->db->Flush(FlushOptions()) : Status::OK();
    if (st.ok()) st = s_->db->CompactRange(CompactRangeOptions(), &lo_key, &hi_key);
    for (size_t j = 0; st.ok() && j < keys.size() && !s_->failed; j++) {
      std::string v;
      const Status again = s_->db->Get(ro, keys[j], &v);
      if (!again.ok() && !again.IsNotFound()) {
        st = again;
        break;
      }
      const Value second = again.ok() ? Value(v) : Value();
      if (o_.snapshots_immutable && second != first[j]) {
        s_->Fail("immutable snapshots", keys[j], DescribeValue(first[j]), DescribeValue(second),
                 "a read at one snapshot changed after a flush and compaction");
      }
    }
    s_->db->ReleaseSnapshot(snap);
    s_->engine_ops += 2 * keys.size() + 2;
    if (telling())
      Tell("snapshot reread of 4 keys around a flush and compaction -> " + st.ToString());
    CheckStatus(st, "Flush/CompactRange");
  }

  void Barrier(bool flush) {
    if (flush && !o_.offers.flush) return CompactAll();
    if (!flush) return WalBarrier();
    const uint64_t token = s_->history->DurabilityBarrierStart();
    const Status st = s_->db->Flush(FlushOptions());
    s_->engine_ops++;
    if (st.ok()) {
      s_->history->FlushDone(token);
      s_->unsynced_finish_after_wal_switch = false;
    }
    if (telling()) Tell("flush -> " + st.ToString());
    CheckStatus(st, "Flush");
  }

  // SyncWAL, or a sync write of no keys where the engine has none. An
  // engine that buffers its log draws among SyncWAL (which syncs only what
  // is in the file), FlushWAL(false) (into the file, not synced) and
  // FlushWAL(true) (both).
  void WalBarrier() {
    enum Kind : uint64_t { kSyncWal, kFlushWal, kFlushAndSyncWal, kEmptySyncWrite };
    static const char* const kWhat[] = {"sync WAL", "flush WAL", "flush and sync WAL",
                                        "empty sync write"};
    static const char* const kCall[] = {"SyncWAL", "FlushWAL", "FlushWAL", "Write"};
    const Kind kind = !o_.offers.sync_wal ? kEmptySyncWrite
                      : s_->history->wal_writes() == WalWrites::kByBarrier
                          ? static_cast<Kind>(rng_->Uniform(3))
                          : kSyncWal;
    const uint64_t token =
        kind == kSyncWal ? s_->history->SyncWalStart() : s_->history->DurabilityBarrierStart();
    const Status st = kind == kSyncWal          ? s_->db->SyncWAL()
                      : kind == kEmptySyncWrite ? EmptySyncWrite()
                                                : s_->db->FlushWAL(kind == kFlushAndSyncWal);
    s_->engine_ops++;
    if (st.ok() && kind == kFlushWal) {
      s_->history->WalFlushDone(token);
    } else if (st.ok()) {
      s_->history->SyncWalDone(token);
      s_->unsynced_finish_after_wal_switch = false;
    }
    if (telling()) Tell(std::string(kWhat[kind]) + " -> " + st.ToString());
    CheckStatus(st, kCall[kind]);
  }

  // A sync write of no keys: the barrier of an engine without SyncWAL.
  Status EmptySyncWrite() {
    WriteBatch empty;
    WriteOptions wo;
    wo.sync = true;
    return s_->db->Write(wo, &empty);
  }

  // The flush of an engine without Flush: every key compacted, no
  // durability claimed.
  void CompactAll() {
    const Status st = s_->db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
    s_->engine_ops++;
    if (telling()) Tell("compact everything (no Flush) -> " + st.ToString());
    CheckStatus(st, "CompactRange");
  }

  void Compact() {
    std::string a = KeyName(PickKey()), b = KeyName(PickKey());
    if (b < a) std::swap(a, b);
    Slice lo(a), hi(b);
    const Status st = s_->db->CompactRange(CompactRangeOptions(), &lo, &hi);
    s_->engine_ops++;
    if (telling()) Tell(absl::StrCat("compact [", a, ", ", b, "] -> ", st.ToString()));
    CheckStatus(st, "CompactRange");
  }

  bool telling() const { return static_cast<bool>(s_->story); }
  // One story line: "client<id> op <i>: what". REQUIRES: telling().
  void Tell(const std::string& what) {
    s_->story(absl::StrCat("client", id_, " op ", op_index_, ": ", what));
  }

  void CheckPossible(const std::string& key, const Value& observed, const ReadStart& since,
                     const char* what) {
    if (s_->fold) s_->fold(HashKeyValue(key, observed));
    if (s_->history->Observe(key, since, observed)) return;
    s_->Fail("read consistency", key, ExpectedText(key, since, *s_->history),
             DescribeValue(observed),
             std::string(what) + " returned a value the key never had during the call");
  }

  // Any call but a read: its error may come from a fault injected since
  // the DB was opened.
  void CheckStatus(const Status& st, const char* what) {
    if (st.ok()) return;
    if (s_->AcceptError(st, s_->incarnation_mark)) {
      return s_->WantRecovery(st, rng_->Uniform(WorkloadState::kRecoveryGraceOps + 1));
    }
    if (st.IsTimedOut() && s_->stuck_prepared_phase == s_->phase) {
      s_->accepted_errors[kStuckTransactionProof]++;
      return;
    }
    s_->Fail("no spurious errors", "", "OK", st.ToString(),
             std::string(what) + (o_.faults_enabled ? " failed with an error no fault injected "
                                                      "since Open and no damaged file explains"
                                                    : " failed with no I/O fault injected"));
  }

  // A read's error (mark: WorkloadState::FaultMark before the read).
  void CheckReadStatus(const Status& st, uint64_t mark, const char* what) {
    if (st.ok() || s_->AcceptError(st, mark)) return;
    s_->Fail("no spurious errors", "", "OK", st.ToString(),
             std::string(what) + (o_.faults_enabled ? " failed with an error no fault injected "
                                                      "during it and no damaged file explains"
                                                    : " failed with no I/O fault injected"));
  }

  WorkloadState* const s_;
  const WorkloadOptions o_;
  sim::ChoiceTape* const rng_;
  int op_index_ = 0;  // of the operation running (story lines)
  const int id_;
};

}  // namespace

Status CommitTracked(WorkloadState* state, Transaction* txn, std::vector<KeyOp> ops, bool sync,
                     uint64_t* id) {
  *id = state->history->BeginWrite(std::move(ops), /*wal=*/true, sync);
  state->txn_commits.insert(*id);
  if (state->commit_noted) state->commit_noted(*id);
  const Status st = txn->Commit();
  state->EndWrite(*id, st, *txn);
  return st;
}

Status RollbackPrepared(WorkloadState* state, Transaction* txn, const std::vector<KeyOp>& ops,
                        bool sync) {
  if (!state->write_prepared) return txn->Rollback();
  std::vector<KeyOp> restore;
  const ReadStart since = state->history->BeginRead();
  for (const KeyOp& op : ops) {
    const bool seen = std::any_of(restore.begin(), restore.end(),
                                  [&op](const KeyOp& r) { return r.key == op.key; });
    if (seen) continue;
    std::string value;
    const Status st = state->db->Get(ReadOptions(), op.key, &value);
    state->engine_ops++;
    if (!st.ok() && !st.IsNotFound()) return st;
    const Value observed = st.ok() ? Value(value) : Value();
    if (state->fold) state->fold(HashKeyValue(op.key, observed));
    if (!state->history->Observe(op.key, since, observed)) {
      state->Fail("read consistency", op.key, ExpectedText(op.key, since, *state->history),
                  DescribeValue(observed),
                  "Get before a rollback returned a value the key never had");
      return Status::Aborted("read consistency failed");
    }
    restore.push_back(KeyOp{op.key, observed});
  }
  const uint64_t id = state->history->BeginWrite(std::move(restore), /*wal=*/true, sync);
  const Status st = txn->Rollback();
  state->EndWrite(id, st, *txn);
  return st;
}

void WorkloadState::EndWrite(uint64_t id, const Status& status, const Transaction& txn) {
  EndWrite(id, status, txn.GetLogSequence(), txn.GetCommitSequence());
}

void WorkloadState::EndWrite(uint64_t id, const Status& status, uint64_t sequence,
                             uint64_t visible_at) {
  history->EndWrite(id, status, sequence, visible_at);
  ++(status.ok() ? writes_acked : writes_failed);
  const WriteRecord& w = history->writes()[id];
  if (w.outcome == WriteRecord::Outcome::kAcked && w.sync) unsynced_finish_after_wal_switch = false;
  if (w.outcome != WriteRecord::Outcome::kAcked || w.ops.empty()) return;
  if (w.sequence > w.sequence_floor) return;
  Fail("real-time order", w.ops.front().key, "a sequence above " + std::to_string(w.sequence_floor),
       std::to_string(w.sequence),
       "a write that began after another was acknowledged got a sequence not above it");
}

const Snapshot* WorkloadState::GetFreshSnapshot() {
  const uint64_t floor = history->max_acked_sequence();
  const Snapshot* snapshot = db->GetSnapshot();
  if (snapshot->GetSequenceNumber() < floor) {
    Fail("fresh snapshots", "", "a sequence at or past " + std::to_string(floor),
         std::to_string(snapshot->GetSequenceNumber()),
         "a snapshot missed a write acknowledged before GetSnapshot was called");
  }
  return snapshot;
}

ErrorProof WorkloadState::ProveError(const Status& st, uint64_t mark) {
  if (!prove_error) return ErrorProof::kNone;
  const ErrorProof proof = prove_error(st, mark);
  if (proof != ErrorProof::kNone) accepted_errors[ErrorProofName(proof)]++;
  return proof;
}

void WorkloadState::Fail(const std::string& property, const std::string& key,
                         const std::string& expected, const std::string& observed,
                         const std::string& message) {
  if (failed) return;
  failed = true;
  broke_unpromised = promised && !promised(property);
  failure.property = property;
  failure.key = key;
  failure.expected = expected;
  failure.observed = observed;
  failure.message = message;
  failure.step = step ? step() : 0;
  if (failed_hook) failed_hook();
}

void WorkloadState::WaitForOps(uint64_t target) {
  wait_mus_.push_back(runtime->NewMutex());
  Mutex* mu = wait_mus_.back().get();
  wait_cv_ = runtime->NewCondVar(mu);
  wake_at_ops_ = target;
  mu->Lock();
  waiting_ = true;
  while (!WaitOver()) wait_cv_->Wait();
  waiting_ = false;
  mu->Unlock();
}

// No seam call between main's check and its Wait, so a client that sees
// waiting_ false cannot miss it: main will check WaitOver itself.
void WorkloadState::NoteProgress() {
  if (!waiting_ || !WaitOver()) return;
  Mutex* mu = wait_mus_.back().get();
  mu->Lock();
  wait_cv_->Signal();
  mu->Unlock();
}

void RunClient(WorkloadState* state, const WorkloadOptions& options, sim::ChoiceTape* tape, int ops,
               int client_id) {
  Client client(state, options, tape, client_id);
  client.Run(ops);
}

Status ReadAll(Iterator* it, State* out) {
  out->clear();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    (*out)[it->key().ToString()] = it->value().ToString();
  }
  return it->status();
}

std::string KeyName(int index) {
  // "key%06d" without printf: it runs for every operation's key.
  std::string name = "key000000";
  for (size_t i = name.size(); index > 0 && i > 3; i--, index /= 10) {
    name[i - 1] = static_cast<char>('0' + index % 10);
  }
  return name;
}

}  // namespace shale::scenario
