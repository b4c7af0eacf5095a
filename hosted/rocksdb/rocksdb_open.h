// OpenRocksDb: rocksdb::DB::Open for a simulation, with the DB's session
// id taken from the seed instead of the library's process-wide generator
// (the kernel's random uuid and std::random_device): the session id is
// written into every table's properties and keys the block cache, so a
// drawn one would make no two runs of a seed alike.
//
// The id is set through the library's own test hook: Debian builds
// RocksDB 7.8.3 without NDEBUG, which keeps its sync points, and
// DBImpl::SetDbSessionId offers the id it drew to a callback on
// "DBImpl::SetDbSessionId". Processing is enabled only for the Open (every
// sync point takes the sync-point registry's mutex meanwhile, a scheduling
// point). The id the DB reports (DB::GetDbSessionId) must be the one set,
// or Open fails with Aborted: a library whose hook is gone would otherwise
// run with drawn ids unnoticed.
//
// Thread safety: the sync-point registry is process-wide; call from the
// simulation's running task, one Open at a time.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/transaction_db.h>

#include <string>

#include "hosted/rocksdb/rocksdb_env.h"

namespace shale::hosted {

// Opens path with options (options.env must be env): a rocksdb::DB, or
// with txn a rocksdb::TransactionDB (returned as the DB it is). REQUIRES:
// called from a task of the simulation env runs on.
rocksdb::Status OpenRocksDb(const rocksdb::Options& options, const std::string& path,
                            RocksDbEnv* env, rocksdb::DB** db,
                            const rocksdb::TransactionDBOptions* txn = nullptr);

}  // namespace shale::hosted
