// KvStore over the Shale engine (shale::DB). Option mapping: one to one.
// With transaction_db the store is a TransactionDB (WritePrepared) and every
// Put/Write goes through its DB interface, as db_bench's --transaction_db.
#include <memory>

#include "kv_store.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/transaction_db.h"

namespace shale::bench {
namespace {

class ShaleCursor final : public KvCursor {
 public:
  explicit ShaleCursor(Iterator* it) : it_(it) {}
  void SeekToFirst() override { it_->SeekToFirst(); }
  bool Valid() const override { return it_->Valid(); }
  void Next() override { it_->Next(); }
  Slice key() const override { return it_->key(); }
  Slice value() const override { return it_->value(); }
  Status status() const override { return it_->status(); }

 private:
  std::unique_ptr<Iterator> it_;
};

class ShaleKvStore final : public KvStore {
 public:
  std::string_view name() const override { return "Shale"; }

  std::string Notes(const KvOptions&) const override {
#ifndef NDEBUG
    return "built without NDEBUG: assertions are on, so figures understate a release build";
#else
    return "";
#endif
  }

  Status Destroy(const std::string& path) override { return DestroyDB(path, Options()); }

  Status Open(const std::string& path, const KvOptions& o) override {
    Options options;
    options.create_if_missing = true;
    options.write_buffer_size = o.write_buffer_size_bytes;
    options.bloom_bits_per_key = o.bloom_bits_per_key;
    options.block_size = o.block_size_bytes;
    options.compression = o.compression;
    options.allow_mmap_reads = o.mmap_read;
    options.allow_mmap_writes = o.mmap_write;
    options.max_open_files = o.max_open_files;
    options.target_file_size_base = o.target_file_size_base_bytes;
    options.env = o.env;  // nullptr: the real backend
    options.block_cache = NewLRUCache(o.cache_size_bytes, /*num_shard_bits=*/4,
                                      o.env != nullptr ? o.env->runtime() : nullptr);
    options.allow_concurrent_memtable_write = o.allow_concurrent_memtable_write;
    options.enable_pipelined_write = o.enable_pipelined_write;
    options.unordered_write = o.unordered_write;
    options.two_write_queues = o.two_write_queues;
    options.memtable_huge_pages = o.memtable_huge_pages;
    options.disable_seek_compaction = !o.seek_compaction;
    options.memtable_prefix_bloom_size_ratio = o.memtable_bloom_size_ratio;
    options.memtable_whole_key_filtering = o.memtable_whole_key_filtering;
    write_options_.sync = o.sync;
    write_options_.disable_wal = o.disable_wal;
    if (!o.transaction_db) return DB::Open(options, path, &db_);
    TransactionDBOptions txn_options;
    txn_options.write_policy = TxnWritePolicy::kWritePrepared;
    txn_options.skip_concurrency_control = o.txn_skip_concurrency_control;
    std::unique_ptr<TransactionDB> txn_db;
    const Status s = TransactionDB::Open(options, txn_options, path, &txn_db);
    db_ = std::move(txn_db);
    return s;
  }

  Status Close() override {
    if (db_ == nullptr) return Status::OK();
    Status s = db_->Close();
    db_.reset();
    return s;
  }

  Status Put(const Slice& key, const Slice& value) override {
    return db_->Put(write_options_, key, value);
  }

  Status Write(std::span<const KvPair> pairs) override {
    WriteBatch batch;
    for (const KvPair& p : pairs) batch.Put(p.key, p.value);
    return db_->Write(write_options_, &batch);
  }

  Status Get(const Slice& key, std::string* value) override {
    return db_->Get(ReadOptions(), key, value);
  }

  std::unique_ptr<KvCursor> NewCursor() override {
    return std::make_unique<ShaleCursor>(db_->NewIterator(ReadOptions()));
  }

  Status CompactAll() override {
    return db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  }

  std::string StatsText() override {
    std::string text;
    if (!db_->GetProperty("shale.stats", &text)) text = "(shale.stats unavailable)";
    return text;
  }

 private:
  std::unique_ptr<DB> db_;
  WriteOptions write_options_;
};

}  // namespace

std::unique_ptr<KvStore> NewShaleKvStore() { return std::make_unique<ShaleKvStore>(); }

}  // namespace shale::bench
