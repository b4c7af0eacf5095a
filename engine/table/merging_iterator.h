// NewMergingIterator: an iterator over the union of n sorted child
// iterators (internal keys), in both directions. Duplicates are all yielded
// (the DB iterator above it collapses versions).
//
// Ownership: the result owns the children. Thread safety: one thread.
#pragma once

#include "shale/comparator.h"
#include "shale/iterator.h"

namespace shale {

class InternalKeyComparator;

// REQUIRES: comparator outlives the result; children are non-null.
Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children, int n);
// The same, for internal keys: compares without an indirect call.
Iterator* NewMergingIterator(const InternalKeyComparator* comparator, Iterator** children, int n);

}  // namespace shale
