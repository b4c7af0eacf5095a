// LevelDB as a scenario engine (scenarios/engine/hosted_engine.h): its
// options drawn from LevelDB 1.23's documented option list, opened through
// LevelDbDb, relaxed as LevelDB's documentation says when it refuses a
// damaged log.
//
// Options drawn (include/leveldb/options.h), each within the range LevelDB
// keeps it to (it clips write_buffer_size to >= 64 KiB, max_file_size to
// >= 1 MiB, block_size to >= 1 KiB, max_open_files to >= 74):
// write_buffer_size, max_file_size, block_size, block_restart_interval,
// compression, max_open_files, a bloom filter, the block cache's size,
// paranoid_checks and reuse_logs. Sync and non-sync writes, snapshots held
// across compactions, CompactRange and reopen cycles come from the
// workload.
//
// Thread safety: stateless; one static instance.
#pragma once

#include "scenarios/engine/hosted_engine.h"

namespace shale::hosted {

// Registers "leveldb" with the scenarios (idempotent). Aborts if its
// promise table does not parse (a build defect, which a test catches).
void RegisterLevelDbEngine();

// hosted/leveldb/promises.tsv, as compiled in.
const char* LevelDbPromisesTsv();

// The engine as registered (its promise table parsed).
const scenario::HostedEngine& LevelDbEngine();

}  // namespace shale::hosted
