// Fuzzes MANIFEST recovery's reading: the input is a MANIFEST file, read
// with the MANIFEST's damaged-tail policy (ReplayLogWithDamagedTail), and
// every record decoded as a VersionEdit.
//
// Pins:
//   * the policy only ever drops a tail: its records are a prefix of what
//     point-in-time replay of the same bytes yields (whose records the WAL
//     target proves checksummed), equal to it when it succeeds, and equal
//     to absolute-consistency replay when it also saw no damage;
//   * a failure is Corruption;
//   * a decoded edit re-encodes to bytes that decode to the same edit, and
//     the edits written into a new MANIFEST read back unchanged.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/mem_file.h"
#include "fuzz_check.h"
#include "log_check.h"
#include "version/version_edit.h"
#include "wal/log_reader.h"

namespace {

std::vector<std::string> ReplayInMode(const std::string& contents, shale::WALRecoveryMode mode,
                                      shale::Status* status) {
  shale::log::Reader reader(std::make_unique<shale_test::MemSequentialFile>(contents), 3);
  std::vector<std::string> records;
  shale::log::ReplayResult result;
  *status = shale::log::ReplayLog(
      &reader, mode,
      [&](const shale::Slice& record) {
        records.push_back(record.ToString());
        return shale::Status::OK();
      },
      &result);
  return records;
}

// Decodes one edit; if it decodes, pins decode -> encode -> decode.
// Returns the canonical encoding ("" if it does not decode).
std::string CanonicalEdit(const std::string& record) {
  shale::VersionEdit edit;
  const shale::Status s = edit.DecodeFrom(record);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return "";
  std::string encoded;
  edit.EncodeTo(&encoded);
  shale::VersionEdit again;
  FUZZ_CHECK(again.DecodeFrom(encoded).ok());
  std::string reencoded;
  again.EncodeTo(&reencoded);
  FUZZ_CHECK(reencoded == encoded);
  return encoded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string contents(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> records;
  shale::log::ReplayResult result;
  const shale::Status s = shale::log::ReplayLogWithDamagedTail(
      contents, 3,
      [&](const shale::Slice& record) {
        records.push_back(record.ToString());
        return shale::Status::OK();
      },
      &result);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());

  shale::Status pit_status;
  const std::vector<std::string> pit =
      ReplayInMode(contents, shale::WALRecoveryMode::kPointInTimeRecovery, &pit_status);
  FUZZ_CHECK(records.size() <= pit.size());
  FUZZ_CHECK(std::equal(records.begin(), records.end(), pit.begin()));
  if (s.ok()) {
    FUZZ_CHECK(records == pit);
    if (!result.stopped_at_damage) {
      shale::Status absolute_status;
      const std::vector<std::string> absolute =
          ReplayInMode(contents, shale::WALRecoveryMode::kAbsoluteConsistency, &absolute_status);
      FUZZ_CHECK_MSG(absolute_status.ok(), absolute_status.ToString());
      FUZZ_CHECK(absolute == records);
    }
  }

  std::vector<std::string> edits;
  for (const std::string& record : records) {
    std::string canonical = CanonicalEdit(record);
    if (!canonical.empty()) edits.push_back(std::move(canonical));
  }
  FUZZ_CHECK(shale_fuzz::DecodeWholeLog(shale_fuzz::EncodeLog(edits)) == edits);
  return 0;
}
