// NewDBIterator: turns an iterator over internal keys (a merge of memtables
// and SSTs) into the user-facing iterator: for each user key, the newest
// version with sequence <= `sequence`, hidden if that version is a deletion.
//
// Ownership: the result owns `internal`. Thread safety: one thread.
#pragma once

#include "db/dbformat.h"
#include "shale/iterator.h"

namespace shale {

// REQUIRES: user_comparator outlives the result.
Iterator* NewDBIterator(const Comparator* user_comparator, Iterator* internal,
                        SequenceNumber sequence);

}  // namespace shale
