// NewTwoLevelIterator: iterates an index whose values name blocks (or
// files), opening each block's iterator through block_function. Used for
// table index -> data blocks, and for a level's file list -> tables.
//
// Ownership: the result owns index_iter and every iterator block_function
// returns. Thread safety: one thread.
#pragma once

#include <functional>

#include "shale/iterator.h"
#include "shale/options.h"

namespace shale {

// Returns a new iterator for the block that index_value names (never null;
// an error iterator on failure).
using BlockFunction =
    std::function<Iterator*(const ReadOptions& options, const Slice& index_value)>;

Iterator* NewTwoLevelIterator(Iterator* index_iter, BlockFunction block_function,
                              const ReadOptions& options);

}  // namespace shale
