// RocksDB as a scenario engine (scenarios/engine/hosted_engine.h): its
// options drawn from RocksDB 7.8.3's documented option list
// (include/rocksdb/options.h, advanced_options.h, table.h), opened through
// RocksDbDb, one run to a worker process (the library's periodic-task
// timer and its counters are process-wide: docs/hosting_rocksdb.md).
//
// Drawn, each within the range RocksDB accepts together:
//   * memtables: write_buffer_size, max_write_buffer_number,
//     min_write_buffer_number_to_merge, allow_concurrent_memtable_write,
//     enable_write_thread_adaptive_yield, enable_pipelined_write;
//   * the log: wal_recovery_mode (point in time, absolute consistency or
//     tolerate-tail), manual_wal_flush, wal_compression,
//     wal_bytes_per_sync, track_and_verify_wals_in_manifest;
//   * files and syncs: use_fsync, allow_fallocate, bytes_per_sync,
//     max_manifest_file_size, max_open_files, max_file_opening_threads,
//     paranoid_checks, paranoid_file_checks;
//   * compaction: compaction_style (level or universal),
//     level0_file_num_compaction_trigger, target_file_size_base,
//     max_bytes_for_level_base, level_compaction_dynamic_level_bytes,
//     max_background_jobs, max_subcompactions, disable_auto_compactions,
//     compression;
//   * tables: block_size, block_restart_interval, format_version,
//     checksum, index_type, cache_index_and_filter_blocks, a bloom filter,
//     whole_key_filtering, the block cache's size.
// Drawn for a scenario to take up: whether the run asks for transactions
// (HostedOptions::transactions); crash-recovery then opens a TransactionDB
// under WRITE_COMMITTED (UseTransactions).
// Set by the unordered-write scenario's write mode (SetWriteMode):
// enable_pipelined_write, unordered_write, two_write_queues and a
// WritePrepared TransactionDB.
// Not yet drawn: kSkipAnyCorruptedRecords and recycle_log_file_num (which
// SanitizeOptions keeps only in skip-any), avoid_flush_during_recovery,
// inplace_update_support, atomic_flush (one column family), direct I/O,
// and WritePrepared in crash-recovery.
//
// Thread safety: stateless; one static instance.
#pragma once

#include "scenarios/engine/hosted_engine.h"

namespace shale::hosted {

// Registers "rocksdb" with the scenarios (idempotent). Aborts if its
// promise table does not parse (a build defect, which a test catches).
void RegisterRocksDbEngine();

// hosted/rocksdb/promises.tsv, as compiled in.
const char* RocksDbPromisesTsv();

// The engine as registered (its promise table parsed).
const scenario::HostedEngine& RocksDbEngine();

}  // namespace shale::hosted
