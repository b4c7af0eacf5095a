// Options the table layer needs, derived from shale::Options by the DB.
#pragma once

#include <cstddef>
#include <cstdint>

#include "db/dbformat.h"
#include "shale/cache.h"
#include "shale/env.h"
#include "shale/options.h"
#include "util/stats_counters.h"

namespace shale {

struct TableOptions {
  // REQUIRES: non-null; outlives every builder and reader.
  const InternalKeyComparator* comparator = nullptr;
  size_t block_size = 4096;
  int block_restart_interval = 16;
  // Whole-user-key bloom filter; 0 writes no filter.
  int bloom_bits_per_key = 10;
  // How data and index blocks are stored (filter, properties and metaindex
  // blocks are always raw). A block that does not shrink by one eighth is
  // stored raw. REQUIRES: not kDisableCompressionOption.
  CompressionType compression = kNoCompression;
  // Block cache for data blocks; nullptr disables caching.
  Cache* block_cache = nullptr;
  // Verify block checksums when opening a table (index, filter, properties)
  // and when reading data blocks into the cache.
  bool paranoid_checks = true;
  StatsCounters* stats = nullptr;  // may be nullptr
  // Where coverage probes count (util/probes.h); may be nullptr.
  Runtime* runtime = nullptr;
};

}  // namespace shale
