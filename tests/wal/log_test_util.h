// Helpers shared by the log tests: write records into an in-memory log
// (common/mem_file.h), replay one under a recovery mode, and hand-craft
// fragments. Fixed-seed properties come from common/rc_check.h, included
// here for the property tests.
//
// Test-only. Thread safety: none.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "common/mem_file.h"
#include "common/rc_check.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/file_writer.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale_test {

constexpr uint64_t kTestLogNumber = 7;

inline std::unique_ptr<shale::log::Writer> NewMemLogWriter(std::string* contents,
                                                           MemWritableFile** file_out = nullptr) {
  auto file = std::make_unique<MemWritableFile>(contents);
  if (file_out != nullptr) *file_out = file.get();
  auto dest = std::make_unique<shale::WritableFileWriter>(std::move(file), "mem.log");
  return std::make_unique<shale::log::Writer>(std::move(dest), kTestLogNumber);
}

// The bytes of a log holding records. Returns false if a write failed.
inline bool WriteLog(const std::vector<std::string>& records, std::string* contents) {
  contents->clear();
  auto writer = NewMemLogWriter(contents);
  for (const std::string& r : records) {
    if (!writer->AddRecord(r).ok()) return false;
  }
  return writer->Close().ok();
}

struct Replayed {
  shale::Status status;
  std::vector<std::string> records;
  shale::log::ReplayResult result;
};

inline Replayed ReplayMem(const std::string& contents, shale::WALRecoveryMode mode,
                          size_t max_read_bytes = 0) {
  shale::log::Reader reader(std::make_unique<MemSequentialFile>(contents, max_read_bytes),
                            kTestLogNumber);
  Replayed out;
  out.status = shale::log::ReplayLog(
      &reader, mode,
      [&out](const shale::Slice& record) {
        out.records.push_back(record.ToString());
        return shale::Status::OK();
      },
      &out.result);
  return out;
}

// One physical fragment, as the writer would frame it (for hand-made logs).
inline std::string Fragment(uint8_t type, const std::string& payload) {
  std::string typed = std::string(1, static_cast<char>(type)) + payload;
  std::string out;
  shale::PutFixed32(&out, shale::crc32c::Mask(shale::crc32c::Value(typed.data(), typed.size())));
  out.push_back(static_cast<char>(payload.size() & 0xff));
  out.push_back(static_cast<char>(payload.size() >> 8));
  out.push_back(static_cast<char>(type));
  return out + payload;
}

}  // namespace shale_test
