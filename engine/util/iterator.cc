#include "shale/iterator.h"
#include "util/check.h"

namespace shale {

Iterator::~Iterator() {
  for (auto& fn : cleanups_) fn();
}

namespace {

class EmptyIterator final : public Iterator {
 public:
  explicit EmptyIterator(const Status& s) : status_(s) {}
  bool Valid() const override { return false; }
  void Seek(const Slice&) override {}
  void SeekForPrev(const Slice&) override {}
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Next() override { SHALE_CHECK(false); }
  void Prev() override { SHALE_CHECK(false); }
  Slice key() const override {
    SHALE_CHECK(false);
    return Slice();
  }
  Slice value() const override {
    SHALE_CHECK(false);
    return Slice();
  }
  Status status() const override { return status_; }

 private:
  Status status_;
};

}  // namespace

Iterator* NewEmptyIterator() { return new EmptyIterator(Status::OK()); }
Iterator* NewErrorIterator(const Status& status) { return new EmptyIterator(status); }

}  // namespace shale
