// A chunk lost whole (SimFlashDevice::LoseChunk) in the middle of a file:
// the mount keeps the range it held in the file, reading it fails naming
// the file, and the bytes on either side read back. Planted, the mount
// ends the file at the loss with no error.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "flash/flash_format.h"
#include "flash_fixture.h"
#include "shale/options.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;

constexpr const char* kWal = "/db/000011.log";

// The device chunk holding chain index `index` of the file at path, and
// where that chunk starts in the file; false if no START says so.
bool FindChainChunk(const shale::sim::SimFlashDevice& device, const std::string& path,
                    uint32_t index, uint32_t* chunk, uint64_t* start_offset) {
  const shale::FlashGeometry& g = device.geometry();
  for (uint32_t c = 0; c < g.chunks(); c++) {
    std::string data, oob;
    shale::flash::SectorTag tag;
    shale::flash::ChunkStart start;
    if (device.PeekSector(c, 0, &data, &oob) &&
        shale::flash::DecodeTag(data.data(), g.sector_bytes, oob.data(), g.oob_bytes, &tag) &&
        tag.kind == shale::flash::SectorKind::kStart &&
        shale::flash::DecodeChunkStart(Slice(data.data(), tag.valid_bytes), &start) &&
        start.name == path && start.chain_index == index) {
      *chunk = c;
      *start_offset = start.start_offset;
      return true;
    }
  }
  return false;
}

struct LostChunkOutcome {
  bool setup_ok = false;
  uint64_t lost_begin = 0;  // the file bytes the lost chunk held
  uint64_t lost_end = 0;
  uint64_t size = 0;  // after the remount
  shale::Status read_lost;
  std::string before;  // 100 bytes before the lost range
  std::string after;   // 100 bytes after it
};

// Writes data to kWal (synced), crashes, loses chain index 1, remounts
// with planted_bugs and reads around the loss.
LostChunkOutcome LoseSecondChunk(const std::string& data, uint64_t planted_bugs) {
  FlashFixture f;
  LostChunkOutcome out;
  const shale::Status run = f.Run([&] {
    uint32_t lost = 0, next = 0;
    if (!f.Mount().ok() || !WriteFlashFile(f.fs(), kWal, data, /*sync=*/true).ok()) return;
    f.fs()->Shutdown();
    f.ProcessCrash();
    if (!FindChainChunk(*f.device(), kWal, 1, &lost, &out.lost_begin) ||
        !FindChainChunk(*f.device(), kWal, 2, &next, &out.lost_end) ||
        !f.device()->LoseChunk(lost).ok()) {
      return;
    }
    shale::FlashFsOptions options;
    options.planted_bugs = planted_bugs;
    if (!f.Mount(options).ok() || !f.fs()->GetFileSize(kWal, &out.size).ok()) return;
    std::unique_ptr<shale::RandomAccessFile> r;
    if (!f.fs()->NewRandomAccessFile(kWal, FileOptions(), &r).ok()) return;
    std::string scratch(4096, '\0');
    Slice got;
    out.read_lost = r->Read(out.lost_begin + 10, 10, &got, scratch.data());
    if (r->Read(out.lost_begin - 100, 100, &got, scratch.data()).ok()) out.before = got.ToString();
    if (r->Read(out.lost_end, 100, &got, scratch.data()).ok()) out.after = got.ToString();
    out.setup_ok = true;
  });
  CHECK(run.ok());
  return out;
}

TEST_CASE("flash fs: a chunk lost whole mid-file is kept as a range that fails to read") {
  const std::string data = Pattern(200'000, 3);
  const LostChunkOutcome out = LoseSecondChunk(data, shale::kBugNone);
  REQUIRE(out.setup_ok);
  REQUIRE(out.lost_begin < out.lost_end);
  CHECK(out.size == data.size());
  INFO(out.read_lost.ToString());
  CHECK(out.read_lost.IsCorruption());
  CHECK(out.read_lost.ToString().find(kWal) != std::string::npos);
  CHECK(out.before == data.substr(out.lost_begin - 100, 100));
  CHECK(out.after == data.substr(out.lost_end, 100));
}

TEST_CASE("flash fs: planted, a mount ends a file at a chunk lost whole") {
  const std::string data = Pattern(200'000, 3);
  const LostChunkOutcome out = LoseSecondChunk(data, shale::kBugFlashMountIgnoresLostChunk);
  REQUIRE(out.setup_ok);
  CHECK(out.size == out.lost_begin);  // silently cut: no error names the loss
}

TEST_CASE("flash device: only a CLOSED chunk can be lost, and then it reads as OFFLINE") {
  FlashFixture f;
  REQUIRE(f.Run([&] {
             CHECK(f.device()->LoseChunk(0).IsInvalidArgument());  // FREE
             REQUIRE(f.Mount().ok());
             REQUIRE(WriteFlashFile(f.fs(), kWal, Pattern(100'000, 5), true).ok());
             uint32_t chunk = 0;
             uint64_t at = 0;
             REQUIRE(FindChainChunk(*f.device(), kWal, 0, &chunk, &at));
             REQUIRE(f.device()->LoseChunk(chunk).ok());
             std::vector<shale::ChunkDescriptor> report = f.device()->Peek();
             CHECK(report[chunk].state == shale::ChunkState::kOffline);
             CHECK(report[chunk].write_pointer == 0);
             std::string data(4096, '\0'), oob(32, '\0');
             CHECK(f.device()->Read(chunk, 0, 1, data.data(), oob.data()).IsIOError());
             CHECK(f.device()->LoseChunk(chunk).IsInvalidArgument());
           }).ok());
}

}  // namespace
}  // namespace shale_test
