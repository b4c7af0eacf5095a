// SimDisk against the FileSystem contract (engine/include/shale/env.h): names,
// handles, locks, direct I/O and latency. Crash behaviour is in
// sim_disk_crash_test.cc.
#include <catch2/catch.hpp>

#include "sim_disk/test_disk_context.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;

std::string Visible(const SimDisk& disk, const std::string& path) {
  std::string data;
  const Status s = disk.ReadVisible(path, &data);
  return s.ok() ? data : "<" + s.ToString() + ">";
}

TEST_CASE("sim_disk: names need their directory, children sorted", "[sim_disk]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  std::unique_ptr<shale::WritableFile> f;
  CHECK(disk.NewWritableFile("/db/a", FileOptions(), &f).IsPathNotFound());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  REQUIRE(disk.CreateDirIfMissing("/db/").ok());
  CHECK(disk.CreateDirIfMissing("/nope/sub").IsPathNotFound());
  for (const char* name : {"/db/c", "/db/a", "/db/b"}) {
    REQUIRE(disk.NewWritableFile(name, FileOptions(), &f).ok());
  }
  std::vector<std::string> names;
  REQUIRE(disk.GetChildren("/db", &names).ok());
  CHECK(names == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(disk.GetChildren("/", &names).ok());
  CHECK(names == std::vector<std::string>{"db"});
  CHECK(disk.FileExists("/db/a").ok());
  CHECK(disk.FileExists("/db/zz").IsNotFound());
  CHECK(disk.FileExists("/").ok());
  CHECK(disk.DeleteDir("/db").IsIOError());
  CHECK(disk.DeleteFile("/db/zz").IsPathNotFound());
}

TEST_CASE("sim_disk: write, read back, size, truncate, positioned append", "[sim_disk]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(disk.NewWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->Append("hello world").ok());
  REQUIRE(w->PositionedAppend("W", 6).ok());
  REQUIRE(w->Allocate(0, 1 << 20).ok());
  CHECK(w->GetFileSize() == 11);
  uint64_t size = 0;
  REQUIRE(disk.GetFileSize("/db/f", &size).ok());
  CHECK(size == 11);
  std::unique_ptr<shale::SequentialFile> seq;
  REQUIRE(disk.NewSequentialFile("/db/f", FileOptions(), &seq).ok());
  char scratch[64];
  Slice got;
  REQUIRE(seq->Skip(6).ok());
  REQUIRE(seq->Read(64, &got, scratch).ok());
  CHECK(got.ToString() == "World");
  REQUIRE(w->Truncate(5).ok());
  std::unique_ptr<shale::RandomAccessFile> ra;
  REQUIRE(disk.NewRandomAccessFile("/db/f", FileOptions(), &ra).ok());
  REQUIRE(ra->Read(1, 10, &got, scratch).ok());
  CHECK(got.ToString() == "ello");
  REQUIRE(w->Close().ok());
  CHECK(w->Append("x").IsIOError());
  // Reopen appends at the end; NewWritableFile truncates.
  REQUIRE(disk.ReopenWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->Append("!").ok());
  CHECK(Visible(disk, "/db/f") == "hello!");
  REQUIRE(disk.NewWritableFile("/db/f", FileOptions(), &w).ok());
  CHECK(Visible(disk, "/db/f").empty());
}

// The trace hash covers data: the same calls with different bytes written,
// or read back, fold differently.
std::vector<uint64_t> FoldsOfWriteAndRead(const std::string& data) {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(disk.NewWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->Append(data).ok());
  std::unique_ptr<shale::RandomAccessFile> r;
  REQUIRE(disk.NewRandomAccessFile("/db/f", FileOptions(), &r).ok());
  char scratch[8];
  Slice got;
  REQUIRE(r->Read(0, data.size(), &got, scratch).ok());
  return ctx.folds;
}

TEST_CASE("sim_disk: the trace folds the bytes written and read", "[sim_disk]") {
  const std::vector<uint64_t> a = FoldsOfWriteAndRead("abcd");
  CHECK(a == FoldsOfWriteAndRead("abcd"));
  const std::vector<uint64_t> b = FoldsOfWriteAndRead("abce");
  REQUIRE(a.size() == b.size());
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); i++) differing += a[i] != b[i];
  CHECK(differing == 2);  // the append's data and the read's
}

TEST_CASE("sim_disk: a deleted file stays readable through open handles", "[sim_disk]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(disk.NewWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->Append("still here").ok());
  std::unique_ptr<shale::RandomAccessFile> ra;
  REQUIRE(disk.NewRandomAccessFile("/db/f", FileOptions(), &ra).ok());
  REQUIRE(disk.DeleteFile("/db/f").ok());
  REQUIRE(disk.SyncDir("/db").ok());
  CHECK(disk.FileExists("/db/f").IsNotFound());
  REQUIRE(w->Append("!").ok());
  char scratch[32];
  Slice got;
  REQUIRE(ra->Read(0, 32, &got, scratch).ok());
  CHECK(got.ToString() == "still here!");
  REQUIRE(w->Close().ok());
  ra.reset();  // last handle: the inode is freed
  std::vector<std::string> names;
  REQUIRE(disk.GetChildren("/db", &names).ok());
  CHECK(names.empty());
}

TEST_CASE("sim_disk: rename replaces the target atomically", "[sim_disk]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(disk.NewWritableFile("/db/a", FileOptions(), &w).ok());
  REQUIRE(w->Append("new").ok());
  REQUIRE(disk.NewWritableFile("/db/b", FileOptions(), &w).ok());
  REQUIRE(w->Append("old").ok());
  REQUIRE(disk.RenameFile("/db/a", "/db/b").ok());
  CHECK(Visible(disk, "/db/b") == "new");
  CHECK(disk.FileExists("/db/a").IsNotFound());
  CHECK(disk.RenameFile("/db/a", "/db/c").IsPathNotFound());
  CHECK(disk.RenameFile("/db/b", "/nodir/c").IsPathNotFound());
}

TEST_CASE("sim_disk: locks are exclusive per path", "[sim_disk]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  std::unique_ptr<shale::FileLock> lock, second;
  REQUIRE(disk.LockFile("/db/LOCK", &lock).ok());
  CHECK(disk.FileExists("/db/LOCK").ok());
  const Status held = disk.LockFile("/db/LOCK", &second);
  CHECK(held.IsIOError());
  CHECK(held.message().find("lock held") != std::string::npos);
  REQUIRE(disk.UnlockFile(std::move(lock)).ok());
  REQUIRE(disk.LockFile("/db/LOCK", &second).ok());
  CHECK(disk.LockFile("/nodir/LOCK", &lock).IsPathNotFound());
}

TEST_CASE("sim_disk: direct I/O rejects misaligned offset, length and buffer", "[sim_disk]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  FileOptions direct;
  direct.use_direct_io = true;
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(disk.NewWritableFile("/db/d", direct, &w).ok());
  CHECK(w->use_direct_io());
  CHECK(w->GetRequiredBufferAlignment() == 4096);
  alignas(4096) static char buf[3 * 4096];
  std::fill(buf, buf + sizeof(buf), 'd');
  CHECK(w->Append(Slice(buf, 100)).IsInvalidArgument());                  // length
  CHECK(w->Append(Slice(buf + 1, 4096)).IsInvalidArgument());             // buffer
  CHECK(w->PositionedAppend(Slice(buf, 4096), 512).IsInvalidArgument());  // offset
  CHECK(w->GetFileSize() == 0);
  REQUIRE(w->Append(Slice(buf, 4096)).ok());
  REQUIRE(w->PositionedAppend(Slice(buf, 8192), 4096).ok());
  REQUIRE(w->Truncate(10000).ok());
  std::unique_ptr<shale::RandomAccessFile> ra;
  REQUIRE(disk.NewRandomAccessFile("/db/d", direct, &ra).ok());
  CHECK(ra->GetRequiredBufferAlignment() == 4096);
  Slice got;
  CHECK(ra->Read(4096, 4096, &got, buf + 8).IsInvalidArgument());
  CHECK(ra->Read(100, 4096, &got, buf).IsInvalidArgument());
  CHECK(ra->Read(0, 4000, &got, buf).IsInvalidArgument());
  REQUIRE(ra->Read(8192, 4096, &got, buf).ok());
  CHECK(got.size() == 10000 - 8192);
  std::unique_ptr<shale::SequentialFile> seq;
  REQUIRE(disk.NewSequentialFile("/db/d", direct, &seq).ok());
  CHECK(seq->Read(100, &got, buf).IsInvalidArgument());
  REQUIRE(seq->Read(4096, &got, buf).ok());
  CHECK(got.size() == 4096);
}

TEST_CASE("sim_disk: every call is a switch point, costs latency and is traced", "[sim_disk]") {
  TestDiskContext ctx;
  const LatencyProfile nvme = LatencyProfile::NVMe();
  SimDisk disk(&ctx, nvme);
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(disk.NewWritableFile("/db/f", FileOptions(), &w).ok());
  const uint64_t before = ctx.delay_ns;
  REQUIRE(w->Sync().ok());
  CHECK(ctx.delay_ns - before == nvme.sync_ns);
  CHECK(ctx.switch_points == 3);
  CHECK(ctx.folds.size() == 3 * 4);
  CHECK(LatencyProfile::Hdd().sync_ns > LatencyProfile::SataSsd().sync_ns);
  CHECK(LatencyProfile::SataSsd().sync_ns > nvme.sync_ns);
  CHECK(LatencyProfile::Zero().read_ns == 0);
}

}  // namespace
}  // namespace shale_test
