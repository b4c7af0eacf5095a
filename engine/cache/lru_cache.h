// LRUCache: the sharded LRU implementation behind NewLRUCache()
// (shale/cache.h).
//
// Keys hash (Hash64) to one of 2^num_shard_bits shards. Each shard holds a
// hash table of its entries and two intrusive lists: `lru_` (entries only
// the cache references, oldest first: eviction candidates) and `in_use_`
// (entries pinned by at least one handle: never evicted). usage counts the
// charge of every entry still in the table, pinned or not; whenever it is
// above the shard's capacity, unpinned entries are evicted oldest first (on
// Insert and when the last pin of an entry is released).
//
// Ownership: the cache owns each entry's key copy and calls its deleter once
// the entry is both out of the table and unpinned. Destroying the cache with
// pinned handles is a bug (asserted).
// Thread safety: every method locks the shard's Runtime mutex; safe to call
// concurrently. Nothing observable depends on hash-table iteration order.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "shale/cache.h"
#include "shale/env.h"

namespace shale {

class LRUCacheShard;

class LRUCache final : public Cache {
 public:
  // eviction_probe: the coverage probe (util/probes.h) each eviction to
  // stay within capacity counts on runtime; kNoProbe for none.
  // REQUIRES: 0 <= num_shard_bits <= 16; runtime non-null and outlives it.
  static constexpr size_t kNoProbe = SIZE_MAX;
  LRUCache(size_t capacity_bytes, int num_shard_bits, Runtime* runtime,
           size_t eviction_probe = kNoProbe);
  ~LRUCache() override;

  Handle* Insert(const Slice& key, void* value, size_t charge, Deleter deleter) override;
  Handle* Lookup(const Slice& key) override;
  void Release(Handle* handle) override;
  void* Value(Handle* handle) override;
  void Erase(const Slice& key) override;
  uint64_t NewId() override;
  size_t GetCapacity() const override { return capacity_bytes_; }
  size_t GetUsage() const override;

 private:
  LRUCacheShard& ShardFor(uint64_t hash) const;

  const size_t capacity_bytes_;
  const int num_shard_bits_;
  std::vector<std::unique_ptr<LRUCacheShard>> shards_;
  std::atomic<uint64_t> last_id_{0};
};

}  // namespace shale
