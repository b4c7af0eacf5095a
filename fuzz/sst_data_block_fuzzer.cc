// Fuzzes the SST data-block parser: the input is a block's contents (what
// a checksum-verified read hands the parser). See block_check.h for what
// is pinned.
#include <cstddef>
#include <cstdint>

#include "block_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  shale_fuzz::CheckBlock(data, size, shale_fuzz::BlockKind::kData);
  return 0;
}
