// IteratorWrapper: an owning handle to an Iterator that remembers Valid()
// and key() after every move, so the iterators that stack others (merging,
// two-level) read them without a virtual call each time they compare.
//
// Ownership: owns the wrapped iterator (Set deletes the previous one).
// Thread safety: as the wrapped iterator (one thread at a time).
#pragma once

#include <memory>

#include "shale/iterator.h"
#include "util/check.h"

namespace shale {

class IteratorWrapper {
 public:
  IteratorWrapper() = default;
  explicit IteratorWrapper(Iterator* iter) { Set(iter); }
  IteratorWrapper(const IteratorWrapper&) = delete;
  IteratorWrapper& operator=(const IteratorWrapper&) = delete;
  IteratorWrapper(IteratorWrapper&&) = default;
  IteratorWrapper& operator=(IteratorWrapper&&) = default;

  Iterator* iter() const { return iter_.get(); }
  // Takes ownership of iter (may be nullptr), deleting the one held before.
  void Set(Iterator* iter) {
    iter_.reset(iter);
    if (iter_ == nullptr) {
      valid_ = false;
    } else {
      Update();
    }
  }

  // REQUIRES: iter() != nullptr for everything below.
  bool Valid() const { return valid_; }
  // REQUIRES: Valid().
  Slice key() const {
    SHALE_CHECK(Valid());
    SHALE_CHECK(key_ == iter_->key());  // the remembered key is the iterator's
    return key_;
  }
  Slice value() const {
    SHALE_CHECK(Valid());
    return iter_->value();
  }
  Status status() const { return iter_->status(); }
  void Next() {
    iter_->Next();
    Update();
  }
  void Prev() {
    iter_->Prev();
    Update();
  }
  void Seek(const Slice& target) {
    iter_->Seek(target);
    Update();
  }
  void SeekForPrev(const Slice& target) {
    iter_->SeekForPrev(target);
    Update();
  }
  void SeekToFirst() {
    iter_->SeekToFirst();
    Update();
  }
  void SeekToLast() {
    iter_->SeekToLast();
    Update();
  }

 private:
  void Update() {
    valid_ = iter_->Valid();
    if (valid_) key_ = iter_->key();
  }

  std::unique_ptr<Iterator> iter_;
  bool valid_ = false;
  Slice key_;
};

}  // namespace shale
