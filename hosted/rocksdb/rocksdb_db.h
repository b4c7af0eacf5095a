// RocksDbDb: RocksDB 7.8.3 (Debian's librocksdb7.8, linked as shipped)
// behind Shale's DB interface, so that the scenarios' workload and oracle
// drive it as they drive Shale's engine. What it maps:
//   * Put, Delete, Write (a WriteBatch, atomically; sync and disableWAL),
//     Get, iterators in both directions (SeekForPrev is RocksDB's own),
//     snapshots, Flush (waiting), SyncWAL, FlushWAL, CompactRange over
//     every level, named properties ("shale.num-files-at-level<N>", "shale.stats" and
//     "shale.compaction-pending" read RocksDB's "rocksdb." ones);
//   * with RocksDbOptions::write_committed, a TransactionDB under the
//     WRITE_COMMITTED policy: BeginTransaction gives a RocksDbTransaction
//     (rocksdb_txn.h), GetTransactionByName finds a begun or a recovered
//     one, and every DB call goes through the TransactionDB (a Write locks
//     its keys);
//   * not yet: column families other than the default (engine counters:
//     GetStats is all zero).
//
// Sequence numbers: after DB::Write, RocksDB has written the sequence of
// the batch's first record into the first eight bytes of the caller's
// batch (its WriteBatch header, fixed64 little-endian); that value is
// stamped on Shale's batch as Shale's engine stamps it. A write
// acknowledged with a sequence past GetLatestSequenceNumber returns
// Corruption instead of OK (RocksDB would have acknowledged a write no
// read can see yet). Snapshots report RocksDB's own GetSequenceNumber.
//
// Errors keep RocksDB's code and text, with one addition: once a file
// writer has failed, RocksDB answers later writes to it with "Writer has
// previous error." (or the log writer's "Seen error. Skip writing
// buffer."), dropping the error it first got; such a status gets that
// first error of this process's writable files appended (the evidence an
// oracle needs to tie it to an injected fault). It stays an IOError.
//
// After Close, every call returns an error (GetProperty false,
// BeginTransaction nullptr), as Shale's DB does; GetSnapshot REQUIRES an
// open DB.
// Ownership: the DB owns its RocksDbEnv and the wrappers of recovered
// transactions GetTransactionByName handed out (deleted at Close, before
// the DB). Abandoning it (a simulated crash) leaks all of them, as a killed
// process does. Thread safety: as shale::DB; the map of begun transactions
// is touched only between scheduling points (one simulated task runs at a
// time, and no call on it reaches one).
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/transaction_db.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hosted/rocksdb/rocksdb_env.h"
#include "shale/db.h"
#include "shale/env.h"
#include "shale/transaction_db.h"

namespace shale::hosted {

// One DB's options as a RocksDB user sets them. Open sets env,
// create_if_missing and the table factory itself.
struct RocksDbOptions {
  rocksdb::Options db;
  rocksdb::BlockBasedTableOptions table;
  size_t block_cache_bytes = 0;  // 0: RocksDB's own default cache
  int bloom_bits_per_key = 0;    // 0: no filter policy
  // Where this process's DB identity and session ids come from (a value
  // drawn from the run's tape, different for every Open of a run).
  uint64_t identity_seed = 0;
  // Where RocksDB's info log lines go too (a traced run); may be empty.
  InfoLogTrace info_log_trace;
  // Open a TransactionDB with the WRITE_PREPARED policy instead of a DB;
  // every DB call then goes through it (a Write is a transaction of its
  // own, prepared then committed, one sequence per sub-batch).
  bool write_prepared = false;
  bool skip_concurrency_control = false;  // TransactionDBOptions' (WritePrepared only)
  // Open a TransactionDB with the WRITE_COMMITTED policy (ignored with
  // write_prepared), whose transactions BeginTransaction gives, with
  // TransactionDBOptions' lock timeouts (milliseconds).
  bool write_committed = false;
  int64_t transaction_lock_timeout_ms = 1000;
  int64_t default_lock_timeout_ms = 1000;
  // The hosting layer's planted bugs (hosted/planted_hosting.h, and
  // kBugHostedFlushWalAsSyncWal, which RocksDbDb::FlushWAL reads); 0 in
  // real runs.
  uint64_t planted_bugs = 0;
};

// The loaded library's version, as "7.8.3 (librocksdb.so.7.8.3)".
std::string RocksDbVersion();

// Readies this process to host RocksDB: the interposer is in effect and
// librocksdb's and libstdc++'s code is registered as hosted. Done once;
// every later call returns the first one's answer. REQUIRES: called
// outside any simulation.
[[nodiscard]] Status PrepareRocksDbHosting();

class RocksDbTransaction;

class RocksDbDb final : public TransactionDB {
 public:
  // Opens (recovering if needed) RocksDB at path on env's file system,
  // creating it if missing. NotSupported unless PrepareRocksDbHosting()
  // succeeded. REQUIRES: called from a task of a simulation with
  // os_thread_tasks.
  [[nodiscard]] static Status Open(const RocksDbOptions& options, Env* env, const std::string& path,
                                   std::unique_ptr<DB>* db);
  ~RocksDbDb() override;

  [[nodiscard]] Status Close() override;
  [[nodiscard]] Status Write(const WriteOptions& options, WriteBatch* batch) override;
  [[nodiscard]] Status Get(const ReadOptions& options, const Slice& key,
                           std::string* value) override;
  Iterator* NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  [[nodiscard]] Status Flush(const FlushOptions& options) override;
  [[nodiscard]] Status CompactRange(const CompactRangeOptions& options, const Slice* begin,
                                    const Slice* end) override;
  [[nodiscard]] Status SyncWAL() override;
  [[nodiscard]] Status FlushWAL(bool sync) override;
  bool GetProperty(const Slice& property, std::string* value) override;
  DBStats GetStats() override;
  uint64_t GetLatestSequenceNumber() const override;

  // nullptr unless the DB is open with write_committed.
  std::unique_ptr<Transaction> BeginTransaction(const WriteOptions& write_options,
                                                const TransactionOptions& txn_options) override;
  Transaction* GetTransactionByName(const std::string& name) override;
  std::vector<std::string> GetPreparedTransactionNames() override;

 private:
  RocksDbDb() = default;
  // Wraps txn (owned) for Shale.
  std::unique_ptr<RocksDbTransaction> Wrap(rocksdb::Transaction* txn,
                                           std::function<void()> on_destroy) const;
  // FromRocksDb, with the evidence described above.
  Status Proven(const rocksdb::Status& status) const;

  std::unique_ptr<RocksDbEnv> env_;
  std::unique_ptr<rocksdb::DB> db_;  // a rocksdb::TransactionDB when write_prepared
  // db_ as the TransactionDB it is with write_committed; else nullptr.
  rocksdb::TransactionDB* write_committed_ = nullptr;
  // The wrappers BeginTransaction handed out and not yet destroyed, by the
  // RocksDB transaction each owns.
  std::map<const rocksdb::Transaction*, RocksDbTransaction*> begun_;
  // Wrappers of recovered transactions (their RocksDB transactions, which
  // the user deletes), by name.
  std::map<std::string, std::unique_ptr<RocksDbTransaction>> recovered_;
  bool seq_per_batch_ = false;  // a write takes a sequence per sub-batch, not per key
  uint64_t planted_bugs_ = 0;   // RocksDbOptions::planted_bugs
};

// Shale's read options as RocksDB's (a snapshot from RocksDbDb::GetSnapshot).
rocksdb::ReadOptions RocksDbReadOptions(const ReadOptions& options);
// Shale's write options as RocksDB's (sync, disableWAL).
rocksdb::WriteOptions RocksDbWriteOptions(const WriteOptions& options);

// RocksDB's status as Shale's: the same code, the message as RocksDB
// renders it (file names included, so a damaged file stays named).
Status FromRocksDb(const rocksdb::Status& status);

// FromRocksDb(status), with the evidence described above: when status is
// one of RocksDB's sticky writer errors and first_write_error (the first
// error this process's writable files returned) is not empty, an IOError
// whose text ends "a file this process writes failed before: <it>". Any
// other status, or no earlier error, is FromRocksDb(status) unchanged.
Status WithWriterErrorCause(const rocksdb::Status& status, const std::string& first_write_error);

}  // namespace shale::hosted
