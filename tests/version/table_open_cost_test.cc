// What opening a table reader costs on the real backend, counted through a
// FileSystem wrapper: one open and one read of the file's tail when the
// MANIFEST knows the tail's size; one read per meta block when it does not.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "port/posix_env.h"
#include "shale/file_system_wrapper.h"
#include "table/table_builder.h"
#include "util/file_writer.h"
#include "version/filename.h"
#include "version/table_cache.h"

namespace shale {
namespace {

// Counts table-file opens and records every read made through them.
class CountingFs final : public FileSystemWrapper {
 public:
  struct ReadCall {
    uint64_t offset = 0;
    size_t n = 0;
  };
  explicit CountingFs(FileSystem* target) : FileSystemWrapper(target) {}

  Status NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                             std::unique_ptr<RandomAccessFile>* result) override {
    random_opens++;
    std::unique_ptr<RandomAccessFile> file;
    Status s = target()->NewRandomAccessFile(path, opts, &file);
    if (s.ok()) *result = std::make_unique<CountingFile>(std::move(file), &reads);
    return s;
  }

  // Every other call that could stand for a per-open cost.
  Status NewSequentialFile(const std::string& path, const FileOptions& opts,
                           std::unique_ptr<SequentialFile>* result) override {
    other_calls++;
    return FileSystemWrapper::NewSequentialFile(path, opts, result);
  }
  Status FileExists(const std::string& path) override {
    other_calls++;
    return FileSystemWrapper::FileExists(path);
  }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    other_calls++;
    return FileSystemWrapper::GetChildren(dir, names);
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    other_calls++;
    return FileSystemWrapper::GetFileSize(path, size);
  }

  int random_opens = 0;
  int other_calls = 0;
  std::vector<ReadCall> reads;

 private:
  class CountingFile final : public RandomAccessFileWrapper {
   public:
    CountingFile(std::unique_ptr<RandomAccessFile> file, std::vector<ReadCall>* reads)
        : RandomAccessFileWrapper(std::move(file)), reads_(reads) {}
    Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
      reads_->push_back({offset, n});
      return RandomAccessFileWrapper::Read(offset, n, result, scratch);
    }

   private:
    std::vector<ReadCall>* reads_;
  };
};

struct Fixture {
  shale_test::TempDir dir;
  PosixFileSystem posix;  // its own, so its probe count is this test's
  CountingFs fs{&posix};
  Env env{&fs, Env::Default()->clock(), Env::Default()->runtime()};
  InternalKeyComparator icmp{BytewiseComparator()};
  TableOptions table_options;
  FileMetaData meta;
  int other_calls_before_open = 0;

  Fixture() {
    REQUIRE(dir.ok());
    table_options.comparator = &icmp;
    meta.number = 7;
    const std::string path = TableFileName(dir.path(), meta.number);
    std::unique_ptr<WritableFile> file;
    REQUIRE(fs.NewWritableFile(path, FileOptions(), &file).ok());
    WritableFileWriter writer(std::move(file), path);
    TableBuilder builder(table_options, &writer);
    for (int i = 0; i < 2000; i++) {
      const std::string key = "key" + std::to_string(100000 + i);
      builder.Add(InternalKey(key, 1, kTypeValue).Encode(), std::string(100, 'v'));
    }
    REQUIRE(builder.Finish().ok());
    REQUIRE(writer.Sync().ok());
    REQUIRE(writer.Close().ok());
    meta.file_size = builder.FileSize();
    meta.tail_size_bytes = builder.TailSizeBytes();
  }

  // Opens the reader through a fresh table cache; the reads it made.
  Status OpenReader() {
    other_calls_before_open = fs.other_calls;
    TableCache cache(dir.path(), table_options, /*max_open_files=*/20, &env, nullptr);
    std::unique_ptr<Iterator> it(cache.NewIterator(ReadOptions(), meta));
    return it->status();
  }
};

TEST_CASE("a table reader open is one open and one read of the tail", "[table_open]") {
  Fixture t;
  REQUIRE(t.meta.tail_size_bytes > 0);
  REQUIRE(t.meta.tail_size_bytes < t.meta.file_size / 4);  // index+filter, not data
  REQUIRE(t.OpenReader().ok());
  CHECK(t.fs.random_opens == 1);
  REQUIRE(t.fs.reads.size() == 1);
  CHECK(t.fs.reads[0].offset == t.meta.file_size - t.meta.tail_size_bytes);
  CHECK(t.fs.reads[0].n == t.meta.tail_size_bytes);
  CHECK(t.fs.other_calls == t.other_calls_before_open);  // no size, existence or listing asked
  CHECK(t.posix.direct_alignment_probes() == 0);         // buffered: never asked
}

TEST_CASE("direct opens ask the alignment once per directory", "[table_open]") {
  Fixture t;
  FileOptions direct;
  direct.use_direct_io = true;
  const std::string path = TableFileName(t.dir.path(), t.meta.number);
  std::unique_ptr<RandomAccessFile> file;
  const Status first = t.posix.NewRandomAccessFile(path, direct, &file);
  if (!first.ok()) {
    WARN("O_DIRECT refused here (" << first.ToString() << "); nothing to count");
    return;
  }
  for (int i = 0; i < 5; i++) REQUIRE(t.posix.NewRandomAccessFile(path, direct, &file).ok());
  CHECK(t.posix.direct_alignment_probes() == 1);
  // Another directory asks again.
  shale_test::TempDir other;
  REQUIRE(other.ok());
  const std::string copy = other.path() + "/000008.sst";
  std::filesystem::copy_file(path, copy);
  REQUIRE(t.posix.NewRandomAccessFile(copy, direct, &file).ok());
  CHECK(t.posix.direct_alignment_probes() == 2);
}

TEST_CASE("without a known tail size, the open reads each meta block", "[table_open]") {
  Fixture t;
  t.meta.tail_size_bytes = 0;
  REQUIRE(t.OpenReader().ok());
  CHECK(t.fs.random_opens == 1);
  // footer, index, metaindex, filter, properties
  CHECK(t.fs.reads.size() == 5);
}

TEST_CASE("a block read from the prefetched tail is still checksummed", "[table_open]") {
  Fixture t;
  const std::string path = TableFileName(t.dir.path(), t.meta.number);
  {
    // Flip one byte in the middle of the tail (inside a meta block).
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const auto at = static_cast<std::streamoff>(t.meta.file_size - t.meta.tail_size_bytes / 2);
    f.seekg(at);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x10);
    f.seekp(at);
    f.write(&c, 1);
  }
  const Status s = t.OpenReader();
  CHECK(s.IsCorruption());
  CHECK(t.fs.reads.size() == 1);
}

TEST_CASE("a tail size the file cannot hold falls back to per-block reads", "[table_open]") {
  Fixture t;
  t.meta.tail_size_bytes = t.meta.file_size + 1;
  REQUIRE(t.OpenReader().ok());
  CHECK(t.fs.reads.size() == 5);
}

}  // namespace
}  // namespace shale
