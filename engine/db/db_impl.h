// DBImpl: the LSM engine behind shale::DB.
//
// Structure (RocksDB's, reduced):
//   * Writers queue up (WriteThread); the front writer leads a write group:
//     it appends one WAL record for the whole group (and syncs at most
//     once); then, per write mode (db_impl_write.cc), the batches go into
//     the active memtable and the group's last sequence is published.
//   * A full memtable becomes immutable (imm_, oldest first) with a fresh
//     WAL; the flush thread writes the oldest immutable memtable to an L0
//     SST and records it in the MANIFEST (which also retires its WAL).
//   * The compaction thread runs leveled compactions picked by the
//     VersionSet, and manual CompactRange requests.
//   * Obsolete files are deleted only when no live Version (held by gets,
//     iterators and compactions) and no running job needs them, and never
//     after a background error (the state on disk is then indeterminate).
//
// Locking: one DB mutex (mutex_) from the Env runtime guards every member
// marked ABSL_GUARDED_BY(mutex_); clang's -Wthread-safety checks it, except
// inside MutexUnlock scopes (see mutexlock.h). log_ belongs to the front
// writer instead (see FrontWriterLog). Waits use bg_cv_ (background
// progress) or a writer's own condvar, so the simulator sees every wait.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/memtable_list.h"
#include "db/snapshot_impl.h"
#include "db/txn_hooks.h"
#include "db/write_thread.h"
#include "shale/db.h"
#include "shale/env.h"
#include "table/table_options.h"
#include "util/probes.h"
#include "util/stats_counters.h"
#include "version/version_set.h"

namespace shale {

class MemTable;
namespace log {
class Writer;
struct ReplayResult;
}  // namespace log

class DBImpl final : public DB {
 public:
  // REQUIRES: options came from SanitizeOptions.
  DBImpl(const Options& options, const std::string& dbname);
  ~DBImpl() override;

  Status Close() override;
  Status Write(const WriteOptions& options, WriteBatch* batch) override;
  Status Get(const ReadOptions& options, const Slice& key, std::string* value) override;
  Iterator* NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  Status Flush(const FlushOptions& options) override;
  Status CompactRange(const CompactRangeOptions& options, const Slice* begin,
                      const Slice* end) override;
  Status SyncWAL() override;
  bool GetProperty(const Slice& property, std::string* value) override;
  DBStats GetStats() override { return stats_.Snapshot(); }
  uint64_t GetLatestSequenceNumber() const override { return versions_->LastSequence(); }

  // Open's work: recover, start a WAL, start background threads.
  [[nodiscard]] Status OpenImpl();

  // ---- the transaction layer's seams (db/txn_hooks.h)
  // REQUIRES: before OpenImpl; hooks outlive this DB.
  void SetTxnStateHooks(TxnStateHooks* hooks) { txn_hooks_ = hooks; }
  // Write with hooks (nullptr: as Write).
  [[nodiscard]] Status WriteWithHooks(const WriteOptions& options, WriteBatch* batch,
                                      const WriteHooks* hooks);
  // Get / NewIterator that skip entries callback hides (nullptr: as Get).
  [[nodiscard]] Status GetWithCallback(const ReadOptions& options, const Slice& key,
                                       std::string* value, const ReadCallback* callback);
  Iterator* NewIteratorWithCallback(const ReadOptions& options, const ReadCallback* callback);
  // The sequence of key's newest entry that callback (if any) calls visible
  // (any entry, published or not); *found false if it has none.
  [[nodiscard]] Status GetLatestSequenceForKey(const Slice& key, const ReadCallback* callback,
                                               SequenceNumber* seq, bool* found);
  // The oldest live snapshot's sequence, or the last published sequence.
  SequenceNumber OldestSnapshotOrLast();
  // The number of the WAL writes go to now; every older WAL is synced.
  uint64_t LiveLogNumber();
  // The first WAL whose memtable is not yet in a table (the MANIFEST's log
  // number): what an older WAL held is in tables, so losing it loses
  // nothing; a newer one's records exist only there.
  uint64_t FirstUnflushedLogNumber();
  const Options& options() const { return options_; }

  using Writer = WriteThread::Writer;
  using WriteGroup = WriteThread::WriteGroup;

 private:
  struct CompactionState;
  friend class DB;

  // ---- open / recovery (db_impl_open.cc)
  [[nodiscard]] Status Recover(VersionEdit* edit, bool* save_manifest)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status RecoverLogFiles(const std::vector<uint64_t>& logs, VersionEdit* edit)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Every live table's file size is the one its MANIFEST entry records
  // (paranoid_checks; RocksDB's "Sst file size mismatch"): a file longer
  // than its table carries bytes no reader checks, such as the padding of
  // an unbuffered write whose end-of-file was never set. Corruption naming
  // the first mismatching file.
  [[nodiscard]] Status CheckTableSizes();
  // A log whose replay (inserting its data) ended at damage, and the length
  // of the prefix it replayed.
  struct LogCut {
    uint64_t log_number = 0;
    uint64_t consistent_bytes = 0;
  };
  // Counts the coverage probes a log's replay reached (util/probes.h).
  void ProbeReplay(WALRecoveryMode mode, bool insert_data, const log::ReplayResult& result);
  // The options' WAL recovery mode, as the planted recovery bugs change it.
  WALRecoveryMode ReplayModeWithPlantedBugs() const;
  // Replays one log. Appends to *cuts if it ended at damage; sets *stop at
  // a point-in-time stop (later logs are not replayed).
  [[nodiscard]] Status ReplayLogFile(uint64_t log_number, MemTable** mem, VersionEdit* edit,
                                     SequenceNumber* max_sequence, std::vector<LogCut>* cuts,
                                     bool* stop) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Makes recovery's decision durable before Open's MANIFEST edit retires
  // the logs it replayed: each cut log is truncated to the prefix replayed
  // and the logs after a point-in-time stop (dropped) are deleted. A later
  // Open reads the same logs for their transaction markers; any damage it
  // then meets is new.
  [[nodiscard]] Status CutLogsToReplayedPrefix(const std::vector<LogCut>& cuts,
                                               const std::vector<uint64_t>& dropped);
  // Replays one WAL record: reports transaction markers to txn_hooks_ and
  // inserts the data that belongs in a memtable (only if insert_data).
  [[nodiscard]] Status ReplayBatch(const WriteBatch& batch, uint64_t log_number, bool insert_data,
                                   MemTable* mem);
  [[nodiscard]] Status NewWAL() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // ---- writes (db_impl_write.cc)
  [[nodiscard]] Status WriteImpl(Writer* w) ABSL_LOCKS_EXCLUDED(mutex_);  // takes mutex_
  // The front writer's job: make room, write the group's WAL record, then
  // hand the group to the mode's memtable step.
  [[nodiscard]] Status LeadWriteGroup(Writer* w) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Stamps each member's batch with the sequence of its first record (as
  // RocksDB does), so callers learn the order of their writes.
  // Also runs each member's on_allocated hook.
  void StampGroupSequences(SequenceNumber first, const WriteGroup& group)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Runs the members' before_publish hooks, then publishes the group's last
  // sequence unless its writers do not publish.
  void PublishGroup(const WriteGroup& group) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status SyncWALLocked()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);  // SyncWAL's work; releases mutex_ inside
  [[nodiscard]] Status StartUnorderedInserts(Writer* w, WriteGroup* group)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status EnterMemtableStage(Writer* w, WriteGroup* group)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);  // pipelined
  [[nodiscard]] Status InsertGroup(Writer* w, WriteGroup* group)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status InsertOwnBatch(Writer* w)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);  // a kInsertOwn writer's insert
  // Publishes a group's last sequence (if it succeeded), finishes its
  // writers and dequeues it.
  void CompleteGroup(WriteGroup* group) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Finishes the queued writers up to last_writer with status and dequeues them.
  void CompleteQueued(Writer* last_writer, const Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Dequeues last_writer's queue up to it (WriteThread::Pop).
  void PopQueued(Writer* last_writer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Close() waits for the write queues to drain: signals bg_cv_ once one
  // emptied (queue_emptied) while closing.
  void SignalIfDrained(bool queue_emptied) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Transactions: syncs the replayed WALs that stay live because they hold
  // prepared sections (recovery may have read them from the page cache).
  [[nodiscard]] Status SyncReplayedLogs(const std::vector<uint64_t>& logs);
  // REQUIRES: mutex_ not held; wal_mu_ held if there is one.
  [[nodiscard]] Status WriteGroupToWAL(WriteBatch* group, bool sync);
  // log_ for the front writer, which uses it with mutex_ released: log_
  // changes only in NewWAL, which runs in the front writer itself (or in
  // Open or Close, alone), under wal_mu_ as well when there is one. The
  // analysis cannot express "the queue's front", so log_ is unannotated.
  log::Writer* FrontWriterLog() const { return log_.get(); }

  // ---- room for writes: stalls, memtable and WAL switches (db_impl_switch.cc)
  [[nodiscard]] Status MakeRoomForWrite(bool force)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);  // main queue's front writer only
  [[nodiscard]] Status SwitchMemTable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // A memtable whose arena blocks are write_buffer_size / 8 (RocksDB's
  // rule), on huge pages if memtable_huge_pages, with a bloom filter of
  // write_buffer_size * memtable_prefix_bloom_size_ratio bytes if
  // memtable_whole_key_filtering.
  MemTable* NewMemTable() const;

  // ---- file bookkeeping shared by flush, compaction and open (db_impl_files.cc)
  // Opens a just-written table through the table cache (which keeps it open)
  // and reads its first entry: a table that cannot be read never reaches
  // the MANIFEST. May be called without the mutex.
  [[nodiscard]] Status VerifyNewTable(const FileMetaData& meta);
  // Serializes LogAndApply between the flush and compaction threads.
  [[nodiscard]] Status LogAndApply(VersionEdit* edit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void RecordBackgroundError(const Status& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void DeleteObsoleteFiles() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The smallest WAL number still needed (unflushed data or prepared sections).
  uint64_t MinLogToKeep() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Transactions: records in edit the WAL bound below which no prepared
  // section is needed (new_log_number: the edit's log number, the first
  // WAL whose memtable the edit leaves unflushed).
  void SetMinLogToKeep(uint64_t new_log_number, VersionEdit* edit) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // ---- background work (db_impl_flush.cc, db_impl_compaction.cc)
  void FlushThreadMain();
  void CompactionThreadMain();
  [[nodiscard]] Status FlushOldestImmutable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Writes mem to a new L0 table and adds it to edit. REQUIRES: mutex_ held
  // (released while building).
  [[nodiscard]] Status WriteLevel0Table(MemTable* mem, VersionEdit* edit)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status RunCompaction(Compaction* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Releases mutex_ while it merges.
  [[nodiscard]] Status DoCompactionWork(CompactionState* state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status FinishCompactionOutput(CompactionState* state, Iterator* input);
  [[nodiscard]] Status OpenCompactionOutput(CompactionState* state);
  [[nodiscard]] Status InstallCompactionResults(CompactionState* state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Records a compaction's edit (trivial move or merge). REQUIRES: mutex_ held.
  [[nodiscard]] Status InstallCompactionEdit(Compaction* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool CompactionWanted() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status WaitForFlushOf(uint64_t memtable_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] Status CompactLevelRange(int level, const Slice* begin, const Slice* end);

  bool HasBug(PlantedBug bug) const { return (options_.planted_bugs & bug) != 0; }

  // ---- reads (db_impl.cc)
  Iterator* NewInternalIterator(const ReadOptions& options, SequenceNumber* latest);
  SequenceNumber SmallestSnapshotOrLast() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // ---- constant after construction
  Env* const env_;
  FileSystem* const fs_;
  Runtime* const runtime_;
  const std::string dbname_;
  const InternalKeyComparator internal_comparator_;
  const Options options_;  // sanitized
  std::shared_ptr<Cache> block_cache_;
  TableOptions table_options_;
  StatsCounters stats_;
  std::unique_ptr<TableCache> table_cache_;
  std::unique_ptr<FileLock> db_lock_;

  // ---- the DB mutex and what it guards
  std::unique_ptr<Mutex> mutex_;
  std::unique_ptr<CondVar> bg_cv_;  // background work finished / requested
  std::unique_ptr<VersionSet> versions_;
  MemTable* mem_ ABSL_GUARDED_BY(mutex_) = nullptr;
  MemTableList imm_ ABSL_GUARDED_BY(mutex_);  // waiting for the flush thread
  uint64_t next_memtable_id_ ABSL_GUARDED_BY(mutex_) = 1;
  uint64_t mem_id_ ABSL_GUARDED_BY(mutex_) = 0;  // id of mem_
  // The current WAL's writer. Not guarded by mutex_: it changes only in
  // NewWAL and is used without mutex_ by the front writer (FrontWriterLog).
  std::unique_ptr<log::Writer> log_;
  uint64_t logfile_number_ ABSL_GUARDED_BY(mutex_) = 0;
  // The writers' queues, the pipelined stage and the unordered inserts.
  WriteThread write_thread_ ABSL_GUARDED_BY(mutex_);
  // With two_write_queues: serializes the two queues' leaders (from their
  // sequence allocation to the end of their WAL append) and NewWAL's swap
  // on log_. Taken only without mutex_; a leader re-takes mutex_ inside it
  // to allocate, nothing else nests in it.
  std::unique_ptr<Mutex> wal_mu_;
  TxnStateHooks* txn_hooks_ = nullptr;  // set before Open; may be null
  // The published last sequence before the newest publish (read
  // only by the planted kBugStaleSnapshotSequence).
  SequenceNumber sequence_before_last_publish_ ABSL_GUARDED_BY(mutex_) = 0;
  // Serializes memtable allocations of concurrent inserters (MemTable).
  std::unique_ptr<Mutex> memtable_mu_;
  SnapshotList snapshots_ ABSL_GUARDED_BY(mutex_);
  std::set<uint64_t> pending_outputs_ ABSL_GUARDED_BY(mutex_);  // files being written
  Status bg_error_ ABSL_GUARDED_BY(mutex_);
  bool manifest_busy_ ABSL_GUARDED_BY(mutex_) = false;  // a LogAndApply is running
  bool flush_running_ ABSL_GUARDED_BY(mutex_) = false;
  int compactions_running_ ABSL_GUARDED_BY(mutex_) = 0;
  int manual_compactions_running_ ABSL_GUARDED_BY(mutex_) = 0;  // CompactRange calls in flight
  bool has_unpersisted_data_ ABSL_GUARDED_BY(mutex_) = false;   // disable_wal writes since flush
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;                 // Close() has begun: no new writes
  std::atomic<bool> shutting_down_{false};
  std::unique_ptr<Thread> flush_thread_;
  std::unique_ptr<Thread> compaction_thread_;
};

// Sanitizes user options: fills env/comparator/cache defaults and clamps
// sizes into workable ranges.
Options SanitizeOptions(const Options& src);
// Refuses the write-mode combinations RocksDB refuses, compression types
// that are not codecs and out-of-range limits (InvalidArgument,
// NotSupported): Open's first check.
[[nodiscard]] Status ValidateOptions(const Options& options);

}  // namespace shale
