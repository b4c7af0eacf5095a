// The RocksDB side of `shale diff --against rocksdb`: a DiffEngine over
// Debian's RocksDB 7.8 with the bench adapter's option mapping and Shale's
// diff defaults (64 KiB memtable, 4 KiB blocks, 10 bloom bits, every table
// reader open, no compression). Snapshots are RocksDB's; iterators are
// plain rocksdb::Iterators.
#include <map>
#include <memory>

#include "kv_store.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"
#include "rocksdb_common.h"
#include "scenarios/diff/diff_engine.h"

namespace shale::bench {
namespace {

using scenario::DiffCursor;
using scenario::DiffEngine;
using scenario::DiffOp;

class RocksDbDiffCursor final : public DiffCursor {
 public:
  explicit RocksDbDiffCursor(rocksdb::Iterator* it) : it_(it) {}
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(const Slice& target) override { it_->Seek(ToRocks(target)); }
  void SeekForPrev(const Slice& target) override { it_->SeekForPrev(ToRocks(target)); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  bool Valid() const override { return it_->Valid(); }
  Slice key() const override { return FromRocks(it_->key()); }
  Slice value() const override { return FromRocks(it_->value()); }
  Status status() const override { return FromRocks(it_->status()); }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksDbDiffEngine final : public DiffEngine {
 public:
  explicit RocksDbDiffEngine(std::string path) : path_(std::move(path)) {
    KvOptions o;
    o.write_buffer_size_bytes = 64 << 10;
    o.cache_size_bytes = 8 << 20;
    options_ = ToRocksOptions(o);
  }
  ~RocksDbDiffEngine() override {
    if (db_ != nullptr) (void)Close();
  }

  std::string name() const override { return "rocksdb"; }
  Status Open() override {
    rocksdb::DB* db = nullptr;
    const rocksdb::Status s = rocksdb::DB::Open(options_, path_, &db);
    db_.reset(db);
    return FromRocks(s);
  }
  Status Close() override {
    for (const auto& [id, snapshot] : snapshots_) db_->ReleaseSnapshot(snapshot);
    snapshots_.clear();
    const rocksdb::Status s = db_->Close();
    db_.reset();
    return FromRocks(s);
  }
  Status Put(const Slice& key, const Slice& value) override {
    return FromRocks(db_->Put(rocksdb::WriteOptions(), ToRocks(key), ToRocks(value)));
  }
  Status Delete(const Slice& key) override {
    return FromRocks(db_->Delete(rocksdb::WriteOptions(), ToRocks(key)));
  }
  Status Write(const std::vector<DiffOp::BatchEntry>& batch) override {
    rocksdb::WriteBatch b;
    for (const DiffOp::BatchEntry& e : batch) {
      const rocksdb::Status s = e.is_delete ? b.Delete(e.key) : b.Put(e.key, e.value);
      if (!s.ok()) return FromRocks(s);
    }
    return FromRocks(db_->Write(rocksdb::WriteOptions(), &b));
  }
  void TakeSnapshot(int id) override { snapshots_[id] = db_->GetSnapshot(); }
  void ReleaseSnapshot(int id) override {
    db_->ReleaseSnapshot(snapshots_.at(id));
    snapshots_.erase(id);
  }
  Status Get(const Slice& key, int snapshot, std::string* value) override {
    return FromRocks(db_->Get(At(snapshot), ToRocks(key), value));
  }
  std::unique_ptr<DiffCursor> NewCursor(int snapshot) override {
    return std::make_unique<RocksDbDiffCursor>(db_->NewIterator(At(snapshot)));
  }
  Status Flush() override { return FromRocks(db_->Flush(rocksdb::FlushOptions())); }
  Status CompactRange(const std::string& begin, const std::string& end) override {
    if (begin.empty() && end.empty()) {
      return FromRocks(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr));
    }
    const rocksdb::Slice b(begin), e(end);
    return FromRocks(db_->CompactRange(rocksdb::CompactRangeOptions(), &b, &e));
  }

 private:
  rocksdb::ReadOptions At(int snapshot) const {
    rocksdb::ReadOptions ro;
    if (snapshot >= 0) ro.snapshot = snapshots_.at(snapshot);
    return ro;
  }

  const std::string path_;
  rocksdb::Options options_;
  std::unique_ptr<rocksdb::DB> db_;
  std::map<int, const rocksdb::Snapshot*> snapshots_;
};

}  // namespace

std::unique_ptr<DiffEngine> NewRocksDbDiffEngine(const std::string& path) {
  return std::make_unique<RocksDbDiffEngine>(path);
}

}  // namespace shale::bench
