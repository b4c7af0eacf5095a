#include "cache/lru_cache.h"

#include <string_view>
#include <vector>

#include "util/check.h"
#include "util/hash.h"
#include "util/mutexlock.h"
#include "util/probes.h"

namespace shale {

namespace {

struct LRUEntry : Cache::Handle {
  void* value = nullptr;
  Cache::Deleter deleter = nullptr;
  size_t charge = 0;
  uint64_t hash = 0;
  uint32_t refs = 0;      // the table's reference + one per pinning handle
  bool in_table = false;  // still reachable through the hash table
  LRUEntry* prev = nullptr;
  LRUEntry* next = nullptr;
  LRUEntry* next_in_bucket = nullptr;
  std::string key;
};

// A chained hash table of entries by (hash, key) with a power-of-two bucket
// array that doubles when the load passes 1. Never iterated.
class EntryTable {
 public:
  EntryTable() : buckets_(16, nullptr) {}
  LRUEntry* Find(std::string_view key, uint64_t hash) { return *Slot(key, hash); }
  // Adds e; returns the entry it displaced (same key) or nullptr.
  LRUEntry* Insert(LRUEntry* e) {
    LRUEntry** slot = Slot(e->key, e->hash);
    LRUEntry* old = *slot;
    e->next_in_bucket = old == nullptr ? nullptr : old->next_in_bucket;
    *slot = e;
    if (old == nullptr && ++size_ > buckets_.size()) Grow();
    return old;
  }
  LRUEntry* Remove(std::string_view key, uint64_t hash) {
    LRUEntry** slot = Slot(key, hash);
    LRUEntry* e = *slot;
    if (e != nullptr) {
      *slot = e->next_in_bucket;
      size_--;
    }
    return e;
  }

 private:
  // The link that points at the matching entry, or the null end of its chain.
  LRUEntry** Slot(std::string_view key, uint64_t hash) {
    LRUEntry** slot = &buckets_[hash & (buckets_.size() - 1)];
    while (*slot != nullptr && ((*slot)->hash != hash || (*slot)->key != key)) {
      slot = &(*slot)->next_in_bucket;
    }
    return slot;
  }
  void Grow() {
    std::vector<LRUEntry*> bigger(buckets_.size() * 2, nullptr);
    for (LRUEntry* head : buckets_) {
      while (head != nullptr) {
        LRUEntry* next = head->next_in_bucket;
        LRUEntry** slot = &bigger[head->hash & (bigger.size() - 1)];
        head->next_in_bucket = *slot;
        *slot = head;
        head = next;
      }
    }
    buckets_.swap(bigger);
  }

  std::vector<LRUEntry*> buckets_;
  size_t size_ = 0;
};

// A circular doubly linked list with a sentinel.
struct EntryList {
  LRUEntry head;
  EntryList() { head.prev = head.next = &head; }
  bool empty() const { return head.next == &head; }
  void PushBack(LRUEntry* e) {
    e->next = &head;
    e->prev = head.prev;
    e->prev->next = e;
    e->next->prev = e;
  }
  static void Remove(LRUEntry* e) {
    e->next->prev = e->prev;
    e->prev->next = e->next;
    e->prev = e->next = nullptr;
  }
};

uint64_t HashKey(const Slice& key) { return Hash64(key.data(), key.size(), 0x5ca1ab1e); }

}  // namespace

class LRUCacheShard {
 public:
  LRUCacheShard(size_t capacity_bytes, Runtime* runtime, size_t eviction_probe)
      : capacity_bytes_(capacity_bytes),
        mu_(runtime->NewMutex()),
        runtime_(runtime),
        eviction_probe_(eviction_probe) {}
  ~LRUCacheShard() {
    SHALE_CHECK(in_use_.empty());  // a handle outlived the cache
    while (!lru_.empty()) {
      LRUEntry* e = lru_.head.next;
      SHALE_CHECK(e->refs == 1 && e->in_table);
      EntryList::Remove(e);
      e->refs = 0;
      e->in_table = false;
      Free(e);
    }
  }

  Cache::Handle* Insert(const Slice& key, uint64_t hash, void* value, size_t charge,
                        Cache::Deleter deleter) {
    auto* e = new LRUEntry;
    e->value = value;
    e->deleter = deleter;
    e->charge = charge;
    e->hash = hash;
    e->refs = 2;  // the table and the returned handle
    e->in_table = true;
    e->key.assign(key.data(), key.size());
    MutexLock lock(mu_.get());
    in_use_.PushBack(e);
    usage_bytes_ += charge;
    // A replaced entry lives on while pinned.
    if (LRUEntry* old = table_.Insert(e)) DropFromTable(old);
    EvictWhileOverCapacity();
    return e;
  }

  Cache::Handle* Lookup(const Slice& key, uint64_t hash) {
    MutexLock lock(mu_.get());
    LRUEntry* e = table_.Find(key.view(), hash);
    if (e == nullptr) return nullptr;
    if (e->refs == 1) {  // only the table held it: pin it
      EntryList::Remove(e);
      in_use_.PushBack(e);
    }
    e->refs++;
    return e;
  }

  void Release(Cache::Handle* handle) {
    MutexLock lock(mu_.get());
    Unref(static_cast<LRUEntry*>(handle));
    EvictWhileOverCapacity();
  }

  void Erase(const Slice& key, uint64_t hash) {
    MutexLock lock(mu_.get());
    if (LRUEntry* e = table_.Remove(key.view(), hash)) DropFromTable(e);
  }

  size_t usage_bytes() const {
    MutexLock lock(mu_.get());
    return usage_bytes_;
  }

 private:
  // REQUIRES: mu_ held; e already removed from table_.
  void DropFromTable(LRUEntry* e) {
    SHALE_CHECK(e->in_table);
    e->in_table = false;
    usage_bytes_ -= e->charge;
    Unref(e);
  }

  // REQUIRES: mu_ held.
  void Unref(LRUEntry* e) {
    SHALE_CHECK(e->refs > 0);
    e->refs--;
    if (e->refs == 0) {
      EntryList::Remove(e);
      Free(e);
    } else if (e->refs == 1 && e->in_table) {  // last pin released
      EntryList::Remove(e);
      lru_.PushBack(e);
    }
  }

  // REQUIRES: mu_ held.
  void EvictWhileOverCapacity() {
    while (usage_bytes_ > capacity_bytes_ && !lru_.empty()) {
      LRUEntry* oldest = lru_.head.next;
      SHALE_CHECK(oldest->refs == 1 && oldest->in_table);
      LRUEntry* removed = table_.Remove(oldest->key, oldest->hash);
      SHALE_CHECK(removed == oldest);
      DropFromTable(removed);
      runtime_->Probe(eviction_probe_);
    }
  }

  static void Free(LRUEntry* e) {
    SHALE_CHECK(e->refs == 0 && !e->in_table);
    if (e->deleter != nullptr) e->deleter(Slice(e->key), e->value);
    delete e;
  }

  const size_t capacity_bytes_;
  std::unique_ptr<Mutex> mu_;
  Runtime* const runtime_;
  const size_t eviction_probe_;
  size_t usage_bytes_ = 0;
  EntryList lru_;     // refs == 1, oldest first
  EntryList in_use_;  // refs >= 2
  EntryTable table_;
};

LRUCache::LRUCache(size_t capacity_bytes, int num_shard_bits, Runtime* runtime,
                   size_t eviction_probe)
    : capacity_bytes_(capacity_bytes), num_shard_bits_(num_shard_bits) {
  SHALE_CHECK(num_shard_bits >= 0 && num_shard_bits <= 16);
  SHALE_CHECK(runtime != nullptr);
  const size_t num_shards = size_t{1} << num_shard_bits;
  const size_t per_shard = (capacity_bytes + num_shards - 1) / num_shards;
  for (size_t i = 0; i < num_shards; i++) {
    shards_.push_back(std::make_unique<LRUCacheShard>(per_shard, runtime, eviction_probe));
  }
}

LRUCache::~LRUCache() = default;

LRUCacheShard& LRUCache::ShardFor(uint64_t hash) const {
  const size_t index =
      num_shard_bits_ == 0 ? 0 : static_cast<size_t>(hash >> (64 - num_shard_bits_));
  return *shards_[index];
}

Cache::Handle* LRUCache::Insert(const Slice& key, void* value, size_t charge, Deleter deleter) {
  const uint64_t hash = HashKey(key);
  return ShardFor(hash).Insert(key, hash, value, charge, deleter);
}

Cache::Handle* LRUCache::Lookup(const Slice& key) {
  const uint64_t hash = HashKey(key);
  return ShardFor(hash).Lookup(key, hash);
}

void LRUCache::Release(Handle* handle) {
  ShardFor(static_cast<LRUEntry*>(handle)->hash).Release(handle);
}

void* LRUCache::Value(Handle* handle) { return static_cast<LRUEntry*>(handle)->value; }

void LRUCache::Erase(const Slice& key) {
  const uint64_t hash = HashKey(key);
  ShardFor(hash).Erase(key, hash);
}

uint64_t LRUCache::NewId() { return last_id_.fetch_add(1, std::memory_order_relaxed) + 1; }

size_t LRUCache::GetUsage() const {
  size_t total = 0;
  for (const auto& shard : shards_) total += shard->usage_bytes();
  return total;
}

std::shared_ptr<Cache> NewLRUCache(size_t capacity_bytes, int num_shard_bits, Runtime* runtime) {
  if (runtime == nullptr) runtime = Env::Default()->runtime();
  return std::make_shared<LRUCache>(capacity_bytes, num_shard_bits, runtime,
                                    probes::IndexOf("cache.block_evicted"));
}

}  // namespace shale
