// KvStore over Debian's LevelDB (libleveldb-dev), built only with
// SHALE_BENCH_COMPARE=ON. Option mapping: the same codec where LevelDB has
// it (Snappy; LZ4 and ZSTD run as Snappy, said in Notes), the same write
// buffer and block cache, a 10 bits/key bloom filter, max_open_files at
// LevelDB's ceiling (it has no "-1 = unlimited"). LevelDB cannot turn its
// WAL off and has no transactions, so disable_wal and transaction_db are
// reported in Notes and otherwise ignored.
#include <memory>

#include "kv_store.h"
#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/write_batch.h"
#include "loaded_library.h"

namespace shale::bench {
namespace {

constexpr int kLevelDbMaxOpenFiles = 50000;  // LevelDB clips larger values

leveldb::Slice ToLevelDb(const Slice& s) { return leveldb::Slice(s.data(), s.size()); }
Slice FromLevelDb(const leveldb::Slice& s) { return Slice(s.data(), s.size()); }

Status FromLevelDb(const leveldb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsNotFound()) return Status::NotFound();
  if (s.IsCorruption()) return Status::Corruption("leveldb", s.ToString());
  if (s.IsInvalidArgument()) return Status::InvalidArgument("leveldb", s.ToString());
  return Status::IOError("leveldb", s.ToString());
}

class LevelDbCursor final : public KvCursor {
 public:
  explicit LevelDbCursor(leveldb::Iterator* it) : it_(it) {}
  void SeekToFirst() override { it_->SeekToFirst(); }
  bool Valid() const override { return it_->Valid(); }
  void Next() override { it_->Next(); }
  Slice key() const override { return FromLevelDb(it_->key()); }
  Slice value() const override { return FromLevelDb(it_->value()); }
  Status status() const override { return FromLevelDb(it_->status()); }

 private:
  std::unique_ptr<leveldb::Iterator> it_;
};

class LevelDbKvStore final : public KvStore {
 public:
  ~LevelDbKvStore() override { Close().PermitUncheckedError(); }  // LevelDB's close cannot fail

  std::string_view name() const override { return "LevelDB"; }

  std::string Notes(const KvOptions& o) const override {
    std::string notes = DescribeLoadedLibrary("LevelDB 1.23", "libleveldb.so");
    if (o.disable_wal) notes += "; LevelDB cannot disable its WAL, --disable_wal ignored";
    if (o.transaction_db) notes += "; LevelDB has no transactions, --transaction_db ignored";
    if (o.compression != kNoCompression && o.compression != kSnappyCompression) {
      notes += "; LevelDB has only Snappy: its tables are Snappy-compressed";
    }
    return notes;
  }

  Status Destroy(const std::string& path) override {
    return FromLevelDb(leveldb::DestroyDB(path, leveldb::Options()));
  }

  Status Open(const std::string& path, const KvOptions& o) override {
    cache_.reset(leveldb::NewLRUCache(o.cache_size_bytes));
    filter_.reset(o.bloom_bits_per_key > 0 ? leveldb::NewBloomFilterPolicy(o.bloom_bits_per_key)
                                           : nullptr);
    leveldb::Options options;
    options.create_if_missing = true;
    options.compression =
        o.compression == kNoCompression ? leveldb::kNoCompression : leveldb::kSnappyCompression;
    options.write_buffer_size = o.write_buffer_size_bytes;
    options.max_open_files = o.max_open_files < 0 ? kLevelDbMaxOpenFiles : o.max_open_files;
    options.block_size = o.block_size_bytes;
    options.max_file_size = o.target_file_size_base_bytes;
    options.block_cache = cache_.get();
    options.filter_policy = filter_.get();
    write_options_.sync = o.sync;
    leveldb::DB* db = nullptr;
    const leveldb::Status s = leveldb::DB::Open(options, path, &db);
    db_.reset(db);
    return FromLevelDb(s);
  }

  Status Close() override {
    db_.reset();  // before the cache and filter it uses
    cache_.reset();
    filter_.reset();
    return Status::OK();
  }

  Status Put(const Slice& key, const Slice& value) override {
    return FromLevelDb(db_->Put(write_options_, ToLevelDb(key), ToLevelDb(value)));
  }

  Status Write(std::span<const KvPair> pairs) override {
    leveldb::WriteBatch batch;
    for (const KvPair& p : pairs) batch.Put(ToLevelDb(p.key), ToLevelDb(p.value));
    return FromLevelDb(db_->Write(write_options_, &batch));
  }

  Status Get(const Slice& key, std::string* value) override {
    return FromLevelDb(db_->Get(leveldb::ReadOptions(), ToLevelDb(key), value));
  }

  std::unique_ptr<KvCursor> NewCursor() override {
    return std::make_unique<LevelDbCursor>(db_->NewIterator(leveldb::ReadOptions()));
  }

  Status CompactAll() override {
    db_->CompactRange(nullptr, nullptr);  // LevelDB's returns nothing
    return Status::OK();
  }

  std::string StatsText() override {
    std::string text;
    if (!db_->GetProperty("leveldb.stats", &text)) text = "(leveldb.stats unavailable)";
    return text;
  }

 private:
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::DB> db_;
  leveldb::WriteOptions write_options_;
};

}  // namespace

std::unique_ptr<KvStore> NewLevelDbKvStore() { return std::make_unique<LevelDbKvStore>(); }

}  // namespace shale::bench
