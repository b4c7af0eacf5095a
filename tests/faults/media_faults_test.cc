// The media faults the injector asks of SimDisk: bit flips in durable data,
// sticky unreadable sectors, misdirected writes, and failed syncs that drop
// (or keep) the dirty pages.
#include <catch2/catch.hpp>

#include "faults/fault_fixture.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::faults::FaultConfig;
using shale::faults::FaultKind;
using shale::sim::SimDisk;

Status ReadAt(shale::FileSystem* disk, const std::string& path, uint64_t offset, size_t n,
              std::string* out) {
  std::unique_ptr<shale::RandomAccessFile> f;
  Status s = disk->NewRandomAccessFile(path, FileOptions(), &f);
  if (!s.ok()) return s;
  std::string scratch(n, '\0');
  Slice got;
  s = f->Read(offset, n, &got, scratch.data());
  if (s.ok()) *out = got.ToString();
  return s;
}

TEST_CASE("bit flip: exactly one bit of durable data changes, and survives power loss",
          "[faults]") {
  FaultFixture fx(FaultConfig{});
  const std::string data(3000, 'q');
  fx.WriteDurable("/db/f", data);
  REQUIRE(fx.injector.FlipRandomBit(&fx.disk, "/db/f").ok());
  CHECK(fx.count("bit_flip") == 1);
  const std::string flipped = fx.Durable("/db/f");
  CHECK(BitsDiffering(flipped, data) == 1);
  CHECK(fx.Visible("/db/f") == flipped);  // clean page: reads see the media
  fx.disk.PowerLoss(1);
  CHECK(fx.Durable("/db/f") == flipped);
  CHECK(fx.Visible("/db/f") == flipped);
}

TEST_CASE("bit flip: under a dirty page only the media changes, a sync rewrites it", "[faults]") {
  FaultFixture fx(FaultConfig{});
  fx.WriteDurable("/db/f", std::string(1024, 'a'));
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.ReopenWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->PositionedAppend(std::string(10, 'b'), 100).ok());  // sector 0 dirty
  REQUIRE(fx.disk.CorruptDurable("/db/f", 5, 0).ok());
  REQUIRE(fx.disk.CorruptDurable("/db/f", 600, 3).ok());  // sector 1 clean
  CHECK(fx.Visible("/db/f")[5] == 'a');
  CHECK(fx.Durable("/db/f")[5] == static_cast<char>('a' ^ 1));
  CHECK(fx.Visible("/db/f")[600] == static_cast<char>('a' ^ 8));
  REQUIRE(w->Sync().ok());
  CHECK(fx.Durable("/db/f")[5] == 'a');
  CHECK(fx.disk.CorruptDurable("/db/f", 1024, 0).IsInvalidArgument());
  CHECK(fx.disk.CorruptDurable("/db/f", 0, 8).IsInvalidArgument());
  CHECK(fx.disk.CorruptDurable("/db/nope", 0, 0).IsNotFound());
}

TEST_CASE("bit flip at a crash: with rate 1/1 every durable file gets one flipped bit",
          "[faults]") {
  FaultFixture fx(Only(FaultKind::kBitFlip, 1));
  fx.WriteDurable("/db/a", std::string(700, 'a'));
  fx.WriteDurable("/db/b", std::string(9000, 'b'));
  fx.WriteDurable("/db/empty", "");
  fx.disk.PowerLoss(kNeverSurvives);
  fx.injector.AfterCrash(&fx.disk);
  CHECK(fx.count("bit_flip") == 2);
  CHECK(BitsDiffering(fx.Durable("/db/a"), std::string(700, 'a')) == 1);
  CHECK(BitsDiffering(fx.Durable("/db/b"), std::string(9000, 'b')) == 1);
  CHECK(fx.Durable("/db/empty").empty());
}

TEST_CASE("sticky sector: reads touching it fail forever, others succeed", "[faults]") {
  FaultFixture fx(FaultConfig{});
  fx.WriteDurable("/db/f", std::string(4 * 512, 's'));
  REQUIRE(fx.disk.MarkSectorUnreadable("/db/f", 2).ok());
  std::string got;
  CHECK(ReadAt(&fx.fs, "/db/f", 0, 1024, &got).ok());
  CHECK(ReadAt(&fx.fs, "/db/f", 1024, 1, &got).IsIOError());
  CHECK(ReadAt(&fx.fs, "/db/f", 1000, 100, &got).IsIOError());
  CHECK(ReadAt(&fx.fs, "/db/f", 1536, 512, &got).ok());
  // Not healed by a power loss, nor by rewriting and syncing the sector.
  fx.disk.PowerLoss(1);
  CHECK(ReadAt(&fx.fs, "/db/f", 1100, 10, &got).IsIOError());
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.ReopenWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->PositionedAppend(std::string(512, 'n'), 1024).ok());
  REQUIRE(w->Sync().ok());
  CHECK(ReadAt(&fx.fs, "/db/f", 1100, 10, &got).IsIOError());
  // Sequential reads too.
  std::unique_ptr<shale::SequentialFile> seq;
  REQUIRE(fx.fs.NewSequentialFile("/db/f", FileOptions(), &seq).ok());
  std::string scratch(4096, '\0');
  Slice part;
  CHECK(seq->Read(1024, &part, scratch.data()).ok());
  CHECK(seq->Read(10, &part, scratch.data()).IsIOError());
  // A file created over the path truncates it: the bad block is freed, and
  // the new data lands on a good one.
  REQUIRE(fx.fs.NewWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->Append(std::string(4 * 512, 'r')).ok());
  REQUIRE(w->Sync().ok());
  CHECK(ReadAt(&fx.fs, "/db/f", 1100, 10, &got).ok());
  CHECK(got == std::string(10, 'r'));
}

TEST_CASE("sticky sector from the injector: that read and every later one fail", "[faults]") {
  FaultFixture fx(Only(FaultKind::kStickyUnreadableSector, 1));
  fx.WriteDurable("/db/f", std::string(512 * 8, 'x'));
  fx.Arm();
  std::string got;
  CHECK(ReadAt(&fx.fs, "/db/f", 512 * 3, 512, &got).IsIOError());
  CHECK(fx.count("sticky_unreadable_sector") == 1);
  fx.Disarm();
  for (int i = 0; i < 3; ++i) CHECK(ReadAt(&fx.fs, "/db/f", 512 * 3 + 7, 1, &got).IsIOError());
  CHECK(ReadAt(&fx.fs, "/db/f", 0, 512 * 3, &got).ok());
  CHECK(ReadAt(&fx.fs, "/db/f", 512 * 4, 512 * 4, &got).ok());
}

TEST_CASE("misdirected write: the data lands in another sector, the target keeps old bytes",
          "[faults]") {
  FaultFixture fx(Only(FaultKind::kMisdirectedWrite, 1));
  const std::string old(4 * 512, 'a');
  fx.WriteDurable("/db/f", old);
  fx.Arm();
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.ReopenWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->PositionedAppend(std::string(10, 'b'), 512 + 3).ok());
  CHECK(fx.count("misdirected_write") == 1);
  const std::string now = fx.Visible("/db/f");
  REQUIRE(now.size() == old.size());
  CHECK(now.substr(512 + 3, 10) == std::string(10, 'a'));  // not where it was meant
  int landed = 0;
  for (uint64_t sector = 0; sector < 4; ++sector) {
    if (now.substr(sector * 512 + 3, 10) == std::string(10, 'b')) ++landed;
  }
  CHECK(landed == 1);
  CHECK(BitsDiffering(now, old) == BitsDiffering(std::string(10, 'a'), std::string(10, 'b')));
  fx.Disarm();
  REQUIRE(w->Sync().ok());
  CHECK(fx.Durable("/db/f") == now);
}

TEST_CASE("misdirected write: an append to a one-sector file lands just past it", "[faults]") {
  FaultFixture fx(Only(FaultKind::kMisdirectedWrite, 1));
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.NewWritableFile("/db/f", FileOptions(), &w).ok());
  fx.Arm();
  REQUIRE(w->Append("hello").ok());
  CHECK(fx.Visible("/db/f") == std::string(512, '\0') + "hello");
}

TEST_CASE("fsync_drops_pages: a failed sync drops the pending pages for good", "[faults]") {
  FaultFixture fx(Only(FaultKind::kFsyncDropsPages, 1));
  fx.WriteDurable("/db/f", "abc");
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.ReopenWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->Append("xyz").ok());
  fx.Arm();
  CHECK(w->Sync().IsIOError());
  CHECK(fx.count("fsync_drops_pages") == 1);
  CHECK(fx.Visible("/db/f") == "abc");
  fx.Disarm();
  REQUIRE(w->Sync().ok());  // a retry succeeds but the tail is gone
  CHECK(fx.Durable("/db/f") == "abc");
}

TEST_CASE("eio_sync: a failed sync keeps the pending pages, a retry makes them durable",
          "[faults]") {
  FaultFixture fx(Only(FaultKind::kEioSync, 1));
  fx.WriteDurable("/db/f", "abc");
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.ReopenWritableFile("/db/f", FileOptions(), &w).ok());
  REQUIRE(w->Append("xyz").ok());
  fx.Arm();
  CHECK(w->Sync().IsIOError());
  CHECK(fx.Visible("/db/f") == "abcxyz");
  CHECK(fx.Durable("/db/f") == "abc");
  fx.Disarm();
  REQUIRE(w->Sync().ok());
  CHECK(fx.Durable("/db/f") == "abcxyz");
}

TEST_CASE("DurableFiles lists durable names only, sorted, with durable sizes", "[faults]") {
  FaultFixture fx(FaultConfig{});
  fx.WriteDurable("/db/b", "12345");
  fx.WriteDurable("/db/a", "1");
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.NewWritableFile("/db/volatile", FileOptions(), &w).ok());
  const auto files = fx.disk.DurableFiles();
  REQUIRE(files.size() == 2);
  CHECK(files[0].path == "/db/a");
  CHECK(files[0].size_bytes == 1);
  CHECK(files[1].path == "/db/b");
  CHECK(files[1].size_bytes == 5);
}

}  // namespace
}  // namespace shale_test
