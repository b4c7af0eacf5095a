// Test doubles for the table tests: std::string-backed files, a trivial
// Runtime (std::mutex; tests/ may use it), a fixed-seed rapidcheck prop, and
// helpers that build an SST in memory and open it.
//
// Test-only. Ownership: StringSink writes into a string the test owns, which
// must outlive it; StringSource keeps its own copy. Thread safety: the
// Runtime's mutexes are real; the files are one-thread.
#pragma once

#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "shale/env.h"
#include "table/table.h"
#include "table/table_builder.h"
#include "util/file_reader.h"
#include "util/file_writer.h"

namespace shale::test {

class StringSink final : public WritableFile {
 public:
  explicit StringSink(std::string* contents) : contents_(contents) {}
  Status Append(const Slice& data) override {
    contents_->append(data.data(), data.size());
    return Status::OK();
  }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    if (contents_->size() < offset + data.size()) contents_->resize(offset + data.size());
    std::memcpy(contents_->data() + offset, data.data(), data.size());
    return Status::OK();
  }
  Status Truncate(uint64_t size) override {
    contents_->resize(size);
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  Status Fsync() override { return Status::OK(); }
  Status Allocate(uint64_t, uint64_t) override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return contents_->size(); }

 private:
  std::string* contents_;
};

class StringSource final : public RandomAccessFile {
 public:
  explicit StringSource(std::string contents, int* reads = nullptr)
      : contents_(std::move(contents)), reads_(reads) {}
  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    if (reads_ != nullptr) (*reads_)++;
    if (offset > contents_.size()) {
      *result = Slice();
      return Status::OK();
    }
    n = std::min<size_t>(n, contents_.size() - offset);
    std::memcpy(scratch, contents_.data() + offset, n);
    *result = Slice(scratch, n);
    return Status::OK();
  }

 private:
  std::string contents_;
  int* reads_;
};

class TestMutex final : public Mutex {
 public:
  void Lock() override { mu_.lock(); }
  void Unlock() override { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class TestRuntime final : public Runtime {
 public:
  std::unique_ptr<Mutex> NewMutex() override { return std::make_unique<TestMutex>(); }
  std::unique_ptr<CondVar> NewCondVar(Mutex*) override { return nullptr; }
  std::unique_ptr<Thread> StartThread(const std::string&, std::function<void()>) override {
    return nullptr;
  }
  void SleepForMicroseconds(uint64_t) override {}
};

inline Runtime* TestRuntimeInstance() {
  static TestRuntime runtime;
  return &runtime;
}

// Orders std::string internal keys as the table does.
struct InternalKeyLess {
  bool operator()(const std::string& a, const std::string& b) const {
    static const InternalKeyComparator cmp(BytewiseComparator());
    return cmp.Compare(a, b) < 0;
  }
};
using Model = std::map<std::string, std::string, InternalKeyLess>;

inline const InternalKeyComparator* TestComparator() {
  static const InternalKeyComparator cmp(BytewiseComparator());
  return &cmp;
}

inline std::string IKey(const std::string& user_key, SequenceNumber seq,
                        ValueType type = kTypeValue) {
  std::string k;
  AppendInternalKey(&k, ParsedInternalKey(user_key, seq, type));
  return k;
}

// Builds an SST of model's entries; returns its bytes.
inline std::string BuildTable(const TableOptions& options, const Model& model) {
  std::string contents;
  WritableFileWriter writer(std::make_unique<StringSink>(&contents), "mem.sst");
  TableBuilder builder(options, &writer);
  for (const auto& [k, v] : model) builder.Add(k, v);
  REQUIRE(builder.status().ok());
  REQUIRE(builder.Finish().ok());
  REQUIRE(writer.Close().ok());
  REQUIRE(builder.FileSize() == contents.size());
  REQUIRE(builder.NumEntries() == model.size());
  return contents;
}

[[nodiscard]] inline Status OpenTable(const TableOptions& options, const std::string& contents,
                                      std::unique_ptr<Table>* table, int* reads = nullptr) {
  auto reader = std::make_unique<RandomAccessFileReader>(
      std::make_unique<StringSource>(contents, reads), "mem.sst", options.stats);
  return Table::Open(options, std::move(reader), contents.size(), table);
}

// rc::prop with a fixed seed, so every run checks the same cases.
template <typename Testable>
void FixedSeedProp(const std::string& description, Testable&& testable, uint64_t seed = 7177,
                   int max_success = 100) {
  SECTION(description) {
    rc::detail::TestMetadata metadata;
    metadata.id = description;
    metadata.description = description;
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.seed = seed;
    params.maxSuccess = max_success;
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
