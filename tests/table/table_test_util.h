// Helpers for the table tests: a trivial Runtime (real std::mutex, no
// threads), an internal-key ordered std::map model, and BuildTable/OpenTable,
// which write an SST of a model into a string and open it again through the
// in-memory files of common/mem_file.h. Test-only. Thread safety: the
// Runtime's mutexes are real; everything else is one-thread.
#pragma once

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "common/internal_key.h"
#include "common/mem_file.h"
#include "db/dbformat.h"
#include "shale/env.h"
#include "table/table.h"
#include "table/table_builder.h"
#include "util/file_reader.h"
#include "util/file_writer.h"

namespace shale_test {

class TestMutex final : public shale::Mutex {
 public:
  void Lock() override { mu_.lock(); }
  void Unlock() override { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class TestRuntime final : public shale::Runtime {
 public:
  std::unique_ptr<shale::Mutex> NewMutex() override { return std::make_unique<TestMutex>(); }
  std::unique_ptr<shale::CondVar> NewCondVar(shale::Mutex*) override { return nullptr; }
  std::unique_ptr<shale::Thread> StartThread(const std::string&, std::function<void()>) override {
    return nullptr;
  }
  void SleepForMicroseconds(uint64_t) override {}
};

inline shale::Runtime* TestRuntimeInstance() {
  static TestRuntime runtime;
  return &runtime;
}

inline const shale::InternalKeyComparator* TestComparator() {
  static const shale::InternalKeyComparator cmp(shale::BytewiseComparator());
  return &cmp;
}

// Orders std::string internal keys as the table does.
struct InternalKeyLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return TestComparator()->Compare(a, b) < 0;
  }
};
using Model = std::map<std::string, std::string, InternalKeyLess>;

// Builds an SST of model's entries; returns its bytes.
inline std::string BuildTable(const shale::TableOptions& options, const Model& model) {
  std::string contents;
  shale::WritableFileWriter writer(std::make_unique<MemWritableFile>(&contents), "mem.sst");
  shale::TableBuilder builder(options, &writer);
  for (const auto& [k, v] : model) builder.Add(k, v);
  REQUIRE(builder.status().ok());
  REQUIRE(builder.Finish().ok());
  REQUIRE(writer.Close().ok());
  REQUIRE(builder.FileSize() == contents.size());
  REQUIRE(builder.NumEntries() == model.size());
  return contents;
}

[[nodiscard]] inline shale::Status OpenTable(const shale::TableOptions& options,
                                             const std::string& contents,
                                             std::unique_ptr<shale::Table>* table,
                                             int* reads = nullptr) {
  auto reader = std::make_unique<shale::RandomAccessFileReader>(
      std::make_unique<MemRandomAccessFile>(contents, reads), "mem.sst", options.stats);
  return shale::Table::Open(options, std::move(reader), contents.size(), /*tail_size_bytes=*/0,
                            table);
}

}  // namespace shale_test
