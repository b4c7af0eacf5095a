// StatsCounters: the engine's live counters. Every component that does
// counted work takes a StatsCounters* (nullptr = don't count) and bumps it
// with relaxed atomics; DB::GetStats() copies them into a DBStats.
//
// Thread safety: all members are atomics; safe from any thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "shale/stats.h"

namespace shale {

struct StatsCounters {
  std::atomic<uint64_t> table_reader_opens{0};
  std::atomic<uint64_t> table_cache_hits{0};
  std::atomic<uint64_t> block_cache_hits{0};
  std::atomic<uint64_t> block_cache_misses{0};
  std::atomic<uint64_t> block_cache_inserts{0};
  std::atomic<uint64_t> bytes_read{0};
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint64_t> file_reads{0};
  std::atomic<uint64_t> wal_syncs{0};
  std::atomic<uint64_t> file_syncs{0};
  std::atomic<uint64_t> dir_syncs{0};
  std::atomic<uint64_t> flushes{0};
  std::atomic<uint64_t> compactions{0};
  std::atomic<uint64_t> compaction_bytes_read{0};
  std::atomic<uint64_t> compaction_bytes_written{0};
  std::atomic<uint64_t> seek_compactions{0};
  std::atomic<uint64_t> keys_written{0};
  std::atomic<uint64_t> write_groups{0};
  std::atomic<uint64_t> writer_waits_spun{0};
  std::atomic<uint64_t> writer_waits_blocked{0};
  std::atomic<uint64_t> write_slowdowns{0};
  std::atomic<uint64_t> write_stops{0};
  std::atomic<uint64_t> stall_micros{0};
  std::atomic<uint64_t> gets{0};
  std::atomic<uint64_t> bloom_useful{0};

  DBStats Snapshot() const;
};

// Adds n to *counter if counters is not nullptr.
#define SHALE_COUNT(counters, field, n)                                                     \
  do {                                                                                      \
    if ((counters) != nullptr) (counters)->field.fetch_add((n), std::memory_order_relaxed); \
  } while (0)

}  // namespace shale
