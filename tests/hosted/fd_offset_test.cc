// Hosted engines' writable files write where a POSIX fd would
// (hosted/fd_offset.h): at their own offset, which neither a failed sync
// that dropped pages (the file's end moves back) nor a write that failed
// part-way (the offset moves past what it wrote) puts anywhere else. Both
// LevelDB's adapter and RocksDB's file (hosted/rocksdb/rocksdb_files.h)
// write through it.
#include <catch2/catch.hpp>

#include <rocksdb/file_system.h>

#include <algorithm>
#include <memory>
#include <string>

#include "hosted/fd_offset.h"
#include "hosted/rocksdb/rocksdb_files.h"
#include "shale/env.h"

namespace shale::hosted {
namespace {

// A file in memory whose end a test can move back (as dropped pages do)
// and whose next append can be made to fail after some of its bytes.
struct FakeFileState {
  std::string bytes;
  size_t next_append_fails_after = SIZE_MAX;  // bytes written before failing
};

class FakeFile final : public shale::WritableFile {
 public:
  explicit FakeFile(FakeFileState* state) : state_(state) {}
  Status Append(const Slice& data) override { return PositionedAppend(data, state_->bytes.size()); }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    const size_t n = std::min(data.size(), state_->next_append_fails_after);
    if (state_->bytes.size() < offset + n) state_->bytes.resize(offset + n, '\0');
    state_->bytes.replace(offset, n, data.data(), n);
    if (n == data.size()) return Status::OK();
    state_->next_append_fails_after = SIZE_MAX;
    return Status::NoSpace("injected: disk full");
  }
  Status Truncate(uint64_t size) override {
    state_->bytes.resize(size);
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  Status Fsync() override { return Status::OK(); }
  Status Allocate(uint64_t, uint64_t) override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return state_->bytes.size(); }

 private:
  FakeFileState* const state_;
};

std::unique_ptr<rocksdb::FSWritableFile> Open(FakeFileState* state, WriteErrors* errors) {
  return NewRocksDbWritableFile("/db/000004.log", std::make_unique<FakeFile>(state),
                                rocksdb::FileOptions(), /*reused=*/false, errors);
}

TEST_CASE("A write at an fd's offset past a moved-back end leaves a hole", "[hosted]") {
  FakeFileState state;
  FakeFile file(&state);
  uint64_t offset = 0;
  REQUIRE(AppendAtFdOffset(&file, Slice("aaaa"), /*reused=*/false, &offset).ok());
  CHECK(offset == 4);
  state.bytes.resize(1);  // a failed fsync dropped the unsynced pages
  REQUIRE(AppendAtFdOffset(&file, Slice("bb"), /*reused=*/false, &offset).ok());
  CHECK(state.bytes == std::string("a\0\0\0bb", 6));
  CHECK(offset == 6);
}

TEST_CASE("A failed write at an fd's offset moves it past only what it wrote", "[hosted]") {
  FakeFileState state;
  FakeFile file(&state);
  uint64_t offset = 0;
  state.next_append_fails_after = 0;
  CHECK(!AppendAtFdOffset(&file, Slice("aaaa"), /*reused=*/false, &offset).ok());
  CHECK(offset == 0);
  state.next_append_fails_after = 3;
  CHECK(!AppendAtFdOffset(&file, Slice("aaaa"), /*reused=*/false, &offset).ok());
  CHECK(offset == 3);
}

TEST_CASE("A reused file is overwritten in place from the fd's offset", "[hosted]") {
  FakeFileState state;
  state.bytes = "old-tail";
  FakeFile file(&state);
  uint64_t offset = 0;
  REQUIRE(AppendAtFdOffset(&file, Slice("new"), /*reused=*/true, &offset).ok());
  CHECK(state.bytes == "new-tail");
  CHECK(offset == 3);
}

TEST_CASE("After dropped pages, RocksDB's next append leaves a hole, as on an fd",
          "[hosted][rocksdb]") {
  FakeFileState state;
  WriteErrors errors;
  auto file = Open(&state, &errors);
  REQUIRE(file->Append("aaaa", rocksdb::IOOptions(), nullptr).ok());
  state.bytes.resize(1);  // a failed fsync dropped the unsynced pages
  REQUIRE(file->Append("bb", rocksdb::IOOptions(), nullptr).ok());
  CHECK(state.bytes == std::string("a\0\0\0bb", 6));
  CHECK(file->GetFileSize(rocksdb::IOOptions(), nullptr) == 6);
}

TEST_CASE("After a short write, RocksDB's next append goes past the bytes it left",
          "[hosted][rocksdb]") {
  FakeFileState state;
  WriteErrors errors;
  auto file = Open(&state, &errors);
  state.next_append_fails_after = 2;
  CHECK(!file->Append("aaaa", rocksdb::IOOptions(), nullptr).ok());
  CHECK(!errors.first.empty());
  REQUIRE(file->Append("bb", rocksdb::IOOptions(), nullptr).ok());
  CHECK(state.bytes == "aabb");
}

}  // namespace
}  // namespace shale::hosted
