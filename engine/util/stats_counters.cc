#include "util/stats_counters.h"

namespace shale {

DBStats StatsCounters::Snapshot() const {
  auto get = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  DBStats s;
  s.table_reader_opens = get(table_reader_opens);
  s.table_cache_hits = get(table_cache_hits);
  s.block_cache_hits = get(block_cache_hits);
  s.block_cache_misses = get(block_cache_misses);
  s.block_cache_inserts = get(block_cache_inserts);
  s.bytes_read = get(bytes_read);
  s.bytes_written = get(bytes_written);
  s.file_reads = get(file_reads);
  s.wal_syncs = get(wal_syncs);
  s.file_syncs = get(file_syncs);
  s.dir_syncs = get(dir_syncs);
  s.flushes = get(flushes);
  s.compactions = get(compactions);
  s.compaction_bytes_read = get(compaction_bytes_read);
  s.compaction_bytes_written = get(compaction_bytes_written);
  s.seek_compactions = get(seek_compactions);
  s.keys_written = get(keys_written);
  s.write_groups = get(write_groups);
  s.writer_waits_spun = get(writer_waits_spun);
  s.writer_waits_blocked = get(writer_waits_blocked);
  s.write_slowdowns = get(write_slowdowns);
  s.write_stops = get(write_stops);
  s.stall_micros = get(stall_micros);
  s.gets = get(gets);
  s.bloom_useful = get(bloom_useful);
  return s;
}

}  // namespace shale
