// Helpers shared by the log tests: write records into an in-memory log,
// replay one under a recovery mode, hand-craft fragments, and run a
// rapidcheck property with a fixed seed (RC_PARAMS still overrides it).
//
// Test-only. Thread safety: none.
#pragma once

#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mem_file.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/file_writer.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale::test {

constexpr uint64_t kTestLogNumber = 7;

inline std::unique_ptr<log::Writer> NewMemLogWriter(std::string* contents,
                                                    MemWritableFile** file_out = nullptr) {
  auto file = std::make_unique<MemWritableFile>(contents);
  if (file_out != nullptr) *file_out = file.get();
  auto dest = std::make_unique<WritableFileWriter>(std::move(file), "mem.log");
  return std::make_unique<log::Writer>(std::move(dest), kTestLogNumber);
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
  Status status;
  std::vector<std::string> records;
  log::ReplayResult result;
};

inline Replayed ReplayMem(const std::string& contents, WALRecoveryMode mode,
                          size_t max_read_bytes = 0) {
  log::Reader reader(std::make_unique<MemSequentialFile>(contents, max_read_bytes),
                     kTestLogNumber);
  Replayed out;
  out.status = log::ReplayLog(
      &reader, mode,
      [&out](const Slice& record) {
        out.records.push_back(record.ToString());
        return Status::OK();
      },
      &out.result);
  return out;
}

// One physical fragment, as the writer would frame it (for hand-made logs).
inline std::string Fragment(uint8_t type, const std::string& payload) {
  std::string typed = std::string(1, static_cast<char>(type)) + payload;
  std::string out;
  PutFixed32(&out, crc32c::Mask(crc32c::Value(typed.data(), typed.size())));
  out.push_back(static_cast<char>(payload.size() & 0xff));
  out.push_back(static_cast<char>(payload.size() >> 8));
  out.push_back(static_cast<char>(type));
  return out + payload;
}

// rc::prop with a fixed seed, so the test is the same on every run.
template <typename Testable>
void SeededProp(const std::string& description, uint64_t seed, int max_success,
                Testable&& testable) {
  SECTION(description) {
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    if (std::getenv("RC_PARAMS") == nullptr) {
      params.seed = seed;
      params.maxSuccess = max_success;
    }
    rc::detail::TestMetadata metadata;
    metadata.id = description;
    metadata.description = description;
    const auto result =
        rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
    if (!result.template is<rc::detail::SuccessResult>()) {
      std::ostringstream ss;
      rc::detail::printResultMessage(result, ss);
      INFO(ss.str() << "\n");
      FAIL();
    }
  }
}

}  // namespace shale::test
