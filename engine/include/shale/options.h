// Options for opening a DB, reading and writing. Defaults follow RocksDB's
// where RocksDB has the option.
//
// Thread safety: plain values; copy them freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace shale {

class Cache;
class Comparator;
class Env;
class Snapshot;

// How recovery treats damaged WAL records (RocksDB's WALRecoveryMode).
enum class WALRecoveryMode : uint8_t {
  // Tolerate an incomplete record at the end of a WAL (the file ends inside
  // a header or a record: an unfinished write); any checksum failure or
  // other damage fails Open (as RocksDB does).
  kTolerateCorruptedTailRecords = 0,
  // Any corruption or incomplete record fails Open.
  kAbsoluteConsistency = 1,
  // Stop replay at the first damaged record; recover everything before it
  // and nothing after (the DB is a consistent point in time).
  kPointInTimeRecovery = 2,
  // Skip damaged records and keep replaying (for salvage; may break prefix
  // order).
  kSkipAnyCorruptedRecords = 3,
};

// Per-block compression of SST data and index blocks (RocksDB's
// CompressionType; each value is also the block trailer's type byte,
// docs/sst_format.md). A block that does not shrink by at least 1/8 is
// stored uncompressed.
enum CompressionType : uint8_t {
  kNoCompression = 0x0,
  kSnappyCompression = 0x1,
  kLZ4Compression = 0x4,
  kZSTD = 0x7,
  // For bottommost_compression only: use `compression` there as well.
  kDisableCompressionOption = 0xff,
};

// "none", "snappy", "lz4", "zstd"; "disable" for kDisableCompressionOption;
// "unknown" for any other value.
const char* CompressionTypeName(CompressionType type);
// Reads the names above, or RocksDB's enum names ("kSnappyCompression",
// "kZSTD", ...). False, leaving *type alone, for anything else.
[[nodiscard]] bool ParseCompressionType(std::string_view name, CompressionType* type);

// Bugs that tests can plant in the engine to prove that Shale's checkers
// find them (each is a real durability or correctness bug). TEST ONLY:
// never set Options::planted_bugs outside tests.
enum PlantedBug : uint64_t {
  kBugNone = 0,
  // A sync write is acknowledged without fsyncing the WAL.
  kBugAckSyncWriteBeforeWalSync = uint64_t{1} << 0,
  // CURRENT is renamed into place but its directory is never synced.
  kBugSkipDirSyncAfterCurrent = uint64_t{1} << 1,
  // A flushed memtable's WAL is deleted before its SST is in the MANIFEST.
  kBugDeleteWalBeforeManifest = uint64_t{1} << 2,
  // Compaction ignores live snapshots and keeps only the newest version.
  kBugCompactionIgnoresSnapshots = uint64_t{1} << 3,
  // WAL recovery silently stops at a corrupt record in the middle of a WAL,
  // whatever wal_recovery_mode says.
  kBugRecoveryStopsAtCorruption = uint64_t{1} << 4,
  // Vanilla and pipelined groups publish their last sequence before their
  // memtable inserts (unordered_write's order, without its disclaimer).
  kBugPublishBeforeMemtableInsert = uint64_t{1} << 5,
  // WritePrepared with two write queues: a write that commits as it lands
  // is published by the main queue instead of being prepared there and
  // committed through the second queue (so unordered_write shows through).
  kBugWritePreparedPublishesUnprepared = uint64_t{1} << 6,
  // WAL recovery replays a prepared section as committed data (into the
  // memtable) and never reports it to the transaction layer: a transaction
  // prepared but not committed comes back committed.
  kBugRecoveryCommitsPrepared = uint64_t{1} << 7,
  // WritePrepared: rolling back a prepared transaction writes no old values
  // but still marks the prepared range committed, so the rolled-back data
  // becomes visible.
  kBugRollbackKeepsData = uint64_t{1} << 8,
  // A prepared section's WAL may be retired as soon as its transaction
  // finishes, though the commit or rollback marker is still in the live
  // WAL's unsynced tail: a power loss then takes the marker while the
  // section is gone (WritePrepared data in tables reads as committed; a
  // write-committed transaction is lost).
  kBugRetireSectionWalAtFinish = uint64_t{1} << 9,
  // An iterator's Seek to a key whose newest visible version is a deletion
  // skips the tombstone and the first live key after it (an off-by-one in
  // tombstone skipping): a scan silently misses a key that exists.
  kBugSeekSkipsKeyAfterTombstone = uint64_t{1} << 10,
  // GetSnapshot takes the last sequence as it was before the newest write
  // group published (a stale cached copy): a snapshot can miss a write
  // acknowledged before it was taken.
  kBugStaleSnapshotSequence = uint64_t{1} << 11,
  // A direct (unbuffered) table writer writes its partial last block
  // unpadded: the write's length is not a multiple of the sector size.
  kBugUnalignedDirectWrite = uint64_t{1} << 12,
  // Obsolete tables are deleted before the table cache closes them (it
  // closes them just after): without share-delete, Windows refuses.
  kBugDeleteTableBeforeEvict = uint64_t{1} << 13,
  // A direct (unbuffered) writer never sets end-of-file at Close: the
  // padding of its last block stays in the file, past the logical size.
  kBugSkipEndOfFileAfterPadding = uint64_t{1} << 14,
  // SetCurrentFile closes its temp file only after renaming it, and retries
  // once after a failure: the failed attempt deletes the temp file while
  // its handle is still open, and the retry creates the same name again,
  // which on Windows is still delete pending.
  kBugReuseDeletePendingName = uint64_t{1} << 15,
  // A direct WAL's Sync does not pad the log to its alignment: the next
  // record's flush re-writes the sector holding the last synced records,
  // and a power loss that tears or garbles that unsynced write takes them.
  kBugDirectWalSkipsSyncPadding = uint64_t{1} << 16,
  // A buffered WAL's Sync re-writes the log's first header in place
  // (PositionedAppend at offset 0, as a format that keeps state in its
  // header would) and later records are appended (Append) on the same
  // handle: on Windows they land at the moved file pointer.
  kBugMixPositionalAndAppend = uint64_t{1} << 17,
  // The flash backend (shale/flash_file_system.h) reads these five.
  // A sync's padding does not move the writer's write pointer: the next
  // write lands behind the chunk's real write pointer.
  kBugFlashWriteOffPointer = uint64_t{1} << 18,
  // A sync acknowledges data still in the device cache (no padding past
  // mw_cunits): a power loss takes synced data.
  kBugFlashAckInDeviceCache = uint64_t{1} << 19,
  // Mounting lists OFFLINE (bad) chunks as free, so one is allocated.
  kBugFlashAllocateBadChunk = uint64_t{1} << 20,
  // A deleted file's chunks go back to the free list without a reset.
  kBugFlashReuseWithoutReset = uint64_t{1} << 21,
  // Mounting does not scan a WAL's OPEN chunk (it trusts only CLOSE
  // metadata, which an open chunk has none of): the WAL's synced tail is
  // lost.
  kBugFlashRecoveryIgnoresOob = uint64_t{1} << 22,
  // The table cache keeps every reader open whatever max_open_files says.
  kBugTableCacheIgnoresLimit = uint64_t{1} << 23,
  // max_open_files = -1 is read as the smallest bound (20), so readers are
  // closed and reopened although the user asked to keep them all.
  kBugTableCacheBoundsUnlimited = uint64_t{1} << 24,
  // A table's bloom filter leaves out the table's first user key, so a Get
  // of it that reaches the table is turned away (NotFound, or an older
  // version from a lower level).
  kBugFilterSkipsFirstKey = uint64_t{1} << 25,
  // In the hosting layer, not the engine: a hosted engine's Env (LevelDB's,
  // hosted/leveldb/leveldb_env.h) acknowledges a file's Sync without
  // syncing it (nor, for a MANIFEST, its directory).
  kBugHostedSyncSkipped = uint64_t{1} << 26,
  // In the hosting layer: a hosted engine's Env replaces an existing file
  // by renaming in two steps (delete the target, then rename), so a crash
  // between them leaves no file under the target's name.
  kBugHostedRenameNotAtomic = uint64_t{1} << 27,
  // In the simulator: a thread task's yield hands the CPU to the host
  // without stopping (at each task's 64th yield; scenario_run.cc), so two
  // tasks run at once.
  kBugSchedulerTwoTasksRun = uint64_t{1} << 28,
  // About one DB::Write call in 500 (those whose batch hashes to 0 mod
  // 500) returns Corruption without writing: an error the engine invents,
  // no I/O failed.
  kBugWriteReturnsCorruption = uint64_t{1} << 29,
  // Open fails with an IOError, after creating its new WAL, when that
  // log's number is a multiple of 3 (an error the engine invents; the
  // retry gets another number and succeeds).
  kBugOpenFailsSpuriously = uint64_t{1} << 30,
  // Tolerate-tail recovery refuses a log that ends in an incomplete record
  // (replays as absolute consistency): the torn tail a power loss leaves
  // is exactly what that mode promises to drop.
  kBugTolerateTailRefusesIncompleteTail = uint64_t{1} << 31,
  // A write group that is not synced goes to the WAL as two records (its
  // first half of records, then the rest), so a crash may keep only the
  // first: recovery finds part of a batch.
  kBugSplitUnsyncedGroupInWal = uint64_t{1} << 32,
  // A follower of a write group gets its batch back with the sequence it
  // held before the group (the leader stamped a copy): Write reports a
  // sequence not above one acknowledged before it began.
  kBugFollowerSequenceNotReported = uint64_t{1} << 33,
  // With unordered_write (and one write queue), a Get without a snapshot
  // reads at the last sequence as it was before the newest publish: a
  // writer's Get right after its Write may miss it.
  kBugUnorderedGetReadsStale = uint64_t{1} << 34,
  // Point-in-time recovery that stops at a corrupt record also drops the
  // record before it (replay applies each record only once the next one
  // reads whole): a write logged before the damage is lost.
  kBugPointInTimeDropsRecordBeforeDamage = uint64_t{1} << 35,
  // The flash backend's mount accepts a sector whose CRC fails (it reads
  // the tag without checking it): damage to a tag at rest is taken for
  // what it says, and a file may end early where a flipped offset leaves
  // a gap.
  kBugFlashMountAcceptsBadCrc = uint64_t{1} << 36,
  // Skip-any recovery that skips damage in a log applies none of that
  // log's records, those before the damage included (it reads on in the
  // next log).
  kBugSkipAnyDropsDamagedLog = uint64_t{1} << 37,
  // Transaction::Get of a key the transaction deleted reads the DB's
  // committed value (the buffer lookup skips deletes).
  kBugTxnGetMissesOwnDelete = uint64_t{1} << 38,
  // GetForUpdate reads without locking the key: another writer may change
  // it before the transaction ends.
  kBugGetForUpdateTakesNoLock = uint64_t{1} << 39,
  // A finished transaction asks the DB for its live log while holding the
  // transaction DB's mutex, to retire its section early: the flush thread
  // takes the two mutexes in the other order (deadlock).
  kBugFinishLocksDbUnderTxnMutex = uint64_t{1} << 40,
  // The lock manager forgets to count down a released lock no one waits
  // for, so its held count drifts above what it holds.
  kBugUnlockLeaksHeldCount = uint64_t{1} << 41,
  // GetPreparedTransactionNames also lists a committed or rolled-back
  // transaction whose section waits for its marker's log to retire.
  kBugPreparedNamesListFinished = uint64_t{1} << 42,
  // The WAL writer sizes a fragment by the room left in its block without
  // the fragment's header (the writer's own check stops the overfull
  // fragment before it is written).
  kBugWalFragmentIgnoresHeader = uint64_t{1} << 43,
  // A writer slowed by a full L0 decides whether to sleep again on the L0
  // count it read first: it never sees compactions drain L0.
  kBugSlowdownRereadsStaleLevel0 = uint64_t{1} << 44,
  // A table Get that finds nothing in its table releases the table's cache
  // handle twice (the cache's own check stops the second release).
  kBugTableGetReleasesTwice = uint64_t{1} << 45,
  // Close joins the flush thread before telling it to shut down: the
  // thread waits for work or shutdown, Close for the thread (deadlock).
  kBugCloseJoinsBeforeShutdown = uint64_t{1} << 46,
  // An iterator without an explicit snapshot moves its read sequence up to
  // the DB's latest at every step, so one scan reads some keys before a
  // batch and others after it.
  kBugIteratorStepReadsLatest = uint64_t{1} << 47,
  // Recovery reads only the WALs the MANIFEST has not flushed: older logs
  // kept for their prepared sections are skipped, so a transaction
  // prepared there (and not finished in a newer log) is lost.
  kBugRecoverySkipsKeptLogs = uint64_t{1} << 48,
  // An unsynced Prepare is acknowledged without its section reaching the
  // WAL (as if it were to be logged with its commit): a crash before the
  // commit loses the prepared transaction, though writes logged after the
  // Prepare survive.
  kBugUnsyncedPrepareSkipsWal = uint64_t{1} << 49,
  // The flash backend's mount ends a file at a missing chunk of its chain
  // (a chunk lost whole) instead of keeping the range it held as lost:
  // the file reads back shorter, with no error.
  kBugFlashMountIgnoresLostChunk = uint64_t{1} << 50,
  // Flush(wait) takes the memtable queued behind the oldest immutable one
  // as the one it switched out, and reads its size without checking that
  // there is one: when the switch left a single immutable memtable, the
  // read goes through a null pointer and the process dies.
  kBugFlushWaitReadsMissingMemtable = uint64_t{1} << 51,
  // A bug of the real-backend harness, not the engine: the child journals
  // its clean Close without the Close's status, so the frame is not what
  // the parent's reader decodes (writer and reader out of step).
  kBugJournalCloseOmitsStatus = uint64_t{1} << 52,
  // In the hosting layer: a hosted engine's DB adapter answers FlushWAL
  // as shale::DB's default does (FlushWAL(false) is OK at once,
  // FlushWAL(true) is SyncWAL), never asking the engine: RocksDB's log
  // buffer (manual_wal_flush) stays unwritten.
  kBugHostedFlushWalAsSyncWal = uint64_t{1} << 53,
  // A write-committed Rollback of a prepared transaction is acknowledged
  // without logging its rollback marker: a crash while the prepared
  // section's WAL is still kept brings the transaction back prepared,
  // though its Rollback was acknowledged.
  kBugRollbackSkipsMarker = uint64_t{1} << 54,
};

struct Options {
  // ---- Environment
  // The seam. nullptr means Env::Default() (POSIX files, std::thread).
  Env* env = nullptr;
  // Key order. nullptr means BytewiseComparator().
  const Comparator* comparator = nullptr;
  bool create_if_missing = false;
  bool error_if_exists = false;
  // RocksDB's name; Shale verifies every block it reads (recovery and
  // compaction included) whatever this says, so false changes nothing.
  bool paranoid_checks = true;
  // Use O_DIRECT for SST reads and for flush/compaction writes.
  bool use_direct_reads = false;
  bool use_direct_io_for_flush_and_compaction = false;
  // Read SSTs through a read-only memory map (FileOptions::use_mmap_reads),
  // as LevelDB always does and RocksDB's allow_mmap_reads asks. An
  // uncompressed data block is then parsed where it lies in the map: no
  // copy, and no block-cache entry (the page cache holds it). Its checksum
  // is verified on every read, as for any block read from the file. Off
  // with use_direct_reads. The POSIX file system maps at most
  // PosixFileSystem::kMaxMappedFiles files at a time and reads the rest
  // with pread.
  bool allow_mmap_reads = false;
  // Append to the WAL through a shared writable memory map
  // (FileOptions::use_mmap_writes), as RocksDB's allow_mmap_writes asks: a
  // write that does not sync then costs a memcpy instead of a write(2), and
  // survives the process's death all the same. Shale maps only its WALs;
  // tables and the MANIFEST are written in large buffered appends, which
  // gain nothing from a map. A process that dies with a mapped WAL open
  // leaves zero-filled space after its last record, and may leave that
  // record half copied (its checksum fails). Point-in-time and skip-any
  // recovery end at either and keep every write before it; the other two
  // modes would refuse them, so under kTolerateCorruptedTailRecords and
  // kAbsoluteConsistency the WAL is written with write(2) whatever this
  // says. A log written mapped and then opened in one of those modes may
  // be refused after a kill. Also off with use_direct_io_for_wal, where the
  // file system cannot fallocate, and where it does not map writes (the
  // simulator's disks). On by default, unlike RocksDB's (which maps only
  // tables).
  bool allow_mmap_writes = true;
  // Open files with share-delete (FileOptions::share_delete; Windows's
  // FILE_SHARE_DELETE), so they may be deleted or renamed while open. POSIX
  // always allows it. Either way the engine closes a file before it deletes
  // it (a table leaves the table cache first), so off works too.
  bool share_delete_on_open = true;
  // Write the WAL with direct I/O. RocksDB has no such option (its WAL is
  // always buffered); the Windows port wrote every file unbuffered. Each WAL
  // sync first pads the log to the next aligned offset (a padding record,
  // docs/wal_format.md), so no later write re-writes a sector that holds
  // synced records.
  bool use_direct_io_for_wal = false;

  // ---- Write buffers
  size_t write_buffer_size = 64 << 20;
  // Memtables (active + immutable) in memory before writes stop.
  int max_write_buffer_number = 2;
  // Back memtable memory with transparent huge pages where the OS has them
  // (Linux: madvise MADV_HUGEPAGE; write_buffer_size of 16 MiB or more, so
  // that arena blocks are whole 2 MiB pages). A memtable search visits nodes
  // scattered over the memtable; over 4 KiB pages most visits also miss the
  // TLB, and random fills spend most of their time there. Turn it off where
  // THP's costs matter more: with the kernel's THP defrag set to "madvise",
  // a page fault in such memory may compact memory first, a latency spike.
  // RocksDB's closest option, memtable_huge_page_size, uses reserved
  // hugetlbfs pages instead.
  bool memtable_huge_pages = true;
  // A bloom filter over each memtable's user keys (RocksDB's memtable bloom
  // with whole-key filtering; Shale has no prefix extractor, so the filter
  // is on only with memtable_whole_key_filtering), of write_buffer_size *
  // memtable_prefix_bloom_size_ratio bytes taken from the memtable's
  // memory (at most 0.25, as RocksDB clamps it). A Get for a key the
  // memtable does not hold then usually skips the memtable search; each
  // write sets a few bits in one cache line. RocksDB's names; RocksDB
  // defaults to no filter (0 and false). Shale turns it on: for reads
  // mixed with writes, a miss in a large memtable costs a chain of cache
  // misses, and 2% of the write buffer gives about 24 bits per 100-byte
  // entry. Assumes, as the table filters do, that the comparator calls two
  // keys equal only if their bytes are.
  double memtable_prefix_bloom_size_ratio = 0.02;
  bool memtable_whole_key_filtering = true;

  // ---- WAL
  WALRecoveryMode wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;

  // ---- MANIFEST
  // Once the MANIFEST reaches this size, the next edit starts a new one
  // (a snapshot of the current version, then the edit) and CURRENT is
  // switched to it (RocksDB's max_manifest_file_size, same default).
  uint64_t max_manifest_file_size = uint64_t{1} << 30;

  // ---- Write path (RocksDB's meanings; what each mode promises readers is
  // in README.md, "Write modes and what each promises")
  // A write group's writers insert their own batches into the memtable in
  // parallel once the leader has written the group's WAL record.
  bool allow_concurrent_memtable_write = true;
  // A writer waiting for its group's leader (or a leader for its group's
  // parallel inserts) first spins and yields for up to
  // write_thread_max_yield_usec before it blocks: those waits usually end
  // within microseconds, and blocking costs a futex wait and a wake-up. Only
  // where the Env's runtime can spin (the real one; the simulator never
  // spins). RocksDB's options, same defaults; at most 10,000 us.
  bool enable_write_thread_adaptive_yield = true;
  uint64_t write_thread_max_yield_usec = 100;
  // Separate WAL and memtable queues: the next group writes its WAL record
  // while the previous group is still inserting into the memtable.
  bool enable_pipelined_write = false;
  // The last sequence is published right after the WAL write and each
  // writer inserts into the memtable on its own: higher write throughput,
  // but reads keep only read-your-own-writes (no atomic reads, no immutable
  // snapshots). Not with enable_pipelined_write (NotSupported).
  bool unordered_write = false;
  // A second write queue for WAL-only writes (a transaction's prepared
  // section or commit marker), so they never wait behind memtable inserts.
  // With WritePrepared transactions and unordered_write, commits publish
  // through this queue and all three read promises hold again. Not with
  // enable_pipelined_write (NotSupported).
  bool two_write_queues = false;

  // ---- L0 triggers
  int level0_file_num_compaction_trigger = 4;
  int level0_slowdown_writes_trigger = 20;
  int level0_stop_writes_trigger = 36;
  // Delay per write while slowed down, in microseconds.
  uint64_t slowdown_delay_micros = 1000;

  // ---- Leveled compaction
  int num_levels = 7;
  uint64_t max_bytes_for_level_base = 256ull << 20;
  double max_bytes_for_level_multiplier = 10.0;
  uint64_t target_file_size_base = 64ull << 20;
  // Files are cut when they would overlap more than this many grandparent
  // bytes (as a multiple of target_file_size_base), to bound later compactions.
  int max_grandparent_overlap_factor = 10;
  // Seek compaction (LevelDB's; RocksDB's old option of this name, since
  // removed): a Get that consults a file and then has to go on to another
  // one charges the first a seek, and a file that runs out of seeks (one per
  // 16 KiB of file, at least 100) is compacted into the next level when no
  // size-triggered compaction can be picked. Read-heavy workloads then read
  // fewer sorted runs. Off here (or with disable_auto_compactions), only
  // size triggers compaction, as in today's RocksDB.
  bool disable_seek_compaction = false;

  // ---- Tables
  size_t block_size = 4096;
  int block_restart_interval = 16;
  // Full-key bloom filter bits per key; 0 disables filters.
  int bloom_bits_per_key = 10;
  // Compression of the tables flush and compaction write (RocksDB's default:
  // Snappy). kDisableCompressionOption is not valid here.
  CompressionType compression = kSnappyCompression;
  // Compression of compaction outputs at the bottommost level: the output
  // level when no deeper level holds a key in the compaction's range.
  // kDisableCompressionOption (the default) means `compression`.
  CompressionType bottommost_compression = kDisableCompressionOption;

  // ---- Caches
  // Table readers kept open; -1 keeps all open (RocksDB's meaning).
  int max_open_files = -1;
  // Block cache; nullptr means an internal 8 MiB LRU cache.
  std::shared_ptr<Cache> block_cache;

  // ---- Background work
  // Background threads: one for flushes, one for compactions (RocksDB's
  // max_background_jobs=2 split).
  bool disable_auto_compactions = false;

  // ---- Testing
  // A bitwise OR of PlantedBug values. TEST ONLY (see PlantedBug).
  uint64_t planted_bugs = kBugNone;
};

struct ReadOptions {
  // Read as of this snapshot; nullptr means the latest state.
  const Snapshot* snapshot = nullptr;
  // RocksDB's name; Shale verifies the checksum of every block it reads
  // (table/format.h ReadBlock) whatever this says, so false changes nothing.
  bool verify_checksums = true;
  // Put blocks read into the block cache.
  bool fill_cache = true;
};

struct WriteOptions {
  // fdatasync the WAL before acknowledging the write.
  bool sync = false;
  // Do not write the WAL: the write is lost on any crash before a flush.
  bool disable_wal = false;
};

struct FlushOptions {
  // Wait until the flush is installed in the MANIFEST.
  bool wait = true;
};

struct CompactRangeOptions {
  // Also compact the deepest level that holds data in the range into the
  // level below it (not when it is the last level: that is never rewritten
  // in place by CompactRange).
  bool bottommost_level_compaction = true;
};

}  // namespace shale
