// AppendAtFdOffset: a write(2) on a POSIX file descriptor, over a
// shale::WritableFile, for a hosted engine's writable files.
//
// A descriptor writes at its own offset, not at the file's end. The two part
// on Shale's simulated disk when a failed fsync drops dirty pages (the file's
// visible end moves back to what was durable): the next write must leave the
// dropped bytes a hole of zeros, as on Linux, and must not fill their place.
//
// Thread safety: as the file's; the caller serializes calls on one offset.
#pragma once

#include <cstdint>

#include "shale/env.h"

namespace shale::hosted {

// Writes bytes at *offset and advances it by what was written: all of
// bytes on success; on failure, up to the file's end if the write grew it
// (a write that failed part-way still moved the descriptor past its bytes).
// reused: the file holds an old tail past *offset that is overwritten in
// place (RocksDB's recycled logs), so the write is never a plain append.
// REQUIRES: file != nullptr, offset != nullptr.
[[nodiscard]] Status AppendAtFdOffset(WritableFile* file, const Slice& bytes, bool reused,
                                      uint64_t* offset);

}  // namespace shale::hosted
