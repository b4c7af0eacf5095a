// The file-backed flash device (engine/port/flash/file_flash_device.h):
// the same chunk rules as the simulated device, chunk states that survive
// reopening the file, a file of another geometry refused, and the flash
// backend and the engine on it with real threads.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_dir.h"
#include "flash_fixture.h"
#include "port/flash/file_flash_device.h"
#include "shale/db.h"

namespace shale_test {
namespace {

using shale::ChunkDescriptor;
using shale::ChunkState;
using shale::FileFlashDevice;
using shale::Slice;
using shale::Status;

std::unique_ptr<FileFlashDevice> OpenDevice(const std::string& path,
                                            const shale::FlashGeometry& g = SmallGeometry()) {
  std::unique_ptr<FileFlashDevice> device;
  const Status s = FileFlashDevice::Open(path, g, &device);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return device;
}

Status WriteSectors(FileFlashDevice* device, uint32_t chunk, uint32_t sector, uint32_t count,
                    char fill) {
  const auto& g = device->geometry();
  const std::string data(uint64_t{count} * g.sector_bytes, fill);
  const std::string oob(uint64_t{count} * g.oob_bytes, fill);
  return device->Write(chunk, sector, data, oob);
}

ChunkDescriptor Report(FileFlashDevice* device, uint32_t chunk) {
  std::vector<ChunkDescriptor> report;
  REQUIRE(device->ReportChunks(&report).ok());
  return report.at(chunk);
}

TEST_CASE("file flash device: the chunk rules hold as on the simulated device") {
  TempDir dir;
  REQUIRE(dir.ok());
  auto device = OpenDevice(dir.Child("flash.dev"));
  REQUIRE(WriteSectors(device.get(), 3, 0, 2, 'a').ok());
  Status s = WriteSectors(device.get(), 3, 0, 2, 'b');  // not at the write pointer
  CHECK(s.IsInvalidArgument());
  CHECK(s.ToString().find("device rule: write not at the write pointer") != std::string::npos);
  CHECK(WriteSectors(device.get(), 3, 2, 1, 'b').IsInvalidArgument());  // not ws_min
  // Cached sectors (mw_cunits = 4 behind the write pointer) cannot be read.
  std::string data(2 * 4096, '\0');
  CHECK(device->Read(3, 0, 2, data.data(), nullptr).IsInvalidArgument());
  REQUIRE(WriteSectors(device.get(), 3, 2, 14, 'c').ok());  // fills and closes the chunk
  CHECK(Report(device.get(), 3).state == ChunkState::kClosed);
  REQUIRE(device->Read(3, 0, 2, data.data(), nullptr).ok());
  CHECK(data == std::string(2 * 4096, 'a'));
  CHECK(WriteSectors(device.get(), 3, 16, 2, 'd').IsInvalidArgument());  // CLOSED
  REQUIRE(device->Reset(3).ok());
  CHECK(Report(device.get(), 3).state == ChunkState::kFree);
  CHECK(Report(device.get(), 3).wear == 1);
}

TEST_CASE("file flash device: chunk states and data survive reopening the file") {
  TempDir dir;
  REQUIRE(dir.ok());
  {
    auto device = OpenDevice(dir.Child("flash.dev"));
    REQUIRE(WriteSectors(device.get(), 5, 0, 16, 'x').ok());
    REQUIRE(WriteSectors(device.get(), 6, 0, 6, 'y').ok());
    REQUIRE(device->Reset(5).ok());
    REQUIRE(WriteSectors(device.get(), 5, 0, 2, 'z').ok());
  }
  auto device = OpenDevice(dir.Child("flash.dev"));
  CHECK(Report(device.get(), 5).state == ChunkState::kOpen);
  CHECK(Report(device.get(), 5).write_pointer == 2);
  CHECK(Report(device.get(), 5).wear == 1);
  CHECK(Report(device.get(), 6).write_pointer == 6);
  // Nothing is cached after a restart: every written sector reads back.
  std::string data(6 * 4096, '\0');
  std::string oob(6 * 32, '\0');
  REQUIRE(device->Read(6, 0, 6, data.data(), oob.data()).ok());
  CHECK(data == std::string(6 * 4096, 'y'));
  CHECK(oob == std::string(6 * 32, 'y'));
}

TEST_CASE("file flash device: a file of another geometry is refused") {
  TempDir dir;
  REQUIRE(dir.ok());
  (void)OpenDevice(dir.Child("flash.dev"));
  shale::FlashGeometry other = SmallGeometry();
  other.chunks_per_unit = 32;
  std::unique_ptr<FileFlashDevice> device;
  const Status s = FileFlashDevice::Open(dir.Child("flash.dev"), other, &device);
  CHECK(s.IsInvalidArgument());
  CHECK(s.ToString().find("another geometry") != std::string::npos);
}

TEST_CASE("file flash device: the engine runs on the flash backend with real threads") {
  TempDir dir;
  REQUIRE(dir.ok());
  shale::Env* real = shale::Env::Default();
  std::map<std::string, std::string> written;
  for (int round = 0; round < 2; round++) {
    auto device = OpenDevice(dir.Child("flash.dev"));
    std::unique_ptr<shale::FlashFileSystem> fs;
    REQUIRE(shale::OpenFlashFileSystem(device.get(), real->fs(), real->runtime(), {}, &fs).ok());
    shale::Env env(fs.get(), real->clock(), real->runtime());
    shale::Options options;
    options.env = &env;
    options.create_if_missing = true;
    options.write_buffer_size = 16 << 10;
    std::unique_ptr<shale::DB> db;
    REQUIRE(shale::DB::Open(options, dir.path(), &db).ok());
    for (const auto& [key, value] : written) {
      std::string got;
      REQUIRE(db->Get(shale::ReadOptions(), key, &got).ok());
      REQUIRE(got == value);
    }
    std::atomic<int> failed_puts{0};  // Catch's checks are not thread-safe
    std::vector<std::thread> writers;
    for (int t = 0; t < 3; t++) {
      writers.emplace_back([&db, &failed_puts, t, round] {
        for (int i = 0; i < 400; i++) {
          const std::string key = "k" + std::to_string(t) + "-" + std::to_string(i);
          if (!db->Put(shale::WriteOptions(), key, Pattern(100, round * 1000 + i)).ok()) {
            failed_puts++;
          }
        }
      });
    }
    for (auto& w : writers) w.join();
    REQUIRE(failed_puts == 0);
    for (int t = 0; t < 3; t++) {
      for (int i = 0; i < 400; i++) {
        written["k" + std::to_string(t) + "-" + std::to_string(i)] = Pattern(100, round * 1000 + i);
      }
    }
    REQUIRE(db->Close().ok());
  }
}

}  // namespace
}  // namespace shale_test
