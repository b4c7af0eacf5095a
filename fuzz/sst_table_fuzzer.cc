// Fuzzes a whole SST: the input is a table file, opened and iterated in both
// directions, and each key read is looked up.
//
// Pins: no crash, no sanitizer report, and every failure is Corruption.
// Then decode -> encode -> decode: when the table reads whole (both
// directions OK, the same entries, strictly increasing internal keys), the
// entries are written into a new table, which must read back the same
// entries both ways and by point lookup. (What damage does to a table the
// engine wrote is sst_checksum_fuzzer's job.)
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "table_check.h"

namespace {

void CheckLookups(const shale::Table& table, const shale_fuzz::TableEntries& entries) {
  for (const auto& entry : entries) {
    bool found = false;
    std::pair<std::string, std::string> got;
    const shale::Status s = shale_fuzz::GetEntry(table, entry.first, &found, &got);
    FUZZ_CHECK_MSG(s.ok(), s.ToString());
    FUZZ_CHECK(found && got == entry);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string contents(reinterpret_cast<const char*>(data), size);
  const shale::TableOptions options = shale_fuzz::FuzzTableOptions();
  std::unique_ptr<shale::Table> table;
  shale::Status s = shale_fuzz::OpenTableBytes(options, contents, &table);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return 0;

  shale::Status forward_status;
  shale::Status backward_status;
  const shale_fuzz::TableEntries forward = shale_fuzz::ReadTableForward(*table, &forward_status);
  const shale_fuzz::TableEntries backward = shale_fuzz::ReadTableBackward(*table, &backward_status);
  FUZZ_CHECK_MSG(forward_status.ok() || forward_status.IsCorruption(), forward_status.ToString());
  FUZZ_CHECK_MSG(backward_status.ok() || backward_status.IsCorruption(),
                 backward_status.ToString());
  for (const auto& entry : forward) {
    bool found = false;
    std::pair<std::string, std::string> got;
    if (entry.first.size() < 8) break;
    const shale::Status get = shale_fuzz::GetEntry(*table, entry.first, &found, &got);
    FUZZ_CHECK_MSG(get.ok() || get.IsCorruption(), get.ToString());
  }
  if (!forward_status.ok() || !backward_status.ok() || forward != backward) return 0;
  if (forward.size() == shale_fuzz::kMaxTableEntries) return 0;
  if (!shale_fuzz::StrictlyIncreasingInternalKeys(forward)) return 0;

  const std::string rebuilt = shale_fuzz::BuildTableBytes(options, forward);
  std::unique_ptr<shale::Table> again;
  s = shale_fuzz::OpenTableBytes(options, rebuilt, &again);
  FUZZ_CHECK_MSG(s.ok(), s.ToString());
  FUZZ_CHECK(shale_fuzz::ReadTableForward(*again, &forward_status) == forward);
  FUZZ_CHECK(forward_status.ok());
  FUZZ_CHECK(shale_fuzz::ReadTableBackward(*again, &backward_status) == forward);
  FUZZ_CHECK(backward_status.ok());
  CheckLookups(*again, forward);
  return 0;
}
