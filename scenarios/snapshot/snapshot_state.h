// SnapshotState: what the `snapshot` scenario's tasks share — the DB, the
// model, the snapshots readers hold, the checks, and the first failure.
//
// Checks (each names its property in a Failure):
//   * "snapshot reads": a Get at a snapshot equals the model's value of the
//     key at the snapshot's sequence;
//   * "snapshot iteration": every position of an iteration at a snapshot
//     (both directions, direction switches, bounded and full) equals the
//     model's at that sequence;
//   * "repeatable snapshot reads": the same read at the same snapshot,
//     repeated later (after more writes, flushes and compactions, and after
//     a final full compaction), gives exactly its first answer;
//   * "no spurious errors": no operation fails (no faults are injected).
// A read's model comparison waits until the model is exact for its
// snapshot (SnapshotModel::CompleteBelow); the answer is kept until then.
//
// Thread safety: all tasks run on the simulation's one thread; the state is
// only touched between seam calls, so it needs no lock.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/snapshot/snapshot_model.h"
#include "scenarios/snapshot/snapshot_reads.h"
#include "shale/db.h"
#include "shale/env.h"

namespace shale::scenario {

// One snapshot a reader took, with the reads made at it (kept to repeat).
struct HeldSnapshot {
  struct Read {
    ReadPlan plan;
    Answer first;
  };
  uint64_t id = 0;
  const Snapshot* snapshot = nullptr;
  uint64_t sequence = 0;
  uint64_t issued_before = 0;  // model.issued() when GetSnapshot returned
  bool long_lived = false;     // never released before the final checks
  uint64_t compactions_at_take = 0;
  std::vector<Read> reads;
};

// What one run did, for the report (RunResult::options_drawn).
struct SnapshotCounters {
  uint64_t writer_ops = 0;
  uint64_t reader_ops = 0;
  uint64_t engine_ops = 0;  // see RunResult::engine_ops
  uint64_t snapshots = 0;
  uint64_t reads_checked = 0;   // compared with the model
  uint64_t reads_deferred = 0;  // of those, compared only after later acks
  uint64_t repeats = 0;
  uint64_t max_compactions_under_snapshot = 0;
};

class SnapshotState {
 public:
  // step: the scheduler's step count (for reports); trace: appends a line
  // to the event trace (shale replay --trace), or null when the run is not
  // traced (no line is built then); fold: folds a hash of every answer the
  // model checks into the run's trace hash.
  SnapshotState(DB* db, Runtime* runtime, std::function<uint64_t()> step,
                std::function<void(const std::string&)> trace, std::function<void(uint64_t)> fold,
                int readers);

  DB* db() const { return db_; }
  // Whether trace lines are wanted, and one line (a no-op when not).
  bool telling() const { return static_cast<bool>(trace_); }
  void Tell(const std::string& line) const {
    if (trace_) trace_(line);
  }
  Runtime* runtime() const { return runtime_; }
  SnapshotModel* model() { return &model_; }
  SnapshotCounters* counters() { return &counters_; }
  bool failed() const { return failed_; }
  const Failure& failure() const { return failure_; }

  // Snapshots. Take returns a snapshot of the DB's latest state.
  HeldSnapshot Take();
  void Release(HeldSnapshot* h);
  // Reads plan at h, checks it against the model (now or once the model is
  // exact for h) and keeps it for repeating if h has room (max_kept).
  void ReadNew(HeldSnapshot* h, const ReadPlan& plan, size_t max_kept);
  // Repeats h's read i and requires its first answer.
  void Repeat(HeldSnapshot* h, size_t i);
  // Compares every kept answer whose snapshot the model is now exact for.
  void DrainDeferred();
  // True when no comparison is waiting (after every write has ended).
  bool nothing_deferred() const { return deferred_.empty(); }
  uint64_t Compactions();

  // Fails the run with "no spurious errors" unless st is OK.
  void CheckStatus(const Status& st, const std::string& what);
  void Fail(const std::string& property, const std::string& key, const std::string& expected,
            const std::string& observed, const std::string& message, uint64_t step);
  uint64_t step() const { return step_(); }

  // Pacing: a reader's i-th operation waits until the writers have done a
  // matching share of theirs, so reads spread over the whole write phase
  // instead of running ahead while writes wait on I/O. Waiting costs
  // scheduling points only when a reader is ahead.
  void StartWriters(int writers) { writers_running_ = writers; }
  void WriterDone();
  void NoteWriterOp();
  void WaitForWriterOps(int reader, uint64_t target);

 private:
  struct Deferred {
    uint64_t snapshot_id, sequence, issued_before, step;
    ReadPlan plan;
    Answer observed;
  };
  struct Waiter {
    std::unique_ptr<Mutex> mu;
    std::unique_ptr<CondVar> cv;
    bool waiting = false;
    uint64_t target = 0;
  };

  void CheckOrDefer(const HeldSnapshot& h, const ReadPlan& plan, const Answer& observed);
  void Verify(const Deferred& d);
  bool WaitOver(const Waiter& w) const {
    return writer_ops_done_ >= w.target || writers_running_ == 0 || failed_;
  }
  void WakeWaiters();

  DB* const db_;
  Runtime* const runtime_;
  const std::function<uint64_t()> step_;
  const std::function<void(uint64_t)> fold_;
  const std::function<void(const std::string&)> trace_;
  SnapshotModel model_;
  SnapshotCounters counters_;
  std::vector<Deferred> deferred_;
  uint64_t next_snapshot_id_ = 1;
  bool failed_ = false;
  Failure failure_;
  std::vector<std::unique_ptr<Waiter>> waiters_;  // one per reader
  uint64_t writer_ops_done_ = 0;
  int writers_running_ = 0;
};

}  // namespace shale::scenario
