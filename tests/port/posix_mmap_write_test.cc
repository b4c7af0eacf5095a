// PosixFileSystem's mapped writable files (FileOptions::use_mmap_writes).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <memory>
#include <string>

#include "common/temp_dir.h"
#include "port/posix_env.h"
#include "port/posix_mapped_writable_file.h"
#include "shale/env.h"

using namespace shale;
using shale_test::TempDir;

namespace {

FileOptions MappedWrites() {
  FileOptions o;
  o.use_mmap_writes = true;
  return o;
}

uint64_t SizeOnDisk(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_size);
}

// Bytes that differ at every offset, so a misplaced copy shows.
std::string Pattern(size_t n, size_t from) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i++) s[i] = static_cast<char>('a' + (from + i) % 23);
  return s;
}

}  // namespace

TEST_CASE("a mapped writer appends across windows and closes at its size", "[port][fs][mmap]") {
  TempDir dir;
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  const std::string path = dir.Child("log");
  std::unique_ptr<WritableFile> f;
  REQUIRE(fs.NewWritableFile(path, MappedWrites(), &f).ok());
  REQUIRE(dynamic_cast<PosixMappedWritableFile*>(f.get()) != nullptr);
  constexpr uint64_t kWindow = PosixMappedWritableFile::kWindowBytes;
  std::string expected;
  // Odd-sized appends, one of them larger than a window, crossing three.
  for (size_t n : {size_t{1}, size_t{4095}, size_t{7}, size_t{kWindow + 333}, size_t{kWindow}}) {
    const std::string piece = Pattern(n, expected.size());
    REQUIRE(f->Append(piece).ok());
    expected += piece;
    REQUIRE(f->Flush().ok());
    REQUIRE(f->GetFileSize() == expected.size());
    // While open, the file covers what was appended, and at most a window
    // of space beyond it.
    REQUIRE(SizeOnDisk(path) >= expected.size());
    REQUIRE(SizeOnDisk(path) <= expected.size() + kWindow);
  }
  REQUIRE(f->Sync().ok());
  std::string got;
  REQUIRE(ReadFileToString(&fs, path, &got).ok());
  REQUIRE(got.substr(0, expected.size()) == expected);
  REQUIRE(got.find_first_not_of('\0', expected.size()) == std::string::npos);
  REQUIRE(f->Close().ok());
  REQUIRE(f->Close().ok());  // idempotent
  REQUIRE(SizeOnDisk(path) == expected.size());
  REQUIRE(ReadFileToString(&fs, path, &got).ok());
  REQUIRE(got == expected);
  REQUIRE_FALSE(f->Append("x").ok());
}

TEST_CASE("a mapped writer truncates, then appends at the new end", "[port][fs][mmap]") {
  TempDir dir;
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  const std::string path = dir.Child("log");
  std::unique_ptr<WritableFile> f;
  REQUIRE(fs.NewWritableFile(path, MappedWrites(), &f).ok());
  REQUIRE(f->Append(Pattern(10000, 0)).ok());
  REQUIRE(f->Truncate(5000).ok());
  REQUIRE(f->GetFileSize() == 5000);
  REQUIRE(f->Append("tail").ok());
  REQUIRE(f->PositionedAppend("x", 0).IsNotSupported());
  f.reset();  // the destructor closes, cut to size, as Close does
  std::string got;
  REQUIRE(ReadFileToString(&fs, path, &got).ok());
  REQUIRE(got == Pattern(5000, 0) + "tail");
}

TEST_CASE("direct I/O writes are never mapped", "[port][fs][mmap]") {
  TempDir dir;  // /tmp: tmpfs has no O_DIRECT
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  FileOptions o = MappedWrites();
  o.use_direct_io = true;
  std::unique_ptr<WritableFile> f;
  Status s = fs.NewWritableFile(dir.Child("direct"), o, &f);
  if (!s.ok()) {
    WARN("O_DIRECT not supported here: " << s.ToString());
    return;
  }
  REQUIRE(dynamic_cast<PosixMappedWritableFile*>(f.get()) == nullptr);
  REQUIRE(f->use_direct_io());
}
