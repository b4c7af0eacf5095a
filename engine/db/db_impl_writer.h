// DBImpl's writer and write-group records (private to engine/db).
//
// A Writer is one caller of Write/SyncWAL/Flush, on that caller's stack. It
// moves through these states, each change made with the DB mutex held and
// signalled on its own condvar:
//   kQueued      in writers_ (the WAL queue); the front one leads a group
//   kWalWritten  pipelined only: its group's WAL record is written, the group
//                waits in memtable_groups_ for its memtable turn
//   kInsertOwn   it must insert its own batch into insert_into, without the
//                mutex (a parallel group's member, or any unordered writer)
//   kDone        status is final; the caller returns it
//
// A WriteGroup lives on its leader's stack and is touched only with the
// mutex held; the leader returns only after the group completed, and
// completion is the last access to it.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <vector>

#include "db/db_impl.h"
#include "shale/env.h"

namespace shale {

struct DBImpl::Writer {
  enum class State { kQueued, kWalWritten, kInsertOwn, kDone };

  Writer(Runtime* runtime, Mutex* mu) : cv(runtime->NewCondVar(mu)) {}
  WriteBatch* batch = nullptr;
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
  // Wake-ups sent to this writer (DBImpl::WakeWriter): changed only with the
  // DB mutex held, read by a spinning waiter without it.
  std::atomic<uint64_t> wakeups{0};
};

struct DBImpl::WriteGroup {
  std::vector<Writer*> writers;  // queue order; writers[0] leads
  SequenceNumber last_sequence = 0;
  int inserts_pending = 0;  // parallel inserts not yet finished
  bool pipelined = false;   // completes from memtable_groups_, not writers_
  Status status;            // the first error of the group
};

}  // namespace shale
