# Sourced by the planted-bug benchmarks: one row per (planted bug,
# scenario) of tests/bugs/planted_bugs_test.cc, as "bug scenario". The
# benchmarks run every row at the default campaign shape (a test may use
# another to find its bug in fewer seeds).
# shellcheck disable=SC2034
planted_rows=(
  "ack_sync_write_before_wal_sync crash-recovery"
  "skip_dir_sync_after_current crash-recovery"
  "delete_wal_before_manifest crash-recovery"
  "compaction_ignores_snapshots crash-recovery"
  "compaction_ignores_snapshots snapshot"
  "recovery_stops_at_corruption crash-recovery"
  "recovery_commits_prepared crash-recovery"
  "rollback_keeps_data crash-recovery"
  "seek_skips_key_after_tombstone crash-recovery"
  "stale_snapshot_sequence crash-recovery"
  "publish_before_memtable_insert unordered-write"
  "write_prepared_publishes_unprepared unordered-write"
  "retire_section_wal_at_finish crash-recovery"
  "unaligned_direct_write windows"
  "delete_table_before_evict windows"
  "skip_end_of_file_after_padding windows"
  "reuse_delete_pending_name windows"
  "direct_wal_skips_sync_padding crash-recovery"
  "mix_positional_and_append windows"
  "flash_write_off_pointer open-channel"
  "flash_ack_in_device_cache open-channel"
  "flash_allocate_bad_chunk open-channel"
  "flash_reuse_without_reset open-channel"
  "flash_recovery_ignores_oob open-channel"
)
