// Iterator: an ordered cursor over key/value pairs (user keys in the public
// API; internal keys inside the engine).
//
// Ownership: the creator owns the iterator and must delete it before the
// object it iterates (DB, table, memtable). key() and value() stay valid until
// the next call that moves the iterator.
// Thread safety: one thread at a time.
#pragma once

#include <functional>
#include <vector>

#include "shale/slice.h"
#include "shale/status.h"

namespace shale {

class Iterator {
 public:
  Iterator() = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;
  virtual ~Iterator();

  // True iff positioned at an entry. False after an error (see status()).
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  // Positions at the first entry with key >= target.
  virtual void Seek(const Slice& target) = 0;
  // Positions at the last entry with key <= target.
  virtual void SeekForPrev(const Slice& target) = 0;
  // REQUIRES: Valid()
  virtual void Next() = 0;
  // REQUIRES: Valid()
  virtual void Prev() = 0;
  // REQUIRES: Valid()
  virtual Slice key() const = 0;
  // REQUIRES: Valid()
  virtual Slice value() const = 0;
  // The first error met, if any. An iterator that met an error is not Valid().
  virtual Status status() const = 0;

  // Runs fn when the iterator is destroyed (e.g. to unpin a version).
  void RegisterCleanup(std::function<void()> fn) { cleanups_.push_back(std::move(fn)); }

 private:
  std::vector<std::function<void()>> cleanups_;
};

// An iterator over nothing, or over nothing with an error.
Iterator* NewEmptyIterator();
Iterator* NewErrorIterator(const Status& status);

}  // namespace shale
