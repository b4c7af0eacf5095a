// LRU cache: charge-based eviction in LRU order, pinning, Erase, replace.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cache/lru_cache.h"
#include "table/table_test_util.h"
#include "util/coding.h"

using namespace shale;
using namespace shale_test;

namespace {

std::vector<int>* g_deleted = nullptr;

void RecordDelete(const Slice& /*key*/, void* value) {
  g_deleted->push_back(static_cast<int>(reinterpret_cast<intptr_t>(value)));
}

void* V(int v) { return reinterpret_cast<void*>(static_cast<intptr_t>(v)); }

class CacheFixture {
 public:
  explicit CacheFixture(size_t capacity) : cache_(NewLRUCache(capacity, 0, TestRuntimeInstance())) {
    g_deleted = &deleted_;
  }
  ~CacheFixture() {
    cache_.reset();
    g_deleted = nullptr;
  }
  void Put(const std::string& key, int value, size_t charge = 1) {
    cache_->Release(cache_->Insert(key, V(value), charge, &RecordDelete));
  }
  // -1 if absent.
  int Get(const std::string& key) {
    Cache::Handle* h = cache_->Lookup(key);
    if (h == nullptr) return -1;
    const int v = static_cast<int>(reinterpret_cast<intptr_t>(cache_->Value(h)));
    cache_->Release(h);
    return v;
  }
  Cache& cache() { return *cache_; }
  std::vector<int>& deleted() { return deleted_; }

 private:
  std::vector<int> deleted_;
  std::shared_ptr<Cache> cache_;
};

}  // namespace

TEST_CASE("hit, miss and replace", "[cache]") {
  CacheFixture f(100);
  REQUIRE(f.Get("a") == -1);
  f.Put("a", 1);
  REQUIRE(f.Get("a") == 1);
  f.Put("a", 2);
  REQUIRE(f.Get("a") == 2);
  REQUIRE(f.deleted() == std::vector<int>{1});
  REQUIRE(f.cache().GetUsage() == 1);
  REQUIRE(f.cache().GetCapacity() == 100);
}

TEST_CASE("evicts least recently used first, by charge", "[cache]") {
  CacheFixture f(10);
  for (int i = 0; i < 5; i++) f.Put("k" + std::to_string(i), i, 2);
  REQUIRE(f.cache().GetUsage() == 10);
  REQUIRE(f.Get("k0") == 0);  // k0 becomes most recent
  f.Put("big", 100, 4);       // evicts k1 and k2
  REQUIRE(f.deleted() == std::vector<int>{1, 2});
  REQUIRE(f.Get("k0") == 0);
  REQUIRE(f.Get("k1") == -1);
  REQUIRE(f.Get("k3") == 3);
  REQUIRE(f.cache().GetUsage() == 10);
}

TEST_CASE("pinned entries are not evicted and go once released", "[cache]") {
  CacheFixture f(4);
  Cache::Handle* pinned = f.cache().Insert("p", V(7), 3, &RecordDelete);
  f.Put("a", 1, 2);  // usage 5 > 4: only "a" can go
  REQUIRE(f.deleted() == std::vector<int>{1});
  REQUIRE(f.cache().Value(pinned) == V(7));
  Cache::Handle* big = f.cache().Insert("big", V(8), 10, &RecordDelete);
  REQUIRE(f.cache().GetUsage() == 13);  // pinned may exceed capacity
  f.cache().Release(big);               // now evictable: goes at once
  REQUIRE(f.deleted() == std::vector<int>{1, 8});
  REQUIRE(f.Get("p") == 7);
  f.cache().Release(pinned);
  REQUIRE(f.Get("p") == 7);
  REQUIRE(f.cache().GetUsage() == 3);
}

TEST_CASE("erase frees unpinned at once, pinned on release", "[cache]") {
  CacheFixture f(100);
  f.Put("a", 1);
  f.cache().Erase("a");
  REQUIRE(f.deleted() == std::vector<int>{1});
  REQUIRE(f.Get("a") == -1);
  Cache::Handle* h = f.cache().Insert("b", V(2), 1, &RecordDelete);
  f.cache().Erase("b");
  REQUIRE(f.Get("b") == -1);
  REQUIRE(f.deleted().size() == 1);
  REQUIRE(f.cache().Value(h) == V(2));
  f.cache().Release(h);
  REQUIRE(f.deleted() == std::vector<int>{1, 2});
  REQUIRE(f.cache().GetUsage() == 0);
  f.cache().Erase("missing");
}

TEST_CASE("replacing a pinned entry keeps the old value alive", "[cache]") {
  CacheFixture f(100);
  Cache::Handle* old = f.cache().Insert("k", V(1), 1, &RecordDelete);
  f.Put("k", 2);
  REQUIRE(f.Get("k") == 2);
  REQUIRE(f.cache().Value(old) == V(1));
  REQUIRE(f.deleted().empty());
  f.cache().Release(old);
  REQUIRE(f.deleted() == std::vector<int>{1});
}

TEST_CASE("destruction frees every entry, ids are fresh", "[cache]") {
  std::vector<int> deleted;
  g_deleted = &deleted;
  {
    auto cache = NewLRUCache(1000, 4, TestRuntimeInstance());
    const uint64_t a = cache->NewId();
    REQUIRE(cache->NewId() != a);
    for (int i = 0; i < 100; i++) {
      cache->Release(cache->Insert("key" + std::to_string(i), V(i), 1, &RecordDelete));
    }
    REQUIRE(cache->GetUsage() == 100);
    for (int i = 0; i < 100; i++) {
      Cache::Handle* h = cache->Lookup("key" + std::to_string(i));
      REQUIRE(h != nullptr);
      REQUIRE(cache->Value(h) == V(i));
      cache->Release(h);
    }
  }
  REQUIRE(deleted.size() == 100);
  g_deleted = nullptr;
}

TEST_CASE("sharded cache stays within capacity", "[cache]") {
  std::vector<int> deleted;
  g_deleted = &deleted;
  {
    auto cache = NewLRUCache(64, 2, TestRuntimeInstance());
    for (int i = 0; i < 1000; i++) {
      std::string key;
      PutFixed64(&key, i);
      cache->Release(cache->Insert(key, V(i), 1, &RecordDelete));
      REQUIRE(cache->GetUsage() <= 64);
    }
    REQUIRE(deleted.size() >= 1000 - 64);
  }
  REQUIRE(deleted.size() == 1000);
  g_deleted = nullptr;
}

TEST_CASE("a null runtime means Env::Default()'s", "[cache]") {
  // Naming Env::Default() here also pulls the real backend into this
  // binary before libshale_cache needs it (see the report on link order).
  REQUIRE(Env::Default()->runtime() != nullptr);
  auto cache = NewLRUCache(100);
  cache->Release(cache->Insert("k", nullptr, 1, nullptr));
  Cache::Handle* h = cache->Lookup("k");
  REQUIRE(h != nullptr);
  cache->Release(h);
}
