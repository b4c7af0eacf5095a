#include "shale/stats.h"

#include <cstdio>

namespace shale {

std::string DBStats::ToString() const {
  std::string out;
  char line[160];
  auto add = [&](const char* name, uint64_t v) {
    snprintf(line, sizeof(line), "%-26s %llu\n", name, static_cast<unsigned long long>(v));
    out += line;
  };
  add("table_reader_opens", table_reader_opens);
  add("table_cache_hits", table_cache_hits);
  add("block_cache_hits", block_cache_hits);
  add("block_cache_misses", block_cache_misses);
  add("block_cache_inserts", block_cache_inserts);
  add("bytes_read", bytes_read);
  add("bytes_written", bytes_written);
  add("file_reads", file_reads);
  add("wal_syncs", wal_syncs);
  add("file_syncs", file_syncs);
  add("dir_syncs", dir_syncs);
  add("flushes", flushes);
  add("compactions", compactions);
  add("compaction_bytes_read", compaction_bytes_read);
  add("compaction_bytes_written", compaction_bytes_written);
  add("seek_compactions", seek_compactions);
  add("keys_written", keys_written);
  add("write_groups", write_groups);
  add("writer_waits_spun", writer_waits_spun);
  add("writer_waits_blocked", writer_waits_blocked);
  add("write_slowdowns", write_slowdowns);
  add("write_stops", write_stops);
  add("stall_micros", stall_micros);
  add("gets", gets);
  add("bloom_useful", bloom_useful);
  return out;
}

}  // namespace shale
