// NewLevelIterator: one iterator over all files of a sorted, non-overlapping
// level (level >= 1), opening each file's table lazily through the
// TableCache. It is a two-level iterator whose index is the level's file
// list: index key = the file's largest internal key, index value =
// fixed64(number) | fixed64(file_size).
//
// Ownership: the caller owns the result. REQUIRES: files, icmp and
// table_cache outlive it (the caller keeps the Version that owns files
// referenced). Thread safety: one thread.
#pragma once

#include <vector>

#include "db/dbformat.h"
#include "shale/iterator.h"
#include "shale/options.h"
#include "version/table_cache.h"
#include "version/version_edit.h"

namespace shale {

Iterator* NewLevelIterator(const ReadOptions& options, TableCache* table_cache,
                           const InternalKeyComparator* icmp,
                           const std::vector<FileMetaData*>* files);

}  // namespace shale
