// NewDBIterator: turns an iterator over internal keys (a merge of memtables
// and SSTs) into the user-facing iterator: for each user key, the newest
// version with sequence <= `sequence` (that callback, if any, calls
// visible), hidden if that version is a deletion.
//
// Ownership: the result owns `internal`. Thread safety: one thread.
#pragma once

#include "db/dbformat.h"
#include "db/txn_hooks.h"
#include "shale/iterator.h"
#include "shale/options.h"

namespace shale {

// REQUIRES: user_comparator and callback (may be null) outlive the result.
// planted_bugs: Options::planted_bugs (kBugSeekSkipsKeyAfterTombstone).
Iterator* NewDBIterator(const Comparator* user_comparator, Iterator* internal,
                        SequenceNumber sequence, const ReadCallback* callback = nullptr,
                        uint64_t planted_bugs = kBugNone);

}  // namespace shale
