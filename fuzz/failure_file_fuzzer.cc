// Fuzzes failure-file parsing (what `shale replay FILE` reads). See
// json_check.h for what is pinned.
#include <cstddef>
#include <cstdint>

#include "json_check.h"
#include "report/failure_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  shale_fuzz::CheckJsonRoundTrip<shale::report::FailureFile>(
      data, size, shale::report::DecodeFailureFile, shale::report::EncodeFailureFile);
  return 0;
}
