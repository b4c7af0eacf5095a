// Comparator: the total order of user keys.
//
// Thread safety: implementations must be safe to call concurrently.
// Ownership: a comparator passed in Options must outlive the DB.
#pragma once

#include <string>

#include "shale/slice.h"

namespace shale {

class Comparator {
 public:
  virtual ~Comparator() = default;
  // <0, 0, >0 as a is before, equal to, after b.
  virtual int Compare(const Slice& a, const Slice& b) const = 0;
  // Persisted in the MANIFEST; reopening with another name fails.
  virtual const char* Name() const = 0;
  // If *start < limit, may change *start to a shorter key in [*start, limit).
  // Used to shorten index-block separators.
  virtual void FindShortestSeparator(std::string* start, const Slice& limit) const = 0;
  // May change *key to a shorter key >= *key.
  virtual void FindShortSuccessor(std::string* key) const = 0;
};

// Lexicographic byte order. A static singleton; never delete it.
const Comparator* BytewiseComparator();

}  // namespace shale
