// WindowsDisk: one test per rule in sim/disk/windows_disk.h.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "sim/disk/windows_disk.h"
#include "sim_disk/test_disk_context.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;
using shale::sim::WindowsDisk;
using shale::sim::WindowsDiskOptions;

constexpr uint8_t kR = WindowsDisk::kAccessRead;
constexpr uint8_t kW = WindowsDisk::kAccessWrite;

FileOptions Opts(bool share_delete, const char* opened_by = "the engine", bool direct = false) {
  FileOptions o;
  o.share_delete = share_delete;
  o.opened_by = opened_by;
  o.use_direct_io = direct;
  return o;
}

// A sector-aligned buffer of n bytes filled with c.
struct AlignedBytes {
  AlignedBytes(size_t n, char c) : size(n) {
    data = static_cast<char*>(std::aligned_alloc(4096, n < 4096 ? 4096 : (n + 4095) / 4096 * 4096));
    std::memset(data, c, n);
  }
  ~AlignedBytes() { std::free(data); }
  Slice slice(size_t from = 0) const { return Slice(data + from, size - from); }
  char* data;
  size_t size;
};

struct Fixture {
  explicit Fixture(WindowsDiskOptions options = {})
      : base(&ctx, LatencyProfile::Zero()), disk(&base, &ctx, options) {
    REQUIRE(disk.CreateDirIfMissing("/db").ok());
    REQUIRE(base.SyncDir("/").ok());
  }
  // Creates path holding data, synced (FlushFileBuffers), closed.
  void Write(const std::string& path, const std::string& data) {
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(disk.NewWritableFile(path, FileOptions(), &w).ok());
    REQUIRE(w->Append(data).ok());
    REQUIRE(w->Sync().ok());
    REQUIRE(w->Close().ok());
  }
  std::string LastRule() const {
    return disk.violations().empty() ? "" : disk.violations().back().rule;
  }
  TestDiskContext ctx;
  SimDisk base;
  WindowsDisk disk;
};

TEST_CASE("windows disk: an open conflicting with a share mode is a sharing violation",
          "[sim_disk][windows]") {
  Fixture fx;
  fx.Write("/db/a", "abc");
  WindowsDisk::RawHandle reader;
  REQUIRE(fx.disk.OpenRaw("/db/a", kR, kR, "a reader sharing only read", &reader).ok());
  // New access (write) not in the existing handle's share mode.
  std::unique_ptr<shale::WritableFile> w;
  Status s = fx.disk.ReopenWritableFile("/db/a", Opts(true), &w);
  CHECK(s.IsIOError());
  CHECK(fx.LastRule() == "share mode");
  fx.disk.CloseRaw(reader);
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", Opts(true, "the WAL writer"), &w).ok());
  // New share mode (read only) excludes the existing handle's write access.
  WindowsDisk::RawHandle strict;
  s = fx.disk.OpenRaw("/db/a", kR, kR, "a strict reader", &strict);
  CHECK(s.IsIOError());
  CHECK(fx.disk.violations().back().detail.find("the WAL writer") != std::string::npos);
  // Compatible: read access, sharing everything the writer uses.
  CHECK(fx.disk.OpenRaw("/db/a", kR, kR | kW, "a reader", &strict).ok());
  CHECK(fx.disk.violations().size() == 2);
}

TEST_CASE("windows disk: deleting a file open without share-delete fails and names the holder",
          "[sim_disk][windows]") {
  Fixture fx;
  fx.Write("/db/000012.sst", "table");
  std::unique_ptr<shale::RandomAccessFile> r;
  REQUIRE(fx.disk.NewRandomAccessFile("/db/000012.sst", Opts(false, "the table cache"), &r).ok());
  CHECK(fx.disk.DeleteFile("/db/000012.sst").IsIOError());
  REQUIRE(fx.disk.violations().size() == 1);
  const auto& v = fx.disk.violations()[0];
  CHECK(v.rule == "delete of an open file");
  CHECK(v.ToString().find(
            "DeleteFile(/db/000012.sst): open without share-delete by the table cache") !=
        std::string::npos);
  CHECK(fx.disk.FileExists("/db/000012.sst").ok());  // nothing happened
  r.reset();                                         // closed
  CHECK(fx.disk.DeleteFile("/db/000012.sst").ok());
  CHECK(fx.disk.FileExists("/db/000012.sst").IsNotFound());
}

TEST_CASE("windows disk: a delete with share-delete leaves the name pending until the last close",
          "[sim_disk][windows]") {
  Fixture fx;
  fx.Write("/db/a", "abc");
  std::unique_ptr<shale::RandomAccessFile> r;
  REQUIRE(fx.disk.NewRandomAccessFile("/db/a", Opts(true), &r).ok());
  REQUIRE(fx.disk.DeleteFile("/db/a").ok());
  CHECK(fx.disk.DeletePending("/db/a"));
  std::vector<std::string> names;
  REQUIRE(fx.disk.GetChildren("/db", &names).ok());
  CHECK(names == std::vector<std::string>{"a"});  // still listed
  std::unique_ptr<shale::WritableFile> w;
  CHECK(fx.disk.NewWritableFile("/db/a", Opts(true), &w).IsIOError());  // reusing the name
  CHECK(fx.LastRule() == "delete pending");
  CHECK(fx.disk.FileExists("/db/a").IsIOError());
  CHECK(fx.disk.DeleteFile("/db/a").IsIOError());  // deleting again: denied
  char scratch[3];
  Slice got;
  REQUIRE(r->Read(0, 3, &got, scratch).ok());  // the holder still reads it
  CHECK(got == Slice("abc"));
  r.reset();
  CHECK(!fx.disk.DeletePending("/db/a"));
  CHECK(fx.disk.FileExists("/db/a").IsNotFound());
  REQUIRE(fx.disk.NewWritableFile("/db/a", Opts(true), &w).ok());  // free again
}

TEST_CASE(
    "windows disk: a pending delete is not on disk: power loss keeps the file, a crash ends it",
    "[sim_disk][windows]") {
  for (const bool power : {true, false}) {
    Fixture fx;
    fx.Write("/db/a", "abc");
    REQUIRE(fx.base.SyncDir("/db").ok());  // the name is durable
    std::unique_ptr<shale::RandomAccessFile> r;
    REQUIRE(fx.disk.NewRandomAccessFile("/db/a", Opts(true), &r).ok());
    REQUIRE(fx.disk.DeleteFile("/db/a").ok());
    if (power) {
      fx.disk.PowerLoss(kNeverSurvives, /*journal_kept=*/size_t{1} << 20);
      CHECK(Visible(fx.base, "/db/a") == "abc");
    } else {
      fx.disk.ProcessCrash();  // the OS closes the handle: the delete happens
      CHECK(Visible(fx.base, "/db/a") == "<missing>");
    }
    r.reset();  // a crashed process's handle: closing it touches nothing
  }
}

TEST_CASE("windows disk: a POSIX-semantics delete removes the name at once",
          "[sim_disk][windows]") {
  WindowsDiskOptions o;
  o.posix_delete = true;
  Fixture fx(o);
  fx.Write("/db/a", "abc");
  std::unique_ptr<shale::RandomAccessFile> r;
  REQUIRE(fx.disk.NewRandomAccessFile("/db/a", Opts(true), &r).ok());
  REQUIRE(fx.disk.DeleteFile("/db/a").ok());
  CHECK(fx.disk.FileExists("/db/a").IsNotFound());
  fx.Write("/db/a", "new");
  char scratch[3];
  Slice got;
  REQUIRE(r->Read(0, 3, &got, scratch).ok());
  CHECK(got == Slice("abc"));  // the old file, through the old handle
  // Without share-delete the delete still fails.
  std::unique_ptr<shale::RandomAccessFile> strict;
  REQUIRE(fx.disk.NewRandomAccessFile("/db/a", Opts(false), &strict).ok());
  CHECK(fx.disk.DeleteFile("/db/a").IsIOError());
  CHECK(fx.LastRule() == "delete of an open file");
}

TEST_CASE("windows disk: rename needs the replace flag, a closed target and a shared source",
          "[sim_disk][windows]") {
  Fixture fx;
  fx.Write("/db/src", "new");
  fx.Write("/db/dst", "old");
  CHECK(fx.disk.MoveFile("/db/src", "/db/dst", /*replace_existing=*/false).IsIOError());
  CHECK(fx.LastRule() == "rename over an existing name");
  std::unique_ptr<shale::SequentialFile> target;
  REQUIRE(fx.disk.NewSequentialFile("/db/dst", Opts(true, "a CURRENT reader"), &target).ok());
  CHECK(fx.disk.RenameFile("/db/src", "/db/dst").IsIOError());
  CHECK(fx.LastRule() == "rename onto an open file");
  target.reset();
  std::unique_ptr<shale::RandomAccessFile> source;
  REQUIRE(fx.disk.NewRandomAccessFile("/db/src", Opts(false), &source).ok());
  CHECK(fx.disk.RenameFile("/db/src", "/db/dst").IsIOError());
  CHECK(fx.LastRule() == "rename of an open file");
  source.reset();
  REQUIRE(fx.disk.NewRandomAccessFile("/db/src", Opts(true), &source).ok());
  REQUIRE(fx.disk.RenameFile("/db/src", "/db/dst").ok());  // shared: allowed
  CHECK(Visible(fx.base, "/db/dst") == "new");
  CHECK(fx.disk.violations().size() == 3);
  // The handle follows the file: deleting the new name is now pending.
  REQUIRE(fx.disk.DeleteFile("/db/dst").ok());
  CHECK(fx.disk.DeletePending("/db/dst"));
}

TEST_CASE("windows disk: unbuffered I/O must be aligned to the drawn sector size",
          "[sim_disk][windows]") {
  for (const uint32_t sector : {512u, 4096u}) {
    WindowsDiskOptions o;
    o.sector_bytes = sector;
    Fixture fx(o);
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fx.disk.NewWritableFile("/db/t", Opts(true, "a table builder", true), &w).ok());
    CHECK(w->GetRequiredBufferAlignment() == sector);
    AlignedBytes buf(8192, 'x');
    CHECK(w->PositionedAppend(Slice(buf.data, 512), 0).ok() == (sector == 512));
    CHECK(w->PositionedAppend(Slice(buf.data, 4096), 0).ok());
    CHECK(w->PositionedAppend(Slice(buf.data, 100), 4096).IsInvalidArgument());       // length
    CHECK(w->PositionedAppend(Slice(buf.data, 4096), 256).IsInvalidArgument());       // offset
    CHECK(w->PositionedAppend(Slice(buf.data + 8, 4096), 4096).IsInvalidArgument());  // address
    CHECK(fx.LastRule() == "unbuffered alignment");
    REQUIRE(w->Close().ok());
    std::unique_ptr<shale::RandomAccessFile> r;
    REQUIRE(fx.disk.NewRandomAccessFile("/db/t", Opts(true, "the table cache", true), &r).ok());
    Slice got;
    CHECK(r->Read(0, sector, &got, buf.data).ok());
    CHECK(r->Read(1, sector, &got, buf.data).IsInvalidArgument());
    CHECK(fx.disk.violations().size() == (sector == 512 ? 4u : 5u));
  }
}

TEST_CASE("windows disk: a padded unbuffered write shows its padding until end-of-file is set",
          "[sim_disk][windows]") {
  Fixture fx;
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.NewWritableFile("/db/t", Opts(true, "a table builder", true), &w).ok());
  AlignedBytes buf(4096, 0);
  std::memset(buf.data, 'd', 100);  // 100 logical bytes, padded to the sector
  REQUIRE(w->PositionedAppend(Slice(buf.data, 4096), 0).ok());
  uint64_t size = 0;
  REQUIRE(fx.disk.GetFileSize("/db/t", &size).ok());
  CHECK(size == 4096);             // readers see the padding
  REQUIRE(w->Truncate(100).ok());  // SetFileInformationByHandle(FileEndOfFileInfo)
  REQUIRE(fx.disk.GetFileSize("/db/t", &size).ok());
  CHECK(size == 100);
  REQUIRE(w->Close().ok());
  CHECK(fx.disk.violations().empty());
}

TEST_CASE("windows disk: preallocation keeps end-of-file, and writing past valid data zero-fills",
          "[sim_disk][windows]") {
  Fixture fx;
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.NewWritableFile("/db/log", Opts(true), &w).ok());
  REQUIRE(w->Append(std::string(1000, 'a')).ok());
  REQUIRE(w->Allocate(0, 1 << 20).ok());
  uint64_t size = 0;
  REQUIRE(fx.disk.GetFileSize("/db/log", &size).ok());
  CHECK(size == 1000);  // FileAllocationInfo does not move end of file
  CHECK(fx.disk.zero_filled_bytes() == 0);
  REQUIRE(w->Truncate(1 << 20).ok());  // end of file moves, valid data length does not
  const uint64_t delay_before = fx.ctx.delay_ns;
  REQUIRE(w->PositionedAppend(Slice("z"), 512 * 1024).ok());
  CHECK(fx.disk.zero_filled_bytes() == 512 * 1024 - 1000);
  CHECK(fx.ctx.delay_ns - delay_before >= (512 * 1024 - 1000) / 1024 * 500);
  REQUIRE(w->PositionedAppend(Slice("y"), 2000).ok());  // below valid data: no zeroing
  CHECK(fx.disk.zero_filled_bytes() == 512 * 1024 - 1000);
  REQUIRE(w->Close().ok());
  std::string data;
  REQUIRE(fx.base.ReadVisible("/db/log", &data).ok());
  CHECK(data.size() == (1u << 20));
  CHECK(data.substr(1000, 1000) == std::string(1000, '\0'));  // past valid data: zeros
}

TEST_CASE("windows disk: an append after a positional write lands at the file pointer",
          "[sim_disk][windows]") {
  Fixture fx;
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.NewWritableFile("/db/m", Opts(true), &w).ok());
  REQUIRE(w->Append("0123456789").ok());
  REQUIRE(w->Append("abcdefghij").ok());  // pointer at the end: fine
  CHECK(fx.disk.violations().empty());
  REQUIRE(w->PositionedAppend(Slice("XY"), 2).ok());  // pointer now 4
  REQUIRE(w->Append("!!").ok());                      // lands at 4, not 20
  CHECK(fx.LastRule() == "file pointer");
  CHECK(Visible(fx.base, "/db/m") == "01XY!!6789abcdefghij");
  REQUIRE(w->Truncate(8).ok());  // the pointer (6) stays
  REQUIRE(w->PositionedAppend(Slice("Q"), 8).ok());
  REQUIRE(w->Append("k").ok());  // pointer 9 == end: fine
  CHECK(fx.disk.violations().size() == 1);
  CHECK(Visible(fx.base, "/db/m") == "01XY!!67Qk");
}

TEST_CASE("windows disk: FlushFileBuffers persists a file and its name, SyncDir does nothing",
          "[sim_disk][windows]") {
  Fixture fx;
  CHECK(!fx.disk.SyncDirPersistsNames());
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.NewWritableFile("/db/unsynced", Opts(true), &w).ok());
  REQUIRE(w->Append("x").ok());
  REQUIRE(w->Close().ok());
  REQUIRE(fx.disk.SyncDir("/db").ok());  // accepted, does nothing
  fx.Write("/db/synced", "y");           // Sync: its name and every earlier record
  REQUIRE(fx.disk.NewWritableFile("/db/later", Opts(true), &w).ok());
  REQUIRE(w->Close().ok());
  fx.disk.PowerLoss(kNeverSurvives, /*journal_kept=*/0);
  CHECK(Visible(fx.base, "/db/synced") == "y");
  CHECK(Visible(fx.base, "/db/unsynced") == "");  // name kept (earlier record), data lost
  CHECK(Visible(fx.base, "/db/later") == "<missing>");
}

TEST_CASE("windows disk: a power loss keeps an in-order prefix of metadata operations",
          "[sim_disk][windows]") {
  Fixture fx;
  std::unique_ptr<shale::WritableFile> w;
  for (const char* name : {"/db/1", "/db/2", "/db/3"}) {
    REQUIRE(fx.disk.NewWritableFile(name, Opts(true), &w).ok());
    REQUIRE(w->Close().ok());
  }
  REQUIRE(fx.disk.RenameFile("/db/1", "/db/4").ok());
  fx.disk.PowerLoss(kNeverSurvives, /*journal_kept=*/2);
  CHECK(Visible(fx.base, "/db/1") == "");
  CHECK(Visible(fx.base, "/db/2") == "");
  CHECK(Visible(fx.base, "/db/3") == "<missing>");
  CHECK(Visible(fx.base, "/db/4") == "<missing>");
}

}  // namespace
}  // namespace shale_test
