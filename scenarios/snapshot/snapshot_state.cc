#include "scenarios/snapshot/snapshot_state.h"

#include <algorithm>

namespace shale::scenario {

SnapshotState::SnapshotState(DB* db, Runtime* runtime, std::function<uint64_t()> step,
                             std::function<void(const std::string&)> trace,
                             std::function<void(uint64_t)> fold, int readers)
    : db_(db),
      runtime_(runtime),
      step_(std::move(step)),
      fold_(std::move(fold)),
      trace_(std::move(trace)) {
  for (int r = 0; r < readers; r++) {
    auto w = std::make_unique<Waiter>();
    w->mu = runtime_->NewMutex();
    w->cv = runtime_->NewCondVar(w->mu.get());
    waiters_.push_back(std::move(w));
  }
}

HeldSnapshot SnapshotState::Take() {
  HeldSnapshot h;
  h.id = next_snapshot_id_++;
  h.compactions_at_take = Compactions();
  h.snapshot = db_->GetSnapshot();
  // Every write begun after GetSnapshot read the last sequence gets a
  // higher one; counting here (no seam call since it returned) can only
  // include more writes, which makes the comparison wait longer, never
  // miss one.
  h.issued_before = model_.issued();
  h.sequence = h.snapshot->GetSequenceNumber();
  counters_.snapshots++;
  Tell("snapshot #" + std::to_string(h.id) + ": taken at sequence " + std::to_string(h.sequence) +
       ", writes begun " + std::to_string(h.issued_before));
  return h;
}

void SnapshotState::Release(HeldSnapshot* h) {
  const uint64_t compactions = Compactions() - h->compactions_at_take;
  counters_.max_compactions_under_snapshot =
      std::max(counters_.max_compactions_under_snapshot, compactions);
  db_->ReleaseSnapshot(h->snapshot);
  h->snapshot = nullptr;
  Tell("snapshot #" + std::to_string(h->id) + ": released after " + std::to_string(compactions) +
       " compactions");
}

uint64_t SnapshotState::Compactions() { return db_->GetStats().compactions; }

void SnapshotState::ReadNew(HeldSnapshot* h, const ReadPlan& plan, size_t max_kept) {
  Answer answer;
  const Status st = ReadEngine(db_, h->snapshot, runtime_, plan, &answer, &counters_.engine_ops);
  if (!st.ok()) return CheckStatus(st, DescribePlan(plan) + " at a snapshot");
  CheckOrDefer(*h, plan, answer);
  if (h->reads.size() < max_kept) h->reads.push_back(HeldSnapshot::Read{plan, std::move(answer)});
}

void SnapshotState::Repeat(HeldSnapshot* h, size_t i) {
  const HeldSnapshot::Read& read = h->reads[i];
  Answer again;
  const Status st =
      ReadEngine(db_, h->snapshot, runtime_, read.plan, &again, &counters_.engine_ops);
  if (!st.ok()) return CheckStatus(st, DescribePlan(read.plan) + " repeated at a snapshot");
  counters_.repeats++;
  const Mismatch m = Compare(read.plan, read.first, again);
  if (!m.found) return;
  Fail("repeatable snapshot reads", m.key, m.expected, m.observed,
       DescribePlan(read.plan) + " at snapshot #" + std::to_string(h->id) + " (sequence " +
           std::to_string(h->sequence) + ") changed its answer at position " +
           std::to_string(m.position) + " when repeated",
       step());
}

void SnapshotState::CheckOrDefer(const HeldSnapshot& h, const ReadPlan& plan,
                                 const Answer& observed) {
  counters_.reads_checked++;
  for (const Position& p : observed) {
    fold_(p.valid ? HashKeyValue(p.key, Value(p.value)) : HashKeyValue(p.key, Value()));
  }
  Deferred d{h.id, h.sequence, h.issued_before, step(), plan, observed};
  if (model_.CompleteBelow(h.issued_before)) return Verify(d);
  counters_.reads_deferred++;
  deferred_.push_back(std::move(d));
}

void SnapshotState::DrainDeferred() {
  if (deferred_.empty() || failed_) return;
  std::vector<Deferred> still;
  for (Deferred& d : deferred_) {
    if (model_.CompleteBelow(d.issued_before)) {
      Verify(d);
    } else {
      still.push_back(std::move(d));
    }
  }
  deferred_ = std::move(still);
}

void SnapshotState::Verify(const Deferred& d) {
  const Answer expected = ReadModel(model_, d.sequence, d.plan);
  const Mismatch m = Compare(d.plan, expected, d.observed);
  if (!m.found) return;
  Fail(d.plan.is_get() ? "snapshot reads" : "snapshot iteration", m.key, m.expected, m.observed,
       DescribePlan(d.plan) + " at snapshot #" + std::to_string(d.snapshot_id) + " (sequence " +
           std::to_string(d.sequence) + ") differs from the model at that sequence at position " +
           std::to_string(m.position),
       d.step);
}

void SnapshotState::CheckStatus(const Status& st, const std::string& what) {
  if (st.ok()) return;
  Fail("no spurious errors", "", "OK", st.ToString(), what + " failed with no fault injected",
       step());
}

void SnapshotState::Fail(const std::string& property, const std::string& key,
                         const std::string& expected, const std::string& observed,
                         const std::string& message, uint64_t at_step) {
  if (failed_) return;
  failed_ = true;
  failure_.property = property;
  failure_.key = key;
  failure_.expected = expected;
  failure_.observed = observed;
  failure_.message = message;
  failure_.step = at_step;
  Tell("check: FAILED " + property + ": " + message);
}

void SnapshotState::NoteWriterOp() {
  counters_.writer_ops++;
  writer_ops_done_++;
  WakeWaiters();
}

void SnapshotState::WriterDone() {
  writers_running_--;
  WakeWaiters();
}

// A reader sets `waiting` and re-checks WaitOver under its mutex, and a
// writer's count update and its look at `waiting` have no seam call between
// them, so no wake-up is lost.
void SnapshotState::WakeWaiters() {
  for (auto& w : waiters_) {
    if (!w->waiting || !WaitOver(*w)) continue;
    w->mu->Lock();
    w->cv->Signal();
    w->mu->Unlock();
  }
}

void SnapshotState::WaitForWriterOps(int reader, uint64_t target) {
  Waiter& w = *waiters_[static_cast<size_t>(reader)];
  w.target = target;
  if (WaitOver(w)) return;
  w.mu->Lock();
  w.waiting = true;
  while (!WaitOver(w)) w.cv->Wait();
  w.waiting = false;
  w.mu->Unlock();
}

}  // namespace shale::scenario
