// ShaleDiffEngine. See shale_diff_engine.h.
#include "scenarios/diff/shale_diff_engine.h"

#include <cassert>
#include <map>

#include "shale/db.h"
#include "shale/iterator.h"
#include "shale/write_batch.h"

namespace shale::scenario {

namespace {

class ShaleCursor final : public DiffCursor {
 public:
  explicit ShaleCursor(Iterator* it) : it_(it) {}
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(const Slice& target) override { it_->Seek(target); }
  void SeekForPrev(const Slice& target) override { it_->SeekForPrev(target); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  bool Valid() const override { return it_->Valid(); }
  Slice key() const override { return it_->key(); }
  Slice value() const override { return it_->value(); }
  Status status() const override { return it_->status(); }

 private:
  std::unique_ptr<Iterator> it_;
};

class ShaleDiffEngine final : public DiffEngine {
 public:
  ShaleDiffEngine(const Options& options, std::string path)
      : options_(options), path_(std::move(path)) {
    assert(options_.env != nullptr);
    options_.create_if_missing = true;
  }
  ~ShaleDiffEngine() override {
    if (db_ != nullptr) (void)Close();
  }

  std::string name() const override { return "shale"; }
  Status Open() override { return DB::Open(options_, path_, &db_); }
  Status Close() override {
    for (const auto& [id, snapshot] : snapshots_) db_->ReleaseSnapshot(snapshot);
    snapshots_.clear();
    const Status s = db_->Close();
    db_.reset();
    return s;
  }
  Status Put(const Slice& key, const Slice& value) override {
    return db_->Put(WriteOptions(), key, value);
  }
  Status Delete(const Slice& key) override { return db_->Delete(WriteOptions(), key); }
  Status Write(const std::vector<DiffOp::BatchEntry>& batch) override {
    WriteBatch b;
    for (const DiffOp::BatchEntry& e : batch) e.is_delete ? b.Delete(e.key) : b.Put(e.key, e.value);
    return db_->Write(WriteOptions(), &b);
  }
  void TakeSnapshot(int id) override { snapshots_[id] = db_->GetSnapshot(); }
  void ReleaseSnapshot(int id) override {
    db_->ReleaseSnapshot(snapshots_.at(id));
    snapshots_.erase(id);
  }
  Status Get(const Slice& key, int snapshot, std::string* value) override {
    return db_->Get(At(snapshot), key, value);
  }
  std::unique_ptr<DiffCursor> NewCursor(int snapshot) override {
    return std::make_unique<ShaleCursor>(db_->NewIterator(At(snapshot)));
  }
  Status Flush() override { return db_->Flush(FlushOptions()); }
  Status CompactRange(const std::string& begin, const std::string& end) override {
    if (begin.empty() && end.empty())
      return db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
    const Slice b(begin), e(end);
    return db_->CompactRange(CompactRangeOptions(), &b, &e);
  }

 private:
  ReadOptions At(int snapshot) const {
    ReadOptions ro;
    if (snapshot >= 0) ro.snapshot = snapshots_.at(snapshot);
    return ro;
  }

  Options options_;
  const std::string path_;
  std::unique_ptr<DB> db_;
  std::map<int, const Snapshot*> snapshots_;
};

}  // namespace

std::unique_ptr<DiffEngine> NewShaleDiffEngine(const Options& options, const std::string& path) {
  return std::make_unique<ShaleDiffEngine>(options, path);
}

}  // namespace shale::scenario
