#include "table/two_level_iterator.h"

#include <memory>
#include <string>

#include "util/check.h"
#include "util/iterator_wrapper.h"

namespace shale {

namespace {

// Positions a data iterator for the index entry under index_; empty data
// blocks are skipped in the direction of travel. The first error (from the
// index, a block_function or a data iterator) stops the iterator for good.
class TwoLevelIterator final : public Iterator {
 public:
  TwoLevelIterator(Iterator* index_iter, BlockFunction block_function, const ReadOptions& options)
      : index_(index_iter), block_function_(std::move(block_function)), options_(options) {}

  // A data iterator that met an error is not Valid, so no error hides here.
  bool Valid() const override { return status_.ok() && data_.iter() != nullptr && data_.Valid(); }
  void SeekToFirst() override {
    if (!status_.ok()) return;
    index_.SeekToFirst();
    if (InitDataBlock()) data_.SeekToFirst();
    SkipEmptyForward();
  }
  void SeekToLast() override {
    if (!status_.ok()) return;
    index_.SeekToLast();
    if (InitDataBlock()) data_.SeekToLast();
    SkipEmptyBackward();
  }
  void Seek(const Slice& target) override {
    if (!status_.ok()) return;
    index_.Seek(target);
    if (InitDataBlock()) data_.Seek(target);
    SkipEmptyForward();
  }
  void SeekForPrev(const Slice& target) override {
    if (!status_.ok()) return;
    // The first block whose separator is >= target holds the answer, or
    // some block before it does; past every separator, the last block.
    index_.Seek(target);
    if (!index_.Valid() && index_.status().ok()) index_.SeekToLast();
    if (InitDataBlock()) data_.SeekForPrev(target);
    SkipEmptyBackward();
  }
  void Next() override {
    SHALE_CHECK(Valid());
    data_.Next();
    if (!data_.Valid()) SkipEmptyForward();
  }
  void Prev() override {
    SHALE_CHECK(Valid());
    data_.Prev();
    if (!data_.Valid()) SkipEmptyBackward();
  }
  Slice key() const override {
    SHALE_CHECK(Valid());
    return data_.key();
  }
  Slice value() const override {
    SHALE_CHECK(Valid());
    return data_.value();
  }
  Status status() const override { return status_; }

 private:
  // Records the first error among the index and data iterators; true if none.
  bool CheckErrors() {
    if (status_.ok()) status_ = index_.status();
    if (status_.ok() && data_.iter() != nullptr) status_ = data_.status();
    return status_.ok();
  }

  // Opens the block under index_ (reusing it if unchanged). True if a data
  // iterator is ready to be positioned.
  bool InitDataBlock() {
    if (!CheckErrors()) return false;
    if (!index_.Valid()) {
      data_.Set(nullptr);
      return false;
    }
    const Slice handle = index_.value();
    if (data_.iter() != nullptr && handle == Slice(data_handle_)) return true;
    data_.Set(block_function_(options_, handle));
    data_handle_.assign(handle.data(), handle.size());
    return CheckErrors();
  }

  void SkipEmptyForward() {
    while (status_.ok() && (data_.iter() == nullptr || !data_.Valid())) {
      if (!CheckErrors() || !index_.Valid()) return;
      index_.Next();
      if (InitDataBlock()) data_.SeekToFirst();
    }
    CheckErrors();
  }

  void SkipEmptyBackward() {
    while (status_.ok() && (data_.iter() == nullptr || !data_.Valid())) {
      if (!CheckErrors() || !index_.Valid()) return;
      index_.Prev();
      if (InitDataBlock()) data_.SeekToLast();
    }
    CheckErrors();
  }

  IteratorWrapper index_;
  BlockFunction block_function_;
  const ReadOptions options_;
  IteratorWrapper data_;     // no iterator until a block is opened
  std::string data_handle_;  // index value data_ was opened from
  Status status_;
};

}  // namespace

Iterator* NewTwoLevelIterator(Iterator* index_iter, BlockFunction block_function,
                              const ReadOptions& options) {
  return new TwoLevelIterator(index_iter, std::move(block_function), options);
}

}  // namespace shale
