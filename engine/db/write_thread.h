// WriteThread: the write path's queues and hand-offs (RocksDB's WriteThread,
// kept under the DB mutex instead of lock-free).
//
// A Writer is one caller of Write/SyncWAL/Flush, on that caller's stack. It
// moves through these states, each change made with the DB mutex held and
// signalled through WakeWriter:
//   kQueued      in a queue (the WAL queue, or the WAL-only queue with
//                two_write_queues); the front one leads a group
//   kWalWritten  pipelined only: its group's WAL record is written, the group
//                waits in the memtable stage for its memtable turn
//   kInsertOwn   it must insert its own batch into insert_into, without the
//                mutex (a parallel group's member, or any unordered writer)
//   kDone        status is final; the caller returns it
//
// A WriteGroup lives on its leader's stack and is touched only with the DB
// mutex held; the leader returns only after the group completed, and
// completion is the last access to it.
//
// Thread safety: every method REQUIRES the DB mutex (the one given to the
// constructor) held. DBImpl keeps its WriteThread ABSL_GUARDED_BY that
// mutex, so clang checks every call; AwaitWakeup may release it while it
// spins. WriteThread never signals the DB's condvar itself: the methods
// after which a waiter on it may proceed say so in their result.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "db/dbformat.h"
#include "db/txn_hooks.h"
#include "shale/env.h"
#include "shale/options.h"
#include "shale/write_batch.h"
#include "util/stats_counters.h"

namespace shale {

class MemTable;

class WriteThread {
 public:
  struct WriteGroup;

  struct Writer {
    enum class State { kQueued, kWalWritten, kInsertOwn, kDone };

    Writer(Runtime* runtime, Mutex* db_mutex) : cv(runtime->NewCondVar(db_mutex)) {}
    WriteBatch* batch = nullptr;  // nullptr: SyncWAL or Flush
    bool sync = false;
    bool disable_wal = false;
    bool force_switch = false;
    const WriteHooks* hooks = nullptr;     // nullptr: a plain write
    std::deque<Writer*>* queue = nullptr;  // the queue it joined
    bool disable_memtable() const { return hooks != nullptr && hooks->disable_memtable; }
    bool publishes() const { return hooks == nullptr || hooks->publish; }
    State state = State::kQueued;
    Status status;
    WriteGroup* group = nullptr;      // kInsertOwn in a group; nullptr: unordered
    MemTable* insert_into = nullptr;  // kInsertOwn
    std::unique_ptr<CondVar> cv;
    // Wake-ups sent to this writer (WakeWriter): changed only with the DB
    // mutex held, read by a spinning waiter without it.
    std::atomic<uint64_t> wakeups{0};
  };

  struct WriteGroup {
    std::vector<Writer*> writers;  // queue order; writers[0] leads
    SequenceNumber last_sequence = 0;
    int inserts_pending = 0;  // parallel inserts not yet finished
    bool pipelined = false;   // completes from the memtable stage, not its queue
    Status status;            // the first error of the group
  };

  // REQUIRES: db_mutex, runtime and stats outlive this; options are the
  // DB's sanitized options (two_write_queues, the adaptive-yield settings).
  WriteThread(const Options& options, Mutex* db_mutex, Runtime* runtime, StatsCounters* stats);
  WriteThread(const WriteThread&) = delete;
  WriteThread& operator=(const WriteThread&) = delete;

  // ---- the queues
  // Appends w to its queue: the WAL-only queue for a WAL-only write with
  // two_write_queues, else the main queue.
  void Join(Writer* w);
  // Whether w is queued at the front of its queue (it leads the next group).
  bool IsLeader(const Writer* w) const;
  // Whether w joined the main queue (whose leaders switch memtables and WALs).
  bool InMainQueue(const Writer* w) const { return w->queue == &writers_; }
  // Gathers the leader's group: the writers behind it that may share its WAL
  // record (same sync, WAL and publish modes, no prepared section, up to a
  // byte budget), into group->writers. Returns the batch to write: the
  // leader's own, or its queue's scratch batch holding every member's
  // records, which the caller clears after the WAL write.
  // REQUIRES: IsLeader(leader); leader->batch != nullptr.
  WriteBatch* BuildBatchGroup(Writer* leader, WriteGroup* group);
  // Finishes the writers of last_writer's queue up to it with status, then
  // Pops them. Returns Pop's result.
  [[nodiscard]] bool CompleteQueued(Writer* last_writer, const Status& status);
  // Dequeues last_writer's queue up to it and wakes the next front writer.
  // Returns true if the queue is now empty.
  [[nodiscard]] bool Pop(Writer* last_writer);

  // ---- the pipelined memtable stage: groups past their WAL write insert
  // in WAL order
  // Appends group to the stage and waits (as w, its leader) until it is the
  // stage's oldest. REQUIRES: the group's writers are kWalWritten and have
  // left their queue (Pop).
  void EnterMemtableStage(Writer* w, WriteGroup* group);
  // Removes the stage's oldest group (group) and wakes the next one's leader.
  void LeaveMemtableStage(WriteGroup* group);

  // ---- unordered inserts in flight (they wait for no group)
  void AddUnorderedInserts(int count) { unordered_inserts_ += count; }
  // Returns true if that was the last unordered insert in flight.
  [[nodiscard]] bool FinishUnorderedInsert() { return --unordered_inserts_ == 0; }

  // Whether an insert may still be headed for the active memtable: a
  // pipelined group in the stage or an unordered insert in flight.
  bool MemtableWritesInFlight() const { return unordered_inserts_ > 0 || !memtable_stage_.empty(); }
  // Whether no writer is queued, staged or inserting.
  bool Idle() const {
    return writers_.empty() && wal_only_writers_.empty() && !MemtableWritesInFlight();
  }

  // ---- hand-offs
  // Every wake-up of a waiting writer goes through WakeWriter, which counts
  // it in the writer's `wakeups` before signalling its condvar. AwaitWakeup
  // returns after a wake-up (or spuriously); the caller re-checks its
  // condition. Where the runtime can spin it first spins on the count with
  // the DB mutex released, and blocks only if no wake-up came.
  void WakeWriter(Writer* w);
  void AwaitWakeup(Writer* w);

 private:
  const uint64_t max_yield_micros_;
  // Waiting writers spin before they block (AwaitWakeup).
  const bool spin_before_blocking_;
  const bool two_write_queues_;
  Mutex* const db_mutex_;
  Runtime* const runtime_;
  StatsCounters* const stats_;
  std::deque<Writer*> writers_;             // the main (WAL) queue
  std::deque<Writer*> wal_only_writers_;    // the second queue (two_write_queues)
  std::deque<WriteGroup*> memtable_stage_;  // pipelined groups past their WAL write
  int unordered_inserts_ = 0;
  WriteBatch main_scratch_;      // the main queue's group batch
  WriteBatch wal_only_scratch_;  // the second queue's
};

}  // namespace shale
