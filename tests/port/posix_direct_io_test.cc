// Direct I/O on a disk file system (/tmp); skipped where O_DIRECT is refused.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "common/temp_dir.h"
#include "port/posix_env.h"
#include "shale/env.h"

using namespace shale;
using shale_test::TempDir;

namespace {

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<char, FreeDeleter>;

AlignedBytes AlignedAlloc(size_t alignment, size_t n) {
  return AlignedBytes(static_cast<char*>(std::aligned_alloc(alignment, n)));
}

}  // namespace

TEST_CASE("direct I/O: aligned writes and reads round-trip", "[port][direct]") {
  TempDir dir;
  REQUIRE(dir.ok());
  FileSystem* fs = Env::Default()->fs();
  const std::string path = dir.Child("000007.sst");
  FileOptions direct;
  direct.use_direct_io = true;
  std::unique_ptr<WritableFile> w;
  Status s = fs->NewWritableFile(path, direct, &w);
  if (s.IsNotSupported()) {
    WARN("skipped: " << s.ToString());
    return;
  }
  REQUIRE(s.ok());
  REQUIRE(w->use_direct_io());
  const size_t align = w->GetRequiredBufferAlignment();
  REQUIRE(align >= 512);
  REQUIRE(align <= 4096);
  REQUIRE((align & (align - 1)) == 0);

  const size_t n = 2 * align;
  AlignedBytes buf = AlignedAlloc(align, n);
  for (size_t i = 0; i < n; i++) buf.get()[i] = static_cast<char>('a' + i % 26);
  REQUIRE(w->PositionedAppend(Slice(buf.get(), n), 0).ok());
  std::memset(buf.get() + align, 'Z', align);  // rewrite the tail block
  REQUIRE(w->PositionedAppend(Slice(buf.get() + align, align), align).ok());
  REQUIRE(w->GetFileSize() == n);
  REQUIRE(w->Truncate(n - 10).ok());  // the writer's logical size
  REQUIRE(w->Sync().ok());
  REQUIRE(w->Close().ok());

  std::unique_ptr<RandomAccessFile> r;
  REQUIRE(fs->NewRandomAccessFile(path, direct, &r).ok());
  REQUIRE(r->use_direct_io());
  AlignedBytes scratch = AlignedAlloc(align, n);
  Slice got;
  REQUIRE(r->Read(0, n, &got, scratch.get()).ok());
  REQUIRE(got.size() == n - 10);
  REQUIRE(got.data()[0] == 'a');
  REQUIRE(got.data()[align - 1] == static_cast<char>('a' + (align - 1) % 26));
  REQUIRE(got.data()[align] == 'Z');
  REQUIRE(got.data()[n - 11] == 'Z');
}

TEST_CASE("buffered files need no alignment", "[port][direct]") {
  TempDir dir;
  std::unique_ptr<WritableFile> w;
  REQUIRE(Env::Default()->fs()->NewWritableFile(dir.Child("f"), FileOptions(), &w).ok());
  REQUIRE_FALSE(w->use_direct_io());
  REQUIRE(w->GetRequiredBufferAlignment() == 1);
  REQUIRE(w->Close().ok());
}

TEST_CASE("direct I/O refused by the file system is NotSupported", "[port][direct]") {
  // tmpfs refused O_DIRECT before Linux 6.6; either answer is allowed, but a
  // refusal must be NotSupported, never a generic IOError.
  const std::string path = "/dev/shm/shale_port_direct_probe_" + std::to_string(::getpid());
  FileOptions direct;
  direct.use_direct_io = true;
  std::unique_ptr<WritableFile> w;
  Status s = Env::Default()->fs()->NewWritableFile(path, direct, &w);
  if (s.ok()) {
    REQUIRE(w->Close().ok());
    REQUIRE(Env::Default()->fs()->DeleteFile(path).ok());
  } else if (!s.IsPathNotFound()) {  // no /dev/shm at all: nothing to check
    REQUIRE(s.IsNotSupported());
    REQUIRE(s.message().find("O_DIRECT") != std::string::npos);
  }
}
