// WritableFileWriter with direct I/O on a SimDisk: what Close leaves after
// a Sync must be durable as it is, with nothing re-written behind it.
#include <catch2/catch.hpp>

#include "sim_disk/test_disk_context.h"
#include "util/file_writer.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;

TEST_CASE("direct writer: Close after Sync re-writes nothing and makes the cut size durable",
          "[sim_disk][direct]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  FileOptions direct;
  direct.use_direct_io = true;
  std::unique_ptr<shale::WritableFile> file;
  REQUIRE(disk.NewWritableFile("/db/t", direct, &file).ok());
  REQUIRE(disk.SyncDir("/db").ok());
  shale::WritableFileWriter writer(std::move(file), "/db/t");
  REQUIRE(writer.Append(std::string(5000, 'x')).ok());
  REQUIRE(writer.Sync().ok());  // 8192 padded bytes durable
  REQUIRE(writer.Close().ok());
  disk.PowerLoss(/*survive_one_in=*/1, /*journal_kept=*/0);
  // Every pending sector write would have survived: there were none (the
  // synced tail was not written again), and the truncate to 5000 was synced.
  CHECK(disk.last_power_loss().empty());
  std::string data;
  REQUIRE(disk.ReadDurable("/db/t", &data).ok());
  CHECK(data == std::string(5000, 'x'));
}

}  // namespace
}  // namespace shale_test
