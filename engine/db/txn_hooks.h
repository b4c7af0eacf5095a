// The seams between DBImpl and the transaction layer (engine/txn/).
//
// A plain DB uses none of them. TransactionDB installs them on its DBImpl
// before Open, so recovery, compaction and WAL retention already see the
// transactions' state:
//   * WriteHooks ride on one write: WAL-only writes (prepared sections,
//     commit markers), writes that must not publish their sequence
//     (WritePrepared with two write queues), and callbacks at the two points
//     where a write's sequence numbers become known and become visible.
//   * ReadCallback hides sequence numbers a reader must not see (prepared
//     but uncommitted, or committed after the reader's snapshot).
//   * TxnStateHooks answers compaction and WAL retention, and receives the
//     transaction markers found while replaying the WAL.
//
// Thread safety: every callback may run on any writer, reader or background
// thread, with the DB mutex held (lock order: DB mutex, then the hook's own
// lock); none may call back into the DB.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "db/dbformat.h"
#include "shale/slice.h"
#include "shale/write_batch.h"

namespace shale {

struct WriteHooks {
  // Write the WAL only (the batch's data records, if any, stay out of the
  // memtable). With two_write_queues these writes use the second queue.
  bool disable_memtable = false;
  // Publish the batch's last sequence to readers when the write completes.
  bool publish = true;
  // Called once the batch's sequence numbers [first, last] are allocated,
  // before its WAL append, with the number of the WAL it is headed for.
  std::function<void(SequenceNumber first, SequenceNumber last, uint64_t log_number)> on_allocated;
  // Called after the WAL append (and memtable insert), just before the
  // sequence would be published; only if the write succeeded.
  std::function<void(SequenceNumber first, SequenceNumber last)> before_publish;
};

class ReadCallback {
 public:
  virtual ~ReadCallback() = default;
  // True if an entry with sequence seq is visible to this reader.
  // REQUIRES: seq <= the reader's snapshot sequence.
  virtual bool IsVisible(SequenceNumber seq) const = 0;
};

class TxnStateHooks {
 public:
  virtual ~TxnStateHooks() = default;
  // The sequence at which the entry written at seq became visible, if that
  // happened at or before bound and is final: its commit marker is in a WAL
  // older than first_unflushed_log (whose memtable is in a table).
  // kMaxSequenceNumber if it is prepared but uncommitted, was committed
  // after bound, or its marker may yet be lost with its WAL (a power loss
  // or damage; then recovery brings it back prepared, and compaction must
  // keep the version under it). A plain write returns seq.
  virtual SequenceNumber CommitSequence(SequenceNumber seq, SequenceNumber bound,
                                        uint64_t first_unflushed_log) const = 0;
  // The smallest WAL number holding a prepared section that recovery may
  // still need: its transaction is unfinished, or finished by a marker in a
  // WAL numbered first_unflushed_log or later, whose memtable is not yet in
  // a table: that WAL alone holds the marker's outcome, and a power loss
  // (its unsynced tail) or damage (synced or not) can take it. As RocksDB
  // keeps a prepare's log until the memtable holding its marker is
  // flushed. Without the section, recovery would take a WritePrepared
  // transaction whose marker was lost for committed (its data is in
  // tables), and a write-committed one for never prepared. UINT64_MAX if
  // none. WALs from there on are kept.
  virtual uint64_t MinLogWithPreparedSection(uint64_t first_unflushed_log) const = 0;
  // Whether a prepared section's data goes into the memtable at prepare
  // (WritePrepared) or only with its commit (write-committed).
  virtual bool PreparedDataInMemtable() const = 0;

  // ---- WAL replay at Open, in WAL order. Sections in WALs older than the
  // MANIFEST's log number are reported too (their data is already in tables).
  virtual void RecoveredPrepared(const std::string& xid, const WriteBatch& section,
                                 SequenceNumber first, SequenceNumber last,
                                 uint64_t log_number) = 0;
  virtual void RecoveredCommit(const std::string& xid, SequenceNumber commit_seq) = 0;
  virtual void RecoveredRollback(const std::string& xid, SequenceNumber rollback_seq) = 0;
};

}  // namespace shale
