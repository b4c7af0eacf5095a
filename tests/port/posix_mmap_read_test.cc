// PosixFileSystem's mapped random-access files (FileOptions::use_mmap_reads).
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "port/posix_env.h"
#include "shale/env.h"

using namespace shale;
using shale_test::TempDir;

namespace {

FileOptions Mapped() {
  FileOptions o;
  o.use_mmap_reads = true;
  return o;
}

}  // namespace

TEST_CASE("a mapped file answers from its map, bounded by its size", "[port][fs][mmap]") {
  TempDir dir;
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  const std::string path = dir.Child("t");
  REQUIRE(WriteStringToFile(&fs, "0123456789", path, /*sync=*/false).ok());
  std::unique_ptr<RandomAccessFile> r;
  REQUIRE(fs.NewRandomAccessFile(path, Mapped(), &r).ok());
  REQUIRE(r->ReadsAreMapped());
  REQUIRE(fs.mapped_files_available() == PosixFileSystem::kMaxMappedFiles - 1);
  Slice got;
  char scratch[16] = {};
  REQUIRE(r->Read(2, 5, &got, scratch).ok());
  REQUIRE(got == Slice("23456"));
  REQUIRE(got.data() != scratch);  // no copy
  Slice again;
  REQUIRE(r->Read(2, 5, &again, nullptr).ok());
  REQUIRE(again.data() == got.data());
  REQUIRE(r->Read(8, 5, &got, nullptr).ok());  // short at end of file
  REQUIRE(got == Slice("89"));
  REQUIRE(r->Read(10, 5, &got, nullptr).ok());
  REQUIRE(got.empty());
  REQUIRE(r->Read(1000, 5, &got, nullptr).ok());
  REQUIRE(got.empty());
  r.reset();
  REQUIRE(fs.mapped_files_available() == PosixFileSystem::kMaxMappedFiles);
}

TEST_CASE("an empty file maps, and reads nothing", "[port][fs][mmap]") {
  TempDir dir;
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  const std::string path = dir.Child("empty");
  REQUIRE(WriteStringToFile(&fs, "", path, /*sync=*/false).ok());
  std::unique_ptr<RandomAccessFile> r;
  REQUIRE(fs.NewRandomAccessFile(path, Mapped(), &r).ok());
  Slice got("x");
  REQUIRE(r->Read(0, 4, &got, nullptr).ok());
  REQUIRE(got.empty());
}

TEST_CASE("past the map limit, files read with pread, and a freed slot maps again",
          "[port][fs][mmap]") {
  TempDir dir;
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  const std::string path = dir.Child("t");
  REQUIRE(WriteStringToFile(&fs, "abc", path, /*sync=*/false).ok());
  std::vector<std::unique_ptr<RandomAccessFile>> open;
  for (int i = 0; i < PosixFileSystem::kMaxMappedFiles; i++) {
    open.emplace_back();
    REQUIRE(fs.NewRandomAccessFile(path, Mapped(), &open.back()).ok());
    REQUIRE(open.back()->ReadsAreMapped());
  }
  REQUIRE(fs.mapped_files_available() == 0);
  std::unique_ptr<RandomAccessFile> unmapped;
  REQUIRE(fs.NewRandomAccessFile(path, Mapped(), &unmapped).ok());
  REQUIRE(!unmapped->ReadsAreMapped());
  char scratch[8];
  Slice got;
  REQUIRE(unmapped->Read(0, 3, &got, scratch).ok());
  REQUIRE(got == Slice("abc"));
  REQUIRE(got.data() == scratch);
  open.pop_back();
  std::unique_ptr<RandomAccessFile> remapped;
  REQUIRE(fs.NewRandomAccessFile(path, Mapped(), &remapped).ok());
  REQUIRE(remapped->ReadsAreMapped());
}

TEST_CASE("without use_mmap_reads, or with direct I/O, nothing maps", "[port][fs][mmap]") {
  TempDir dir;
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  const std::string path = dir.Child("t");
  REQUIRE(WriteStringToFile(&fs, std::string(8192, 'z'), path, /*sync=*/false).ok());
  std::unique_ptr<RandomAccessFile> r;
  REQUIRE(fs.NewRandomAccessFile(path, FileOptions(), &r).ok());
  REQUIRE(!r->ReadsAreMapped());
  FileOptions direct = Mapped();
  direct.use_direct_io = true;
  Status s = fs.NewRandomAccessFile(path, direct, &r);
  if (s.ok()) {  // tmpfs refuses O_DIRECT; elsewhere the file must not map
    REQUIRE(!r->ReadsAreMapped());
    REQUIRE(r->use_direct_io());
  }
  REQUIRE(fs.mapped_files_available() == PosixFileSystem::kMaxMappedFiles);
}

TEST_CASE("a mapped file stays readable after its name is deleted", "[port][fs][mmap]") {
  TempDir dir;
  REQUIRE(dir.ok());
  PosixFileSystem fs;
  const std::string path = dir.Child("t");
  REQUIRE(WriteStringToFile(&fs, "still here", path, /*sync=*/false).ok());
  std::unique_ptr<RandomAccessFile> r;
  REQUIRE(fs.NewRandomAccessFile(path, Mapped(), &r).ok());
  REQUIRE(fs.DeleteFile(path).ok());
  Slice got;
  REQUIRE(r->Read(0, 10, &got, nullptr).ok());
  REQUIRE(got == Slice("still here"));
}
