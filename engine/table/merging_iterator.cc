// MergingIterator: a binary heap of child indices.
//
// The merged order is the total order (key, child index, position in the
// child): equal keys from different children come out lowest child first
// going forward and highest child first going backward, so nothing depends
// on addresses and Prev exactly undoes Next.
//
// Forward, every valid child sits at its first entry after the current one
// in that order, and the heap is a min-heap; backward, every valid child sits
// at its last entry before the current one, and the heap is a max-heap. A
// direction switch repositions every child except the current one:
//   to reverse:  child j < cur at its last key <= k; j > cur at its last key < k
//   to forward:  child j < cur at its first key > k; j > cur at its first key >= k
// (k = current key), which for distinct keys is LevelDB's rule.
#include "table/merging_iterator.h"

#include <memory>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "util/check.h"
#include "util/iterator_wrapper.h"

namespace shale {
namespace {

// Cmp is Comparator, or InternalKeyComparator, whose Compare is then a
// direct, inlined call (the class is final).
template <typename Cmp>
class MergingIterator final : public Iterator {
 public:
  MergingIterator(const Cmp* cmp, Iterator** children, int n) : cmp_(cmp) {
    SHALE_CHECK(n >= 0);
    children_.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; i++) {
      SHALE_CHECK(children[i] != nullptr);
      children_.emplace_back(children[i]);
    }
    heap_.reserve(static_cast<size_t>(n));
  }

  bool Valid() const override { return !heap_.empty(); }

  void SeekToFirst() override {
    for (auto& c : children_) c.SeekToFirst();
    Rebuild(Direction::kForward);
  }
  void SeekToLast() override {
    for (auto& c : children_) c.SeekToLast();
    Rebuild(Direction::kReverse);
  }
  void Seek(const Slice& target) override {
    for (auto& c : children_) c.Seek(target);
    Rebuild(Direction::kForward);
  }
  void SeekForPrev(const Slice& target) override {
    for (auto& c : children_) c.SeekForPrev(target);
    Rebuild(Direction::kReverse);
  }

  void Next() override {
    SHALE_CHECK(Valid());
    if (direction_ != Direction::kForward) SwitchToForward();
    IteratorWrapper& top = children_[static_cast<size_t>(heap_[0])];
    top.Next();
    FixTop(top.Valid());
  }
  void Prev() override {
    SHALE_CHECK(Valid());
    if (direction_ != Direction::kReverse) SwitchToReverse();
    IteratorWrapper& top = children_[static_cast<size_t>(heap_[0])];
    top.Prev();
    FixTop(top.Valid());
  }

  Slice key() const override {
    SHALE_CHECK(Valid());
    return current()->key();
  }
  Slice value() const override {
    SHALE_CHECK(Valid());
    return current()->value();
  }
  Status status() const override {
    for (const auto& c : children_) {
      Status s = c.status();
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

 private:
  enum class Direction { kForward, kReverse };

  const IteratorWrapper* current() const { return &children_[static_cast<size_t>(heap_[0])]; }

  // True if child a comes out before child b in the current direction.
  bool Before(int a, int b) const {
    const int r = cmp_->Compare(children_[static_cast<size_t>(a)].key(),
                                children_[static_cast<size_t>(b)].key());
    if (direction_ == Direction::kForward) return r < 0 || (r == 0 && a < b);
    return r > 0 || (r == 0 && a > b);
  }

  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    while (true) {
      const size_t left = 2 * i + 1;
      if (left >= n) return;
      size_t best = left;
      if (left + 1 < n && Before(heap_[left + 1], heap_[left])) best = left + 1;
      if (!Before(heap_[best], heap_[i])) return;
      std::swap(heap_[i], heap_[best]);
      i = best;
    }
  }

  // Restores the heap after the top child moved; drops it if exhausted.
  void FixTop(bool top_still_valid) {
    if (!top_still_valid) {
      heap_[0] = heap_.back();
      heap_.pop_back();
    }
    if (!heap_.empty()) SiftDown(0);
  }

  // Rebuilds the heap from every valid child for direction d.
  void Rebuild(Direction d) {
    direction_ = d;
    heap_.clear();
    for (size_t i = 0; i < children_.size(); i++) {
      if (children_[i].Valid()) heap_.push_back(static_cast<int>(i));
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  }

  // REQUIRES: Valid(), direction kReverse.
  void SwitchToForward() {
    const int cur = heap_[0];
    const Slice k = current()->key();  // stays valid: the current child does not move
    for (size_t j = 0; j < children_.size(); j++) {
      if (static_cast<int>(j) == cur) continue;
      IteratorWrapper* c = &children_[j];
      if (static_cast<int>(j) < cur) {
        c->SeekForPrev(k);  // last <= k, then one step: first > k
        if (c->Valid())
          c->Next();
        else
          c->SeekToFirst();
      } else {
        c->Seek(k);  // first >= k
      }
    }
    Rebuild(Direction::kForward);
    SHALE_CHECK(heap_[0] == cur);
  }

  // REQUIRES: Valid(), direction kForward.
  void SwitchToReverse() {
    const int cur = heap_[0];
    const Slice k = current()->key();
    for (size_t j = 0; j < children_.size(); j++) {
      if (static_cast<int>(j) == cur) continue;
      IteratorWrapper* c = &children_[j];
      if (static_cast<int>(j) < cur) {
        c->SeekForPrev(k);  // last <= k
      } else {
        c->Seek(k);  // first >= k, then one step back: last < k
        if (c->Valid())
          c->Prev();
        else
          c->SeekToLast();
      }
    }
    Rebuild(Direction::kReverse);
    SHALE_CHECK(heap_[0] == cur);
  }

  const Cmp* const cmp_;
  std::vector<IteratorWrapper> children_;
  std::vector<int> heap_;  // indices of valid children; heap_[0] is current
  Direction direction_ = Direction::kForward;
};

template <typename Cmp>
Iterator* NewMerging(const Cmp* comparator, Iterator** children, int n) {
  if (n == 0) return NewEmptyIterator();
  if (n == 1) return children[0];
  return new MergingIterator<Cmp>(comparator, children, n);
}

}  // namespace

Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children, int n) {
  return NewMerging(comparator, children, n);
}

Iterator* NewMergingIterator(const InternalKeyComparator* comparator, Iterator** children, int n) {
  return NewMerging(comparator, children, n);
}

}  // namespace shale
