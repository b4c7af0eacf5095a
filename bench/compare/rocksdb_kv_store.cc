// KvStore over Debian's RocksDB (librocksdb-dev 7.8), built only with
// SHALE_BENCH_COMPARE=ON. Option mapping: the same block codec, the same write
// buffer and LRU block cache, a 10 bits/key bloom filter, max_open_files -1,
// RocksDB's default two background jobs (as Shale), WAL and sync per flags,
// and the write-path options (allow_concurrent_memtable_write,
// enable_pipelined_write, unordered_write, two_write_queues) as the flags set
// them. With transaction_db the store is a rocksdb::TransactionDB
// (WRITE_PREPARED) and every Put/Write goes through it, as db_bench's.
#include <memory>

#include "kv_store.h"
#include "loaded_library.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/transaction_db.h"
#include "rocksdb/write_batch.h"
#include "rocksdb_common.h"

namespace shale::bench {
namespace {

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
    return DescribeLoadedLibrary("RocksDB 7.8.3", "librocksdb.so");
  }

  Status Destroy(const std::string& path) override {
    return FromRocks(rocksdb::DestroyDB(path, rocksdb::Options()));
  }

  Status Open(const std::string& path, const KvOptions& o) override {
    const rocksdb::Options options = ToRocksOptions(o);
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
