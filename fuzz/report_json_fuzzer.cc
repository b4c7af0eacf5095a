// Fuzzes report.json parsing (what `shale report merge` reads), both the
// whole-report decoder and the one-entry-per-line decoder the streaming
// reader uses. See json_check.h for what is pinned.
#include <cstddef>
#include <cstdint>

#include "json_check.h"
#include "report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  shale_fuzz::CheckJsonRoundTrip<shale::report::Report>(data, size, shale::report::DecodeReport,
                                                        shale::report::EncodeReport);
  shale_fuzz::CheckJsonRoundTrip<shale::report::SeedEntry>(
      data, size, shale::report::DecodeEntryLine, shale::report::EncodeEntryLine);
  return 0;
}
