// NewDBIterator: turns an iterator over internal keys (a merge of memtables
// and SSTs) into the user-facing iterator: for each user key, the newest
// version with sequence <= `sequence` (that callback, if any, calls
// visible), hidden if that version is a deletion.
//
// Ownership: the result owns `internal`. Thread safety: one thread.
#pragma once

#include "db/dbformat.h"
#include "db/txn_hooks.h"
#include "shale/env.h"
#include "shale/iterator.h"
#include "shale/options.h"

namespace shale {

class VersionSet;

// REQUIRES: user_comparator, callback and runtime (each may be null)
// outlive the result.
// planted_bugs: Options::planted_bugs (kBugSeekSkipsKeyAfterTombstone).
// runtime: each Next and Prev is a yield point ("iterator.step"), so a
// write, flush or compaction may run between a scan's steps (null: none).
// latest: with kBugIteratorStepReadsLatest, where each step rereads its
// sequence from (null: the bug has nothing to read).
Iterator* NewDBIterator(const Comparator* user_comparator, Iterator* internal,
                        SequenceNumber sequence, const ReadCallback* callback = nullptr,
                        uint64_t planted_bugs = kBugNone, Runtime* runtime = nullptr,
                        const VersionSet* latest = nullptr);

}  // namespace shale
