// What the RocksDB adapters share (the bench's KvStore and the diff's
// DiffEngine): Slice and Status conversion, and the option mapping from
// KvOptions (no compression, the block cache, bloom filter, block size,
// file sizes, open files and write-path options as given).
//
// Thread safety: pure functions.
#pragma once

#include "kv_store.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace shale::bench {

inline rocksdb::Slice ToRocks(const Slice& s) { return rocksdb::Slice(s.data(), s.size()); }
inline Slice FromRocks(const rocksdb::Slice& s) { return Slice(s.data(), s.size()); }
Status FromRocks(const rocksdb::Status& s);

// REQUIRES: o.transaction_db is false or the caller opens a TransactionDB.
rocksdb::Options ToRocksOptions(const KvOptions& o);

}  // namespace shale::bench
