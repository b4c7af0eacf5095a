// HostCostFs: the system calls each modeled Env makes to open a file for
// random reads, and how the host's cores and device queue price them.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "sim/disk/host_cost_fs.h"
#include "sim/disk/sim_disk.h"
#include "sim_disk/test_disk_context.h"

namespace shale::sim {
namespace {

struct Fixture {
  shale_test::TestDiskContext context;
  SimDisk disk{&context, LatencyProfile::Zero()};

  Fixture() {
    for (const char* dir : {"/d", "/d/db", "/e"}) REQUIRE(disk.CreateDirIfMissing(dir).ok());
    for (const char* path :
         {"/d/db/000001.sst", "/d/db/000002.sst", "/e/000003.sst", "/d/db/MANIFEST-000004"}) {
      std::unique_ptr<WritableFile> f;
      REQUIRE(disk.NewWritableFile(path, FileOptions(), &f).ok());
      REQUIRE(f->Append(std::string(8192, 'x')).ok());
      REQUIRE(f->Close().ok());
    }
  }
};

// The system calls of opening path and closing it again.
uint64_t Open(HostCostFs* fs, const char* path, bool direct = false) {
  FileOptions opts;
  opts.use_direct_io = direct;
  std::unique_ptr<RandomAccessFile> file;
  REQUIRE(fs->NewRandomAccessFile(path, opts, &file).ok());
  file.reset();
  const uint64_t calls = fs->syscalls_total();
  fs->ResetCounts();
  return calls;
}

TEST_CASE("RocksDB 5.9's open asks the block size on every open", "[host_cost]") {
  Fixture t;
  const HostModel model = HostModel::LoadedNvmeHost(EnvOpenModel::RocksDb59());
  HostCostFs fs(&t.disk, &t.context, model);
  // open, fcntl, stat, fstat, lstat per path component, open + read +
  // close of the sysfs file, fadvise; then the close when the handle dies.
  const uint64_t per_open = 1 + 1 + 1 + 1 + static_cast<uint64_t>(model.path_components) + 3 + 1;
  // A table file: the reader's four preads beyond the engine's one.
  const uint64_t table_reads = 4;
  CHECK(Open(&fs, "/d/db/000001.sst") == per_open + table_reads + 1);
  CHECK(Open(&fs, "/d/db/000002.sst") == per_open + table_reads + 1);
  CHECK(Open(&fs, "/e/000003.sst") == per_open + table_reads + 1);
  CHECK(Open(&fs, "/d/db/MANIFEST-000004") == per_open + 1);
}

TEST_CASE("Shale's open is one open, and asks the block size once per directory", "[host_cost]") {
  Fixture t;
  HostCostFs fs(&t.disk, &t.context, HostModel::LoadedNvmeHost(EnvOpenModel::Shale()));
  CHECK(Open(&fs, "/d/db/000001.sst") == 2);  // open, close
  const uint64_t discovery = 1 + static_cast<uint64_t>(fs.model().path_components) + 3;
  CHECK(Open(&fs, "/d/db/000001.sst", true) == 2 + discovery);
  CHECK(Open(&fs, "/d/db/000002.sst", true) == 2);
  CHECK(Open(&fs, "/e/000003.sst", true) == 2 + discovery);
}

TEST_CASE("a call waits for its CPU time, then a read for the device", "[host_cost]") {
  Fixture t;
  const HostModel model = HostModel::LoadedNvmeHost(EnvOpenModel::Shale());
  HostCostFs fs(&t.disk, &t.context, model);
  std::unique_ptr<RandomAccessFile> file;
  REQUIRE(fs.NewRandomAccessFile("/d/db/000001.sst", FileOptions(), &file).ok());
  CHECK(t.context.delay_ns == model.costs.open_ns);
  char buf[4096];
  Slice got;
  REQUIRE(file->Read(0, sizeof(buf), &got, buf).ok());
  CHECK(got.size() == sizeof(buf));
  CHECK(t.context.delay_ns == model.costs.open_ns + model.costs.pread_cpu_ns +
                                  model.device_read_ns + 4 * model.device_read_per_kib_ns);
  CHECK(fs.reader_opens() == 1);
  CHECK(fs.live_table_files() == 1);
  file.reset();  // the close is charged to a core, not waited for
  CHECK(fs.live_table_files() == 0);
  CHECK(fs.syscall_counts().at("close") == 1);
}

TEST_CASE("calls queue for a busy core", "[host_cost]") {
  Fixture t;
  HostModel model = HostModel::LoadedNvmeHost(EnvOpenModel::Shale());
  model.cores = 1;
  HostCostFs fs(&t.disk, &t.context, model);
  // The test context's clock moves only by delays, so a call reserved
  // behind a close that nobody waited for starts when that close ends.
  std::unique_ptr<RandomAccessFile> file;
  REQUIRE(fs.NewRandomAccessFile("/d/db/000001.sst", FileOptions(), &file).ok());
  file.reset();
  const uint64_t before = t.context.delay_ns;
  REQUIRE(fs.NewRandomAccessFile("/d/db/000002.sst", FileOptions(), &file).ok());
  CHECK(t.context.delay_ns - before == model.costs.close_ns + model.costs.open_ns);
}

}  // namespace
}  // namespace shale::sim
