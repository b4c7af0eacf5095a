// FileOptionsFor: the FileOptions the engine opens a file with.
#pragma once

#include "shale/env.h"
#include "shale/options.h"

namespace shale {

// Share-delete as options.share_delete_on_open says; direct I/O and mapped
// reads as asked (direct I/O wins).
// opened_by names the part of the engine opening the file (a static string).
inline FileOptions FileOptionsFor(const Options& options, const char* opened_by,
                                  bool use_direct_io = false, bool use_mmap_reads = false) {
  FileOptions o;
  o.use_direct_io = use_direct_io;
  o.use_mmap_reads = use_mmap_reads && !use_direct_io;
  o.share_delete = options.share_delete_on_open;
  o.opened_by = opened_by;
  return o;
}

}  // namespace shale
