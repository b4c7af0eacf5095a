// Cache: a byte-bounded key -> value cache with pinned handles (the block
// cache and the table cache are both one).
//
// Ownership: Insert takes ownership of value and calls deleter(key, value)
// when the entry is evicted and no handle pins it. Lookup/Insert return a
// handle that pins the entry until Release.
// Thread safety: all methods are safe to call concurrently; the engine
// serializes them under one of its own mutexes only if the implementation
// needs it (NewLRUCache's does not: it locks internally via the Env runtime
// passed at creation, or a spin-free single-thread path when none is given).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "shale/slice.h"

namespace shale {

class Runtime;

class Cache {
 public:
  struct Handle {};
  using Deleter = void (*)(const Slice& key, void* value);

  virtual ~Cache() = default;

  // Inserts key -> value costing charge bytes, replacing any entry with the
  // same key. Returns a pinning handle. May evict unpinned entries to keep
  // usage <= capacity (pinned entries may push it above capacity).
  virtual Handle* Insert(const Slice& key, void* value, size_t charge, Deleter deleter) = 0;
  // Returns a pinning handle, or nullptr if absent.
  virtual Handle* Lookup(const Slice& key) = 0;
  // REQUIRES: handle came from this cache and was not released yet.
  virtual void Release(Handle* handle) = 0;
  // REQUIRES: handle is pinned.
  virtual void* Value(Handle* handle) = 0;
  // Drops the entry for key (it is freed once unpinned).
  virtual void Erase(const Slice& key) = 0;
  // A fresh id for namespacing keys of one user of a shared cache.
  virtual uint64_t NewId() = 0;
  virtual size_t GetCapacity() const = 0;
  virtual size_t GetUsage() const = 0;
};

// An LRU cache holding at most capacity_bytes of unpinned charge, split into
// 2^num_shard_bits shards: the block cache (Options::block_cache). runtime
// supplies its mutexes (nullptr means Env::Default()'s runtime), and its
// evictions count as the "cache.block_evicted" coverage probe there.
std::shared_ptr<Cache> NewLRUCache(size_t capacity_bytes, int num_shard_bits = 4,
                                   Runtime* runtime = nullptr);

}  // namespace shale
