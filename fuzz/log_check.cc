#include "log_check.h"

#include <memory>

#include "common/mem_file.h"
#include "fuzz_check.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/file_writer.h"
#include "wal/log_format.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale_fuzz {

namespace {

using shale::log::kBlockSize;
using shale::log::kHeaderSize;

// Parses one fragment at pos; false if it is not whole and checksummed.
bool ParseFragment(const std::string& contents, uint64_t pos, uint64_t end, uint8_t* type,
                   std::string* payload) {
  const uint64_t in_block = kBlockSize - pos % kBlockSize;
  if (pos + kHeaderSize > end || in_block < kHeaderSize) return false;
  const char* header = contents.data() + pos;
  const uint32_t length = static_cast<uint8_t>(header[4]) |
                          (static_cast<uint32_t>(static_cast<uint8_t>(header[5])) << 8);
  *type = static_cast<uint8_t>(header[6]);
  if (kHeaderSize + length > in_block || pos + kHeaderSize + length > end) return false;
  const uint32_t expected = shale::crc32c::Unmask(shale::DecodeFixed32(header));
  const uint32_t actual = shale::crc32c::Value(header + 6, 1 + length);
  if (expected != actual) return false;
  payload->assign(header + kHeaderSize, length);
  return true;
}

}  // namespace

bool VerifyRecordSpan(const std::string& contents, uint64_t begin, uint64_t end,
                      const shale::Slice& record) {
  if (begin >= end || end > contents.size()) return false;
  std::string assembled;
  uint64_t pos = begin;
  bool first = true;
  while (pos < end) {
    const uint64_t in_block = kBlockSize - pos % kBlockSize;
    if (in_block < kHeaderSize && !first) {  // a block trailer between fragments
      pos += in_block;
      continue;
    }
    uint8_t type = 0;
    std::string payload;
    if (!ParseFragment(contents, pos, end, &type, &payload)) return false;
    pos += kHeaderSize + payload.size();
    assembled += payload;
    const bool last = pos == end;
    switch (type) {
      case shale::log::kFullType:
        if (!first || !last) return false;
        break;
      case shale::log::kFirstType:
        if (!first || last) return false;
        break;
      case shale::log::kMiddleType:
        if (first || last) return false;
        break;
      case shale::log::kLastType:
        if (first || !last) return false;
        break;
      default:
        return false;
    }
    first = false;
  }
  return assembled == record.ToString();
}

std::string EncodeLog(const std::vector<std::string>& records) {
  std::string contents;
  {
    auto file = std::make_unique<shale_test::MemWritableFile>(&contents);
    auto writer = std::make_unique<shale::WritableFileWriter>(std::move(file), "fuzz.log");
    shale::log::Writer log(std::move(writer), 1);
    for (const std::string& record : records) FUZZ_CHECK(log.AddRecord(record).ok());
    FUZZ_CHECK(log.Close().ok());
  }
  return contents;
}

std::vector<std::string> DecodeWholeLog(const std::string& contents) {
  shale::log::Reader reader(std::make_unique<shale_test::MemSequentialFile>(contents), 1);
  std::vector<std::string> records;
  shale::log::ReplayResult result;
  const shale::Status s = shale::log::ReplayLog(
      &reader, shale::WALRecoveryMode::kAbsoluteConsistency,
      [&](const shale::Slice& record) {
        records.push_back(record.ToString());
        return shale::Status::OK();
      },
      &result);
  FUZZ_CHECK_MSG(s.ok(), s.ToString());
  return records;
}

}  // namespace shale_fuzz
