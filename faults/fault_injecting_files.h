// The file handles a FaultInjectingFs hands out (fault_injecting_fs.h):
// each wraps the target's handle, asks the decorator's policy before each
// call, and carries out the decision on the handle below (a MediaFile).
//
// Thread safety: none. Ownership: each owns the handle it wraps and
// borrows the decorator, which must outlive it.
#pragma once

#include <memory>
#include <string>

#include "faults/fault_injecting_fs.h"

namespace shale::faults::fault_fs_internal {

// REQUIRES: base is a sim::MediaFile.
std::unique_ptr<SequentialFile> WrapSequential(FaultInjectingFs* fs, const std::string& path,
                                               std::unique_ptr<SequentialFile> base);
std::unique_ptr<RandomAccessFile> WrapRandomAccess(FaultInjectingFs* fs, const std::string& path,
                                                   std::unique_ptr<RandomAccessFile> base);
std::unique_ptr<WritableFile> WrapWritable(FaultInjectingFs* fs, const std::string& path,
                                           std::unique_ptr<WritableFile> base);

}  // namespace shale::faults::fault_fs_internal
