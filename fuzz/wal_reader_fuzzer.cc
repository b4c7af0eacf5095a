// Fuzzes the log reader as WAL recovery uses it: the input is a WAL file,
// replayed in each WALRecoveryMode.
//
// Pins:
//   * every record handed to recovery is made of whole fragments whose
//     checksums match (VerifyRecordSpan), so damage never becomes data;
//   * the modes agree: point-in-time recovery yields a prefix of what
//     skip-any-corrupted yields; if absolute consistency succeeds, every
//     mode succeeds with the same records; if tolerate-corrupted-tail
//     succeeds, point-in-time and skip-any give the same records it does;
//   * a failure is Corruption (the input file never fails to read);
//   * decode -> encode -> decode: the records written into a new log read
//     back unchanged.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/mem_file.h"
#include "fuzz_check.h"
#include "log_check.h"
#include "shale/options.h"
#include "wal/log_reader.h"

namespace {

using shale::WALRecoveryMode;

struct ModeResult {
  shale::Status status;
  std::vector<std::string> records;
};

ModeResult Replay(const std::string& contents, WALRecoveryMode mode) {
  shale::log::Reader reader(std::make_unique<shale_test::MemSequentialFile>(contents), 7);
  ModeResult out;
  shale::log::ReplayResult result;
  out.status = shale::log::ReplayLog(
      &reader, mode,
      [&](const shale::Slice& record) {
        FUZZ_CHECK(shale_fuzz::VerifyRecordSpan(contents, reader.last_record_offset(),
                                                reader.last_record_end_offset(), record));
        out.records.push_back(record.ToString());
        return shale::Status::OK();
      },
      &result);
  FUZZ_CHECK_MSG(out.status.ok() || out.status.IsCorruption(), out.status.ToString());
  FUZZ_CHECK(result.records == out.records.size());
  return out;
}

bool IsPrefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string contents(reinterpret_cast<const char*>(data), size);
  const ModeResult tolerate = Replay(contents, WALRecoveryMode::kTolerateCorruptedTailRecords);
  const ModeResult absolute = Replay(contents, WALRecoveryMode::kAbsoluteConsistency);
  const ModeResult point_in_time = Replay(contents, WALRecoveryMode::kPointInTimeRecovery);
  const ModeResult skip_any = Replay(contents, WALRecoveryMode::kSkipAnyCorruptedRecords);

  FUZZ_CHECK(point_in_time.status.ok());
  FUZZ_CHECK(skip_any.status.ok());
  FUZZ_CHECK(IsPrefix(point_in_time.records, skip_any.records));
  FUZZ_CHECK(IsPrefix(tolerate.records, skip_any.records));
  FUZZ_CHECK(IsPrefix(absolute.records, skip_any.records));
  if (absolute.status.ok()) {
    FUZZ_CHECK(tolerate.status.ok());
    FUZZ_CHECK(absolute.records == tolerate.records);
    FUZZ_CHECK(absolute.records == point_in_time.records);
    FUZZ_CHECK(absolute.records == skip_any.records);
  }
  if (tolerate.status.ok()) {
    FUZZ_CHECK(tolerate.records == point_in_time.records);
    FUZZ_CHECK(tolerate.records == skip_any.records);
  }
  FUZZ_CHECK(shale_fuzz::DecodeWholeLog(shale_fuzz::EncodeLog(skip_any.records)) ==
             skip_any.records);
  return 0;
}
