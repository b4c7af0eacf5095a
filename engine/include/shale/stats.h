// DBStats: the engine's counters, as a plain struct (DB::GetStats) and as
// text (DB::GetProperty("shale.stats")).
//
// Counters only grow while a DB is open; they start at zero on each Open.
#pragma once

#include <cstdint>
#include <string>

namespace shale {

struct DBStats {
  // Table cache
  uint64_t table_reader_opens = 0;  // SST files opened (table-cache misses)
  uint64_t table_cache_hits = 0;
  // Block cache
  uint64_t block_cache_hits = 0;
  uint64_t block_cache_misses = 0;
  uint64_t block_cache_inserts = 0;
  // Bytes through the FileSystem
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t file_reads = 0;  // read calls (syscalls in the real backend)
  // Syncs
  uint64_t wal_syncs = 0;
  uint64_t file_syncs = 0;  // SST, MANIFEST, CURRENT syncs
  uint64_t dir_syncs = 0;
  // Background work
  uint64_t flushes = 0;
  uint64_t compactions = 0;
  uint64_t compaction_bytes_read = 0;
  uint64_t compaction_bytes_written = 0;
  // Compactions picked because Gets ran a file out of seeks
  // (Options::disable_seek_compaction), counted when picked.
  uint64_t seek_compactions = 0;
  // Writes
  uint64_t keys_written = 0;
  uint64_t write_groups = 0;
  // A queued writer's waits for its turn: those that ended while it spun
  // (enable_write_thread_adaptive_yield), and those that blocked.
  uint64_t writer_waits_spun = 0;
  uint64_t writer_waits_blocked = 0;
  uint64_t write_slowdowns = 0;
  uint64_t write_stops = 0;
  uint64_t stall_micros = 0;
  // Reads
  uint64_t gets = 0;
  uint64_t bloom_useful = 0;  // table probes skipped by a bloom filter

  std::string ToString() const;
};

}  // namespace shale
