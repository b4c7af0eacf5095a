// KvStore over Debian's RocksDB (librocksdb-dev 7.8), built only with
// SHALE_BENCH_COMPARE=ON. Option mapping: no compression, the same write
// buffer and LRU block cache, a 10 bits/key bloom filter, max_open_files -1,
// RocksDB's default two background jobs (as Shale), WAL and sync per flags,
// and the write-path options (allow_concurrent_memtable_write,
// enable_pipelined_write, unordered_write, two_write_queues) as the flags set
// them. With transaction_db the store is a rocksdb::TransactionDB
// (WRITE_PREPARED) and every Put/Write goes through it, as db_bench's.
#include <memory>

#include "kv_store.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/transaction_db.h"
#include "rocksdb/write_batch.h"

namespace shale::bench {
namespace {

rocksdb::Slice ToRocks(const Slice& s) { return rocksdb::Slice(s.data(), s.size()); }
Slice FromRocks(const rocksdb::Slice& s) { return Slice(s.data(), s.size()); }

Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsNotFound()) return Status::NotFound();
  if (s.IsCorruption()) return Status::Corruption("rocksdb", s.ToString());
  if (s.IsInvalidArgument()) return Status::InvalidArgument("rocksdb", s.ToString());
  if (s.IsNotSupported()) return Status::NotSupported("rocksdb", s.ToString());
  return Status::IOError("rocksdb", s.ToString());
}

class RocksDbCursor final : public KvCursor {
 public:
  explicit RocksDbCursor(rocksdb::Iterator* it) : it_(it) {}
  void SeekToFirst() override { it_->SeekToFirst(); }
  bool Valid() const override { return it_->Valid(); }
  void Next() override { it_->Next(); }
  Slice key() const override { return FromRocks(it_->key()); }
  Slice value() const override { return FromRocks(it_->value()); }
  Status status() const override { return FromRocks(it_->status()); }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksDbKvStore final : public KvStore {
 public:
  ~RocksDbKvStore() override {
    // A close error here has no caller to go to; Close() reports it.
    Close().PermitUncheckedError();
  }

  std::string_view name() const override { return "RocksDB"; }

  std::string Notes(const KvOptions&) const override {
    return "Debian librocksdb 7.8.3 is built without NDEBUG (6390 __assert_fail call sites in "
           "librocksdb.so): assertions on, so it runs slower than a release build";
  }

  Status Destroy(const std::string& path) override {
    return FromRocks(rocksdb::DestroyDB(path, rocksdb::Options()));
  }

  Status Open(const std::string& path, const KvOptions& o) override {
    rocksdb::BlockBasedTableOptions table;
    table.block_cache = rocksdb::NewLRUCache(o.cache_size_bytes);
    if (o.bloom_bits_per_key > 0) {
      table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(o.bloom_bits_per_key));
    }
    table.block_size = o.block_size_bytes;
    rocksdb::Options options;
    options.create_if_missing = true;
    options.compression = rocksdb::kNoCompression;
    options.write_buffer_size = o.write_buffer_size_bytes;
    options.max_open_files = o.max_open_files;
    options.target_file_size_base = o.target_file_size_base_bytes;
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    options.allow_concurrent_memtable_write = o.allow_concurrent_memtable_write;
    options.enable_pipelined_write = o.enable_pipelined_write;
    options.unordered_write = o.unordered_write;
    options.two_write_queues = o.two_write_queues;
    write_options_.sync = o.sync;
    write_options_.disableWAL = o.disable_wal;
    if (!o.transaction_db) {
      rocksdb::DB* db = nullptr;
      const rocksdb::Status s = rocksdb::DB::Open(options, path, &db);
      db_.reset(db);
      return FromRocks(s);
    }
    rocksdb::TransactionDBOptions txn_options;
    txn_options.write_policy = rocksdb::TxnDBWritePolicy::WRITE_PREPARED;
    txn_options.skip_concurrency_control = o.txn_skip_concurrency_control;
    rocksdb::TransactionDB* txn_db = nullptr;
    const rocksdb::Status s = rocksdb::TransactionDB::Open(options, txn_options, path, &txn_db);
    db_.reset(txn_db);
    return FromRocks(s);
  }

  Status Close() override {
    if (db_ == nullptr) return Status::OK();
    const rocksdb::Status s = db_->Close();
    db_.reset();
    return FromRocks(s);
  }

  Status Put(const Slice& key, const Slice& value) override {
    return FromRocks(db_->Put(write_options_, ToRocks(key), ToRocks(value)));
  }

  Status Write(std::span<const KvPair> pairs) override {
    rocksdb::WriteBatch batch;
    for (const KvPair& p : pairs) {
      const rocksdb::Status s = batch.Put(ToRocks(p.key), ToRocks(p.value));
      if (!s.ok()) return FromRocks(s);
    }
    return FromRocks(db_->Write(write_options_, &batch));
  }

  Status Get(const Slice& key, std::string* value) override {
    return FromRocks(db_->Get(rocksdb::ReadOptions(), ToRocks(key), value));
  }

  std::unique_ptr<KvCursor> NewCursor() override {
    return std::make_unique<RocksDbCursor>(db_->NewIterator(rocksdb::ReadOptions()));
  }

  Status CompactAll() override {
    return FromRocks(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr));
  }

  std::string StatsText() override {
    std::string text;
    if (!db_->GetProperty("rocksdb.stats", &text)) text = "(rocksdb.stats unavailable)";
    return text;
  }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::WriteOptions write_options_;
};

}  // namespace

std::unique_ptr<KvStore> NewRocksDbKvStore() { return std::make_unique<RocksDbKvStore>(); }

}  // namespace shale::bench
