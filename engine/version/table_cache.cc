// TableCache (see table_cache.h).
#include "version/table_cache.h"

#include <algorithm>
#include <limits>

#include "cache/lru_cache.h"
#include "util/check.h"
#include "util/coding.h"
#include "util/probes.h"
#include "version/filename.h"

namespace shale {

namespace {

// Readers kept back from max_open_files for the WAL, MANIFEST and others.
constexpr int kReservedOpenFiles = 10;
constexpr size_t kMinTableReaders = 10;

size_t CapacityFor(int max_open_files) {
  if (max_open_files < 0) return std::numeric_limits<size_t>::max() / 2;
  const int readers = max_open_files - kReservedOpenFiles;
  return std::max(kMinTableReaders, static_cast<size_t>(std::max(readers, 0)));
}

void DeleteTable(const Slice& /*key*/, void* value) { delete static_cast<Table*>(value); }

std::string CacheKey(uint64_t file_number) {
  std::string key;
  PutFixed64(&key, file_number);
  return key;
}

}  // namespace

TableCache::TableCache(std::string dbname, const TableOptions& table_options, int max_open_files,
                       Env* env, StatsCounters* stats, const FileOptions& file_options)
    : dbname_(std::move(dbname)),
      table_options_(table_options),
      env_(env),
      stats_(stats),
      file_options_(file_options) {
  SHALE_CHECK(table_options_.comparator != nullptr);
  const size_t capacity = CapacityFor(max_open_files);
  // One shard when bounded, so eviction is exact LRU over all readers (the
  // behaviour the table-cache scenario measures); sharded when unbounded.
  const int shard_bits = max_open_files < 0 ? 4 : 0;
  cache_ = std::make_shared<LRUCache>(capacity, shard_bits, env_->runtime(),
                                      probes::IndexOf("table_cache.reader_evicted"));
}

TableCache::~TableCache() = default;

size_t TableCache::capacity() const { return cache_->GetCapacity(); }

Status TableCache::FindTable(const FileMetaData& file, Cache::Handle** handle) {
  const std::string key = CacheKey(file.number);
  *handle = cache_->Lookup(key);
  if (*handle != nullptr) {
    SHALE_COUNT(stats_, table_cache_hits, 1);
    return Status::OK();
  }
  SHALE_COUNT(stats_, table_reader_opens, 1);
  const std::string path = TableFileName(dbname_, file.number);
  std::unique_ptr<RandomAccessFile> handle_file;
  Status s = env_->fs()->NewRandomAccessFile(path, file_options_, &handle_file);
  std::unique_ptr<Table> table;
  if (s.ok()) {
    auto reader = std::make_unique<RandomAccessFileReader>(std::move(handle_file), path, stats_);
    s = Table::Open(table_options_, std::move(reader), file.file_size, file.tail_size_bytes,
                    &table);
  }
  if (!s.ok()) {
    SHALE_PROBE(env_->runtime(), "table_cache.open_failed");
    return s;  // not cached: a later read retries the open
  }
  *handle = cache_->Insert(key, table.release(), 1, &DeleteTable);
  return Status::OK();
}

Iterator* TableCache::NewIterator(const ReadOptions& options, const FileMetaData& file,
                                  Table** tableptr) {
  if (tableptr != nullptr) *tableptr = nullptr;
  Cache::Handle* handle = nullptr;
  Status s = FindTable(file, &handle);
  if (!s.ok()) return NewErrorIterator(s);
  Table* table = static_cast<Table*>(cache_->Value(handle));
  Iterator* iter = table->NewIterator(options);
  std::shared_ptr<Cache> cache = cache_;
  iter->RegisterCleanup([cache, handle] { cache->Release(handle); });
  if (tableptr != nullptr) *tableptr = table;
  return iter;
}

Status TableCache::Get(const ReadOptions& options, const FileMetaData& file,
                       const Slice& internal_key,
                       const std::function<void(const Slice& key, const Slice& value)>& found) {
  Cache::Handle* handle = nullptr;
  Status s = FindTable(file, &handle);
  if (!s.ok()) return s;
  const Table* table = static_cast<Table*>(cache_->Value(handle));
  if (!plant_release_twice_on_miss_) {
    s = table->InternalGet(options, internal_key, found);
    cache_->Release(handle);
    return s;
  }
  bool any_found = false;  // planted bug: a miss releases the handle twice
  s = table->InternalGet(options, internal_key, [&](const Slice& key, const Slice& value) {
    any_found = true;
    found(key, value);
  });
  cache_->Release(handle);
  if (!any_found) cache_->Release(handle);
  return s;
}

void TableCache::Evict(uint64_t file_number) { cache_->Erase(CacheKey(file_number)); }

}  // namespace shale
