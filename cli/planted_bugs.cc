#include "planted_bugs.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "shale/options.h"

namespace shale::cli {

const std::vector<PlantedBugInfo>& AllPlantedBugs() {
  static const std::vector<PlantedBugInfo> kBugs = {
      {kBugAckSyncWriteBeforeWalSync, "ack_sync_write_before_wal_sync",
       "a sync write is acknowledged without fsyncing the WAL"},
      {kBugSkipDirSyncAfterCurrent, "skip_dir_sync_after_current",
       "CURRENT is renamed into place but its directory is never synced"},
      {kBugDeleteWalBeforeManifest, "delete_wal_before_manifest",
       "a flushed memtable's WAL is deleted before its table is in the MANIFEST"},
      {kBugCompactionIgnoresSnapshots, "compaction_ignores_snapshots",
       "compaction keeps only the newest version, ignoring live snapshots"},
      {kBugRecoveryStopsAtCorruption, "recovery_stops_at_corruption",
       "WAL recovery silently stops at a corrupt record, whatever the recovery mode"},
      {kBugPublishBeforeMemtableInsert, "publish_before_memtable_insert",
       "write groups publish their sequence before their memtable inserts"},
      {kBugWritePreparedPublishesUnprepared, "write_prepared_publishes_unprepared",
       "WritePrepared with two queues publishes a write without preparing it"},
      {kBugRecoveryCommitsPrepared, "recovery_commits_prepared",
       "recovery replays a prepared section as committed data"},
      {kBugRollbackKeepsData, "rollback_keeps_data",
       "a WritePrepared rollback leaves the rolled-back data visible"},
      {kBugRetireSectionWalAtFinish, "retire_section_wal_at_finish",
       "a prepared section's WAL is retired while its commit marker is unsynced"},
      {kBugSeekSkipsKeyAfterTombstone, "seek_skips_key_after_tombstone",
       "an iterator's Seek to a deleted key also skips the next live key"},
      {kBugStaleSnapshotSequence, "stale_snapshot_sequence",
       "GetSnapshot takes the last sequence from before the newest write group"},
      {kBugUnalignedDirectWrite, "unaligned_direct_write",
       "a direct table writer writes its partial last block unpadded"},
      {kBugDeleteTableBeforeEvict, "delete_table_before_evict",
       "obsolete tables are deleted before the table cache closes them"},
      {kBugSkipEndOfFileAfterPadding, "skip_end_of_file_after_padding",
       "a direct writer leaves its last block's padding in the file at Close"},
      {kBugReuseDeletePendingName, "reuse_delete_pending_name",
       "SetCurrentFile deletes its temp file while still open, then reuses the name"},
      {kBugDirectWalSkipsSyncPadding, "direct_wal_skips_sync_padding",
       "a direct WAL re-writes the sector holding its last synced records"},
      {kBugMixPositionalAndAppend, "mix_positional_and_append",
       "a WAL's Sync re-writes its first header in place, then records are appended"},
      {kBugFlashWriteOffPointer, "flash_write_off_pointer",
       "the flash backend forgets a sync's padding: its next write is not at the write pointer"},
      {kBugFlashAckInDeviceCache, "flash_ack_in_device_cache",
       "a flash sync acknowledges data still inside the device cache (mw_cunits)"},
      {kBugFlashAllocateBadChunk, "flash_allocate_bad_chunk",
       "the flash backend lists OFFLINE (bad) chunks as free and allocates one"},
      {kBugFlashReuseWithoutReset, "flash_reuse_without_reset",
       "the flash backend reuses a deleted file's chunks without resetting them"},
      {kBugFlashRecoveryIgnoresOob, "flash_recovery_ignores_oob",
       "flash recovery trusts only CLOSE metadata and drops a WAL's tail in an open chunk"},
      {kBugTableCacheIgnoresLimit, "table_cache_ignores_limit",
       "the table cache keeps every reader open whatever max_open_files says"},
      {kBugTableCacheBoundsUnlimited, "table_cache_bounds_unlimited",
       "max_open_files = -1 is read as the smallest bound, so readers are closed and reopened"},
      {kBugFilterSkipsFirstKey, "filter_skips_first_key",
       "a table's bloom filter leaves out its first user key, so a Get of it misses the table"},
      {kBugHostedSyncSkipped, "hosted_sync_skipped",
       "a hosted engine's Env acknowledges Sync without syncing (hosting layer)"},
      {kBugHostedRenameNotAtomic, "hosted_rename_not_atomic",
       "a hosted engine's Env renames over a file by deleting it first (hosting layer)"},
      {kBugSchedulerTwoTasksRun, "scheduler_two_tasks_run",
       "the simulator lets a yielding thread task run on beside the next one (hosting layer)"},
      {kBugWriteReturnsCorruption, "write_returns_corruption",
       "about one write in 500 returns Corruption though no I/O failed"},
      {kBugOpenFailsSpuriously, "open_fails_spuriously",
       "Open fails with an IOError no I/O caused, once (its retry succeeds)"},
      {kBugTolerateTailRefusesIncompleteTail, "tolerate_tail_refuses_incomplete_tail",
       "tolerate-tail recovery refuses a log that ends in an incomplete record"},
      {kBugSplitUnsyncedGroupInWal, "split_unsynced_group_in_wal",
       "an unsynced write group goes to the WAL as two records, so a crash may keep half"},
      {kBugFollowerSequenceNotReported, "follower_sequence_not_reported",
       "a write group's follower gets back the sequence its batch held before the group"},
      {kBugUnorderedGetReadsStale, "unordered_get_reads_stale",
       "with unordered_write, a Get reads at the sequence before the newest publish"},
      {kBugPointInTimeDropsRecordBeforeDamage, "point_in_time_drops_record_before_damage",
       "point-in-time recovery stopping at a corrupt record drops the record before it too"},
      {kBugFlashMountAcceptsBadCrc, "flash_mount_accepts_bad_crc",
       "the flash backend's mount reads a sector's tag without checking its CRC"},
      {kBugSkipAnyDropsDamagedLog, "skip_any_drops_damaged_log",
       "skip-any recovery applies none of a log's records once it skips damage in it"},
      {kBugTxnGetMissesOwnDelete, "txn_get_misses_own_delete",
       "Transaction::Get of a key the transaction deleted reads the committed value"},
      {kBugGetForUpdateTakesNoLock, "get_for_update_takes_no_lock",
       "GetForUpdate reads without locking the key"},
      {kBugFinishLocksDbUnderTxnMutex, "finish_locks_db_under_txn_mutex",
       "a finished transaction takes the DB mutex under the transaction DB's (lock order)"},
      {kBugUnlockLeaksHeldCount, "unlock_leaks_held_count",
       "releasing a lock no one waits for leaves the lock manager's held count up"},
      {kBugPreparedNamesListFinished, "prepared_names_list_finished",
       "GetPreparedTransactionNames also lists finished transactions whose log is live"},
      {kBugWalFragmentIgnoresHeader, "wal_fragment_ignores_header",
       "the WAL writer sizes a record's fragment without room for its header"},
      {kBugSlowdownRereadsStaleLevel0, "slowdown_rereads_stale_level0",
       "a writer slowed by L0 keeps sleeping on the L0 count it read first"},
      {kBugTableGetReleasesTwice, "table_get_releases_twice",
       "a table Get that finds nothing releases the table's cache handle twice"},
      {kBugCloseJoinsBeforeShutdown, "close_joins_before_shutdown",
       "Close joins the flush thread before telling it to shut down"},
      {kBugIteratorStepReadsLatest, "iterator_step_reads_latest",
       "an iterator without a snapshot reads each step at the DB's latest sequence"},
      {kBugRecoverySkipsKeptLogs, "recovery_skips_kept_logs",
       "recovery skips the older WALs kept for prepared sections"},
      {kBugUnsyncedPrepareSkipsWal, "unsynced_prepare_skips_wal",
       "an unsynced Prepare is acknowledged without its section reaching the WAL"},
      {kBugFlashMountIgnoresLostChunk, "flash_mount_ignores_lost_chunk",
       "the flash backend's mount ends a file at a chunk lost whole, with no error"},
      {kBugFlushWaitReadsMissingMemtable, "flush_wait_reads_missing_memtable",
       "Flush(wait) reads the memtable queued behind the oldest immutable one through a null "
       "pointer"},
      {kBugJournalCloseOmitsStatus, "journal_close_omits_status",
       "the real-backend child journals its clean Close without the status (a harness bug)"},
      {kBugHostedFlushWalAsSyncWal, "hosted_flush_wal_as_sync_wal",
       "a hosted engine's FlushWAL is SyncWAL, leaving RocksDB's log buffer unwritten (hosting "
       "layer)"},
      {kBugRollbackSkipsMarker, "rollback_skips_marker",
       "a write-committed Rollback of a prepared transaction logs no rollback marker"},
  };
  return kBugs;
}

namespace {

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

std::string KnownNames() {
  return absl::StrJoin(AllPlantedBugs(), ", ",
                       [](std::string* out, const PlantedBugInfo& b) { out->append(b.name); });
}

}  // namespace

bool ParsePlantedBugs(const std::string& text, uint64_t* bits, std::string* error) {
  *bits = 0;
  if (text.empty() || text == "none") return true;
  for (absl::string_view name : absl::StrSplit(text, ',')) {
    const PlantedBugInfo* found = nullptr;
    for (const PlantedBugInfo& b : AllPlantedBugs()) {
      if (name == b.name) found = &b;
    }
    if (found == nullptr) {
      return Fail(error,
                  absl::StrCat("unknown planted bug '", name, "' (known: ", KnownNames(), ")"));
    }
    *bits |= found->bit;
  }
  return true;
}

std::string PlantedBugNames(uint64_t bits) {
  std::vector<std::string> names;
  for (const PlantedBugInfo& b : AllPlantedBugs()) {
    if ((bits & b.bit) == 0) continue;
    names.push_back(b.name);
    bits &= ~uint64_t{b.bit};
  }
  if (bits != 0) names.push_back(absl::StrCat("0x", absl::Hex(bits)));
  return absl::StrJoin(names, ",");
}

std::string PlantedBugsUsage() {
  std::string out =
      "\nchecker self-test: --planted_bugs NAME[,NAME] runs an engine that carries these real\n"
      "bugs, to watch which checker reports each (never for testing your own engine):\n";
  for (const PlantedBugInfo& b : AllPlantedBugs()) {
    out += "  " + std::string(b.name) + "\n      " + b.summary + "\n";
  }
  return out;
}

}  // namespace shale::cli
