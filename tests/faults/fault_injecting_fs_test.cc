// FaultInjectingFs: the decorator carries out each decision the same way
// over any simulated disk (the SimDisk and the WindowsDisk over one).
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>

#include "faults/fault_injecting_fs.h"
#include "sim/disk/sim_disk.h"
#include "sim/disk/windows_disk.h"
#include "sim_disk/test_disk_context.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::faults::FaultInjectingFs;
using shale::faults::FaultPolicy;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;
using Op = FaultPolicy::Op;

// Applies `decide` to the next call of kind op (once), nothing to others.
class Scripted final : public FaultPolicy {
 public:
  void Next(Op op, std::function<void(const Request&, Decision*)> decide) {
    op_ = op;
    decide_ = std::move(decide);
  }
  Decision Decide(const Request& request) override {
    Decision d;
    if (decide_ && request.op == op_) {
      decide_(request, &d);
      decide_ = nullptr;
    }
    return d;
  }
  void FailNext(Op op) {
    Next(op, [](const Request&, Decision* d) { d->status = Status::IOError("injected"); });
  }

 private:
  Op op_ = Op::kOpen;
  std::function<void(const Request&, Decision*)> decide_;
};

// One disk model under the decorator: the SimDisk alone, or a WindowsDisk
// (512-byte sectors) over it.
struct Stack {
  explicit Stack(bool windows) : disk(&ctx, LatencyProfile::Zero()) {
    shale::FileSystem* target = &disk;
    if (windows) {
      shale::sim::WindowsDiskOptions o;
      o.sector_bytes = 512;
      win = std::make_unique<shale::sim::WindowsDisk>(&disk, &ctx, o);
      target = win.get();
    }
    fs = std::make_unique<FaultInjectingFs>(target, &ctx, &policy);
    REQUIRE(fs->CreateDirIfMissing("/db").ok());
  }
  size_t violations() const { return win ? win->violations().size() : 0; }
  // path, created through the decorator holding data, still open.
  std::unique_ptr<shale::WritableFile> OpenHolding(const std::string& path,
                                                   const std::string& data) {
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fs->NewWritableFile(path, FileOptions(), &w).ok());
    REQUIRE(w->Append(data).ok());
    return w;
  }
  // Writes path holding data through the decorator and closes it.
  void WriteClosed(const std::string& path, const std::string& data) {
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fs->NewWritableFile(path, FileOptions(), &w).ok());
    REQUIRE(w->Append(data).ok());
    REQUIRE(w->Close().ok());
  }

  TestDiskContext ctx;
  SimDisk disk;
  std::unique_ptr<shale::sim::WindowsDisk> win;
  Scripted policy;
  std::unique_ptr<FaultInjectingFs> fs;
};

// Reads into a 4096-aligned buffer (direct I/O needs an aligned address).
std::string Read(shale::RandomAccessFile* f, uint64_t offset, size_t n, Status* s) {
  alignas(4096) static char scratch[16384];
  REQUIRE(n <= sizeof(scratch));
  Slice got;
  *s = f->Read(offset, n, &got, scratch);
  return got.ToString();
}

TEST_CASE("fault fs: a failed call names its file, has no effect, and never reaches the disk",
          "[faults]") {
  for (const bool windows : {false, true}) {
    INFO("windows " << windows);
    Stack st(windows);
    std::unique_ptr<shale::WritableFile> w = st.OpenHolding("/db/f", "abc");
    st.policy.FailNext(Op::kWrite);
    const Status failed = w->Append("def");
    CHECK(failed.IsIOError());
    CHECK(failed.ToString().find("/db/f") != std::string::npos);
    CHECK(Visible(st.disk, "/db/f") == "abc");
    REQUIRE(w->Append("ghi").ok());  // the handle's pointer did not move
    CHECK(Visible(st.disk, "/db/f") == "abcghi");
    REQUIRE(w->Close().ok());
    st.policy.FailNext(Op::kRename);
    CHECK(st.fs->RenameFile("/db/f", "/db/g").IsIOError());
    CHECK(st.fs->FileExists("/db/f").ok());
    st.policy.FailNext(Op::kCreate);
    CHECK(st.fs->NewWritableFile("/db/h", FileOptions(), &w).IsIOError());
    CHECK(st.fs->FileExists("/db/h").IsNotFound());
    st.policy.FailNext(Op::kDelete);
    CHECK(st.fs->DeleteFile("/db/f").IsIOError());
    CHECK(st.fs->FileExists("/db/f").ok());
    CHECK(st.violations() == 0);
  }
}

TEST_CASE("fault fs: a failed sync does its fate to the dirty pages on either disk", "[faults]") {
  for (const bool windows : {false, true}) {
    INFO("windows " << windows);
    Stack st(windows);
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(st.fs->NewWritableFile("/db/f", FileOptions(), &w).ok());
    REQUIRE(st.fs->SyncDir("/db").ok());  // the name durable on the POSIX disk
    REQUIRE(w->Append("abc").ok());
    REQUIRE(w->Sync().ok());
    REQUIRE(w->Append("def").ok());
    st.policy.Next(Op::kSync, [](const FaultPolicy::Request&, FaultPolicy::Decision* d) {
      d->status = Status::IOError("injected");
      d->failed_sync = shale::sim::FailedSync::kDropsPages;
    });
    CHECK(w->Sync().IsIOError());
    CHECK(Visible(st.disk, "/db/f") == "abc");  // dropped
    REQUIRE(w->Append("xyz").ok());
    st.policy.Next(Op::kSync, [](const FaultPolicy::Request&, FaultPolicy::Decision* d) {
      d->status = Status::IOError("injected");
      d->failed_sync = shale::sim::FailedSync::kKeepsPages;
    });
    CHECK(w->Sync().IsIOError());
    REQUIRE(w->Sync().ok());
    std::string durable;
    REQUIRE(st.disk.ReadDurable("/db/f", &durable).ok());
    CHECK(durable == "abcxyz");
    REQUIRE(w->Close().ok());
  }
}

TEST_CASE("fault fs: a misdirected append lands one sector over, and the handle goes on",
          "[faults]") {
  for (const bool windows : {false, true}) {
    INFO("windows " << windows);
    Stack st(windows);
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(st.fs->NewWritableFile("/db/f", FileOptions(), &w).ok());
    REQUIRE(w->Append(std::string(600, 'a')).ok());
    st.policy.Next(Op::kWrite, [](const FaultPolicy::Request& r, FaultPolicy::Decision* d) {
      CHECK(r.has_range);
      CHECK(r.offset == 600);
      CHECK(r.file_size_bytes == 600);
      d->misdirect_to_sector = 0;  // lands in sector 0 at offset 600 % 512
    });
    REQUIRE(w->Append(std::string(10, 'b')).ok());
    const std::string now = Visible(st.disk, "/db/f");
    REQUIRE(now.size() == 610);
    CHECK(now.substr(600 - 512, 10) == std::string(10, 'b'));
    CHECK(now.substr(600, 10) == std::string(10, '\0'));  // zeros past the old end
    REQUIRE(w->Append("c").ok());                         // the next append goes on at 610
    CHECK(Visible(st.disk, "/db/f").size() == 611);
    CHECK(st.violations() == 0);  // the file pointer followed the write
    REQUIRE(w->Close().ok());
  }
}

TEST_CASE("fault fs: a short write lands its prefix, fails, and the handle goes on after it",
          "[faults]") {
  for (const bool windows : {false, true}) {
    INFO("windows " << windows);
    Stack st(windows);
    std::unique_ptr<shale::WritableFile> w = st.OpenHolding("/db/f", "abc");
    st.policy.Next(Op::kWrite, [](const FaultPolicy::Request& r, FaultPolicy::Decision* d) {
      CHECK(r.length_bytes == 5);
      d->status = Status::NoSpace("injected");
      d->applied_prefix_bytes = 2;
    });
    const Status failed = w->Append("defgh");
    CHECK(failed.IsNoSpace());
    CHECK(failed.ToString().find("/db/f") != std::string::npos);
    CHECK(Visible(st.disk, "/db/f") == "abcde");
    REQUIRE(w->Append("x").ok());
    CHECK(Visible(st.disk, "/db/f") == "abcdex");
    REQUIRE(w->Close().ok());
    CHECK(st.violations() == 0);
  }
}

TEST_CASE("fault fs: short reads reach the disk as more calls, split at the alignment",
          "[faults]") {
  for (const bool windows : {false, true}) {
    INFO("windows " << windows);
    Stack st(windows);
    const std::string data(8192 + 100, 'd');
    st.WriteClosed("/db/f", data);
    FileOptions direct;
    direct.use_direct_io = true;
    std::unique_ptr<shale::RandomAccessFile> f;
    REQUIRE(st.fs->NewRandomAccessFile("/db/f", direct, &f).ok());
    const uint64_t calls_before = st.ctx.switch_points;
    Status s;
    CHECK(Read(f.get(), 0, 8192, &s) == data.substr(0, 8192));
    REQUIRE(s.ok());
    const uint64_t one_read = st.ctx.switch_points - calls_before;
    st.policy.Next(Op::kRead, [](const FaultPolicy::Request&, FaultPolicy::Decision* d) {
      d->short_reads = 3;
    });
    const uint64_t before = st.ctx.switch_points;
    CHECK(Read(f.get(), 0, 8192, &s) == data.substr(0, 8192));
    REQUIRE(s.ok());
    const size_t alignment = f->GetRequiredBufferAlignment();
    const uint64_t parts = std::min<uint64_t>(4, 8192 / alignment);
    CHECK(st.ctx.switch_points - before == parts * one_read);
    CHECK(st.violations() == 0);  // every part aligned
  }
}

TEST_CASE("fault fs: an unreadable sector fails that read and later ones", "[faults]") {
  for (const bool windows : {false, true}) {
    INFO("windows " << windows);
    Stack st(windows);
    st.WriteClosed("/db/f", std::string(2048, 'u'));
    std::unique_ptr<shale::RandomAccessFile> f;
    REQUIRE(st.fs->NewRandomAccessFile("/db/f", FileOptions(), &f).ok());
    st.policy.Next(Op::kRead, [](const FaultPolicy::Request&, FaultPolicy::Decision* d) {
      d->unreadable_sector = 2;
    });
    Status s;
    (void)Read(f.get(), 1024, 10, &s);
    CHECK(s.IsIOError());
    (void)Read(f.get(), 1100, 10, &s);
    CHECK(s.IsIOError());
    (void)Read(f.get(), 0, 1024, &s);
    CHECK(s.ok());
  }
}

}  // namespace
}  // namespace shale_test
