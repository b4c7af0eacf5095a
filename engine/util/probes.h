// Coverage probes: named rare paths of the engine that a simulation
// campaign should reach (FoundationDB's CODE_PROBE, TigerBeetle's coverage
// marks). SHALE_PROBE(runtime, "name") on such a path counts a hit when the
// runtime counts probes (the simulator's does: Runtime::CountProbesIn);
// in the real runtime it is one branch that is never taken. A campaign
// counts, per probe, the seeds that reached it, lists the probes none
// reached, and with --require_probes fails if a required one stayed at
// zero.
//
// Every probe is a row of kProbes, and a name that is not a row does not
// compile (IndexOf is consteval). ci/check_probes.sh checks that each row is
// placed in the engine exactly once. Rows are sorted by name.
//
// Thread safety: constants only.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace shale::probes {

struct ProbeInfo {
  std::string_view name;  // area.what_happened
  std::string_view what;  // one line for `shale probes`
};

inline constexpr ProbeInfo kProbes[] = {
    {"cache.block_evicted", "the block cache evicted a block to stay within its capacity"},
    {"compaction.l0_blocked_by_running", "a level-0 pick waited: a level-0 compaction was running"},
    {"compaction.manual_waited_for_running", "CompactRange waited for a running compaction"},
    {"compaction.seek_compaction_picked", "a file ran out of seeks and was picked for compaction"},
    {"compaction.tombstone_dropped", "a deletion was dropped: no deeper level holds its key"},
    {"compaction.trivial_move", "a compaction moved its one input file down a level unchanged"},
    {"compaction.version_kept_for_snapshot",
     "an older version of a key survived compaction because a snapshot sees it"},
    {"compaction.version_kept_uncommitted",
     "compaction kept a version of a transaction that has not committed"},
    {"db.background_error_set", "a background error made the DB refuse writes"},
    {"files.leftover_temp_file_deleted",
     "a temporary file a crash left behind (a CURRENT being written) was deleted"},
    {"manifest.rolled_over", "the MANIFEST reached max_manifest_file_size and a new one started"},
    {"manifest.write_failed", "a MANIFEST write or sync failed (LogAndApply)"},
    {"read.get_from_immutable_memtable", "a Get was answered by an immutable memtable"},
    {"recovery.absolute_consistency_refused", "kAbsoluteConsistency refused a damaged WAL"},
    {"recovery.damage_in_log_already_in_tables",
     "recovery refused damage in a WAL whose writes are already in tables"},
    {"recovery.logs_after_stop_deleted", "a point-in-time stop deleted the WALs after it"},
    {"recovery.manifest_torn_tail_dropped", "recovery dropped a torn record at the MANIFEST's end"},
    {"recovery.memtable_flushed_during_replay",
     "WAL replay filled a memtable and wrote it to a table before Open finished"},
    {"recovery.multiple_wals_replayed", "recovery replayed two or more WALs"},
    {"recovery.orphan_manifest_found",
     "Open found a MANIFEST newer than the one CURRENT names (a crash while creating it)"},
    {"recovery.point_in_time_stopped_at_corruption",
     "point-in-time recovery stopped at a corrupt WAL record"},
    {"recovery.prepared_txn_finished_by_marker",
     "a recovered prepared transaction's commit or rollback marker was found in a later WAL"},
    {"recovery.prepared_txn_recovered",
     "Open recovered a prepared transaction that the application must finish"},
    {"recovery.skip_any_skipped_damage", "kSkipAnyCorruptedRecords skipped damage and read on"},
    {"recovery.tolerate_tail_refused", "kTolerateCorruptedTailRecords refused a corrupt record"},
    {"recovery.wal_cut_to_replayed_prefix", "recovery cut a damaged WAL back to what it replayed"},
    {"recovery.wal_read_for_txn_markers_only",
     "recovery read a WAL only for its transaction markers (its writes are in tables)"},
    {"recovery.wal_torn_tail_ended_replay", "WAL replay ended at a torn (truncated) last record"},
    {"table.block_corruption_detected",
     "a table block failed its checksum or decompression and was reported as Corruption"},
    {"table_cache.open_failed", "opening a table reader failed"},
    {"table_cache.reader_evicted", "the table cache closed a reader to stay within max_open_files"},
    {"txn.prepared_rolled_back", "a prepared transaction was rolled back"},
    {"write.group_of_several", "a write group's leader wrote two or more writers' batches"},
    {"write.memtable_switch_waited_for_inserts",
     "a memtable switch waited for concurrent memtable inserts to finish"},
    {"write.old_wal_sync_failed", "syncing the old WAL at a switch failed"},
    {"write.refused_background_error", "a write was refused because of a background error"},
    {"write.second_queue_leader", "a write led the second (WAL-only) write queue"},
    {"write.slowdown", "a write was delayed: level 0 reached its slowdown trigger"},
    {"write.stop_level0", "writes stopped: level 0 reached its stop trigger"},
    {"write.stop_memtables", "writes stopped: every write buffer was full"},
};

inline constexpr size_t kCount = std::size(kProbes);

inline constexpr std::array<std::string_view, kCount> kNames = [] {
  std::array<std::string_view, kCount> names{};
  for (size_t i = 0; i < kCount; i++) names[i] = kProbes[i].name;
  return names;
}();

// Not constexpr: reaching it during constant evaluation is the compile
// error a probe name missing from kProbes gives.
size_t UnknownProbeName();

consteval size_t IndexOf(std::string_view name) {
  for (size_t i = 0; i < kCount; i++) {
    if (kProbes[i].name == name) return i;
  }
  return UnknownProbeName();
}

}  // namespace shale::probes

// Counts a hit of the probe named name (a string literal listed in
// kProbes) on runtime, a shale::Runtime*.
#define SHALE_PROBE(runtime, name) (runtime)->Probe(::shale::probes::IndexOf(name))
