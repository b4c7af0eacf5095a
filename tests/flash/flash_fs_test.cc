// The flash backend (shale/flash_file_system.h) on the simulated device:
// files round-trip through chunk chains, a mount rebuilds them from the
// device alone, synced data survives power loss, flushed data survives a
// process crash, deletes and truncates are durable as documented, and the
// backend writes around program failures and the open-chunk limit.
#include <catch2/catch.hpp>

#include "flash/flash_format.h"
#include "flash_fixture.h"
#include "shale/options.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::WritableFile;

// REQUIRE throws, which must not cross a simulated task's stack: inside
// a Run, a failed check ends the task instead.
#define OK_OR_RETURN(cond)   \
  do {                       \
    const bool ok_ = (cond); \
    CHECK(ok_);              \
    if (!ok_) return;        \
  } while (0)

bool MountOk(FlashFixture* f) {
  const Status s = f->Mount();
  INFO("mount: " << s.ToString());
  CHECK(s.ok());
  return s.ok();
}

constexpr const char* kLog = "/db/000007.log";
constexpr const char* kTable = "/db/000008.sst";

TEST_CASE("flash fs: a file spanning chunks reads back before and after a remount") {
  FlashFixture f;
  const std::string data = Pattern(200'000, 1);  // > 3 chunks of 15 data sectors
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             std::unique_ptr<WritableFile> w;
             OK_OR_RETURN(f.fs()->NewWritableFile(kTable, FileOptions(), &w).ok());
             OK_OR_RETURN(w->Append(Slice(data.data(), 70'000)).ok());
             // Readable while written: the tail comes from the host's copy.
             CHECK(ReadFlashFile(f.fs(), kTable) == data.substr(0, 70'000));
             OK_OR_RETURN(w->Append(Slice(data.data() + 70'000, data.size() - 70'000)).ok());
             OK_OR_RETURN(w->Sync().ok());
             OK_OR_RETURN(w->Close().ok());
             CHECK(ReadFlashFile(f.fs(), kTable) == data);
             f.fs()->Shutdown();
             f.ProcessCrash();
             OK_OR_RETURN(MountOk(&f));
             CHECK(ReadFlashFile(f.fs(), kTable) == data);
             uint64_t size = 0;
             OK_OR_RETURN(f.fs()->GetFileSize(kTable, &size).ok());
             CHECK(size == data.size());
             CHECK(f.fs()->stats().files_recovered == 1);
           }).ok());
}

TEST_CASE("flash fs: small files stay on the POSIX side and names merge") {
  FlashFixture f;
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             OK_OR_RETURN(WriteFlashFile(f.fs(), "/db/CURRENT", "MANIFEST-000001\n", true).ok());
             OK_OR_RETURN(WriteFlashFile(f.fs(), kLog, "wal", true).ok());
             std::vector<std::string> names;
             OK_OR_RETURN(f.fs()->GetChildren("/db", &names).ok());
             CHECK(names == std::vector<std::string>{"000007.log", "CURRENT"});
             CHECK(f.fs()->RenameFile(kLog, "/db/000009.log").IsNotSupported());
             CHECK(f.fs()->stats().chunks_allocated == 1);  // CURRENT took none
           }).ok());
}

TEST_CASE(
    "flash fs: synced data survives a power loss, and the file ends at its last good sector") {
  for (uint64_t seed = 1; seed <= 12; seed++) {
    FlashFixture f(seed);
    const std::string synced = Pattern(30'000, 2);
    const std::string unsynced = Pattern(9'000, 3);
    REQUIRE(f.Run([&] {
               OK_OR_RETURN(MountOk(&f));
               std::unique_ptr<WritableFile> w;
               OK_OR_RETURN(f.fs()->NewWritableFile(kLog, FileOptions(), &w).ok());
               OK_OR_RETURN(w->Append(synced).ok());
               OK_OR_RETURN(w->Sync().ok());
               OK_OR_RETURN(w->Append(unsynced).ok());
               OK_OR_RETURN(w->Flush().ok());
               f.PowerLoss();
               OK_OR_RETURN(MountOk(&f));
               const std::string got = ReadFlashFile(f.fs(), kLog);
               INFO("seed " << seed << ", recovered " << got.size() << " bytes");
               OK_OR_RETURN(got.size() >= synced.size());
               OK_OR_RETURN(got.size() <= synced.size() + unsynced.size());
               CHECK(got == (synced + unsynced).substr(0, got.size()));
             }).ok());
  }
}

TEST_CASE("flash fs: flushed data survives a process crash (the mount pads the device cache)") {
  FlashFixture f;
  const std::string data = Pattern(5'000, 4);
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             std::unique_ptr<WritableFile> w;
             OK_OR_RETURN(f.fs()->NewWritableFile(kLog, FileOptions(), &w).ok());
             OK_OR_RETURN(w->Append(data).ok());
             OK_OR_RETURN(w->Flush().ok());
             (void)w.release();  // dies with the process
             f.ProcessCrash();
             OK_OR_RETURN(MountOk(&f));
             CHECK(ReadFlashFile(f.fs(), kLog) == data);
           }).ok());
  CHECK(f.device()->stats().rule_violations == 0);
}

TEST_CASE("flash fs: a delete is durable after SyncDir, and may come back without it") {
  FlashFixture f;
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             OK_OR_RETURN(WriteFlashFile(f.fs(), kLog, Pattern(20'000, 5), true).ok());
             OK_OR_RETURN(WriteFlashFile(f.fs(), kTable, Pattern(20'000, 6), true).ok());
             OK_OR_RETURN(f.fs()->DeleteFile(kLog).ok());
             OK_OR_RETURN(f.fs()->SyncDir("/db").ok());
             CHECK(f.fs()->FileExists(kLog).IsNotFound());
             f.PowerLoss();
             OK_OR_RETURN(MountOk(&f));
             CHECK(f.fs()->FileExists(kLog).IsNotFound());
             CHECK(ReadFlashFile(f.fs(), kTable) == Pattern(20'000, 6));
             CHECK(f.fs()->stats().resets == 0);  // nothing was left to erase
           }).ok());
}

TEST_CASE("flash fs: a reopened file is cut by a synced truncate, across a remount") {
  FlashFixture f;
  const std::string data = Pattern(40'000, 7);
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             OK_OR_RETURN(WriteFlashFile(f.fs(), kLog, data, true).ok());
             std::unique_ptr<WritableFile> w;
             OK_OR_RETURN(f.fs()->ReopenWritableFile(kLog, FileOptions(), &w).ok());
             CHECK(w->GetFileSize() == data.size());
             OK_OR_RETURN(w->Truncate(12'345).ok());
             OK_OR_RETURN(w->Append("tail").ok());
             OK_OR_RETURN(w->Sync().ok());
             OK_OR_RETURN(w->Close().ok());
             CHECK(ReadFlashFile(f.fs(), kLog) == data.substr(0, 12'345) + "tail");
             f.PowerLoss();
             OK_OR_RETURN(MountOk(&f));
             CHECK(ReadFlashFile(f.fs(), kLog) == data.substr(0, 12'345) + "tail");
           }).ok());
}

TEST_CASE("flash fs: program failures are written around and lose nothing synced") {
  FlashFixture f(3);
  int failures = 0;
  int calls = 0;
  f.device()->set_fault_hooks({[&](uint32_t, uint32_t, uint32_t) {
                                 // Every 3rd program fails, a handful in all.
                                 if (++calls % 3 != 0 || failures == 5) return false;
                                 failures++;
                                 return true;
                               },
                               nullptr, nullptr});
  const std::string data = Pattern(150'000, 8);
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             OK_OR_RETURN(WriteFlashFile(f.fs(), kTable, data, true).ok());
             CHECK(ReadFlashFile(f.fs(), kTable) == data);
             f.PowerLoss();
             OK_OR_RETURN(MountOk(&f));
             CHECK(ReadFlashFile(f.fs(), kTable) == data);
           }).ok());
  CHECK(failures == 5);
  CHECK(f.device()->stats().rule_violations == 0);
}

TEST_CASE("flash fs: the open-chunk limit is kept by sealing finished files' chunks") {
  FlashFixture f;
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             for (int i = 0; i < 12; i++) {
               const std::string path = "/db/" + std::to_string(100000 + i) + ".sst";
               OK_OR_RETURN(WriteFlashFile(f.fs(), path, Pattern(5'000, i), true).ok());
             }
             CHECK(f.fs()->stats().chunks_sealed >= 6);
             for (int i = 0; i < 12; i++) {
               const std::string path = "/db/" + std::to_string(100000 + i) + ".sst";
               CHECK(ReadFlashFile(f.fs(), path) == Pattern(5'000, i));
             }
           }).ok());
  CHECK(f.device()->stats().rule_violations == 0);
}

TEST_CASE("flash fs: deleted files' chunks are erased and reused, least worn first") {
  FlashFixture f;
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             for (int round = 0; round < 40; round++) {
               OK_OR_RETURN(WriteFlashFile(f.fs(), kLog, Pattern(30'000, round), true).ok());
               OK_OR_RETURN(f.fs()->DeleteFile(kLog).ok());
             }
             OK_OR_RETURN(f.fs()->SyncDir("/db").ok());
             CHECK(f.fs()->stats().resets >= 40);
           }).ok());
  uint32_t max_wear = 0;
  for (const auto& d : f.device()->Peek()) max_wear = std::max(max_wear, d.wear);
  CHECK(max_wear <= 3);  // 64 chunks, ~120 resets spread over them
  CHECK(f.device()->stats().rule_violations == 0);
}

}  // namespace
}  // namespace shale_test

namespace shale_test {
namespace {

// Tasks that write, read back, delete and recreate files at once, with
// fewer open chunks than files in flight: sealing, erasing and allocation
// interleave at every device call.
TEST_CASE("flash fs: concurrent writers, readers and deletes keep the device rules") {
  for (uint64_t seed = 1; seed <= 8; seed++) {
    shale::FlashGeometry g = SmallGeometry();
    g.max_open_chunks = 4;
    FlashFixture f(seed, g);
    int mismatches = 0;
    REQUIRE(f.Run([&] {
               OK_OR_RETURN(MountOk(&f));
               std::vector<std::unique_ptr<shale::Thread>> tasks;
               for (int t = 0; t < 3; t++) {
                 tasks.push_back(
                     f.sim()->runtime()->StartThread("writer" + std::to_string(t), [&, t] {
                       shale::Random rng(seed * 10 + t);
                       for (int round = 0; round < 12; round++) {
                         const std::string path =
                             "/db/" + std::to_string(100 + t * 100 + round % 3) + ".sst";
                         const std::string data = Pattern(1 + rng.Uniform(40'000), round * 7 + t);
                         if (!WriteFlashFile(f.fs(), path, data, rng.OneIn(2)).ok()) {
                           mismatches++;
                           continue;
                         }
                         if (ReadFlashFile(f.fs(), path) != data) mismatches++;
                         if (rng.OneIn(2)) (void)f.fs()->DeleteFile(path);
                       }
                     }));
               }
               for (auto& task : tasks) task->Join();
               (void)f.fs()->SyncDir("/db");
             }).ok());
    INFO("seed " << seed);
    CHECK(mismatches == 0);
    CHECK(f.device()->stats().rule_violations == 0);
  }
}

}  // namespace
}  // namespace shale_test

namespace shale_test {
namespace {

// What the engine does with a replayed log: reopen it and Sync. The Sync
// must cover what the earlier handle wrote and left in the device cache.
TEST_CASE("flash fs: a Sync through a reopened handle makes earlier writes durable") {
  for (uint64_t seed = 1; seed <= 6; seed++) {
    FlashFixture f(seed);
    const std::string data = Pattern(9'000, 11);
    REQUIRE(f.Run([&] {
               OK_OR_RETURN(MountOk(&f));
               OK_OR_RETURN(WriteFlashFile(f.fs(), kLog, data, /*sync=*/false).ok());
               std::unique_ptr<WritableFile> w;
               OK_OR_RETURN(f.fs()->ReopenWritableFile(kLog, FileOptions(), &w).ok());
               OK_OR_RETURN(w->Sync().ok());
               OK_OR_RETURN(w->Close().ok());
               f.PowerLoss();
               OK_OR_RETURN(MountOk(&f));
               CHECK(ReadFlashFile(f.fs(), kLog) == data);
             }).ok());
    CHECK(f.device()->stats().rule_violations == 0);
  }
}

TEST_CASE("flash fs: paths too long for a START sector and chunks too small are refused") {
  FlashFixture f;
  REQUIRE(f.Run([&] {
             OK_OR_RETURN(MountOk(&f));
             std::unique_ptr<WritableFile> w;
             const std::string path = "/db/" + std::string(4096, 'd') + "/000001.log";
             CHECK(f.fs()->NewWritableFile(path, FileOptions(), &w).IsInvalidArgument());
           }).ok());
  shale::FlashGeometry tiny = SmallGeometry();
  tiny.sectors_per_chunk = 2;
  tiny.ws_min = 2;
  tiny.ws_opt = 2;
  tiny.mw_cunits = 0;
  FlashFixture g(1, tiny);
  REQUIRE(g.Run([&] { CHECK(g.Mount().IsInvalidArgument()); }).ok());
}

}  // namespace
}  // namespace shale_test

namespace shale_test {
namespace {

// The first full CLOSED chunk of the device (in chunk order) and the file
// offset its sector `sector` holds; false if there is none.
bool FindClosedChunk(const shale::sim::SimFlashDevice& device, uint32_t sector, uint32_t* chunk,
                     uint64_t* file_offset) {
  const shale::FlashGeometry& g = device.geometry();
  const std::vector<shale::ChunkDescriptor> chunks = device.Peek();
  for (uint32_t c = 0; c < chunks.size(); c++) {
    if (chunks[c].state != shale::ChunkState::kClosed ||
        chunks[c].write_pointer != g.sectors_per_chunk) {
      continue;
    }
    std::string data, oob;
    shale::flash::SectorTag tag;
    if (!device.PeekSector(c, sector, &data, &oob) ||
        !shale::flash::DecodeTag(data.data(), g.sector_bytes, oob.data(), g.oob_bytes, &tag) ||
        tag.kind != shale::flash::SectorKind::kData) {
      continue;
    }
    *chunk = c;
    *file_offset = tag.file_offset;
    return true;
  }
  return false;
}

// Writes data to kTable (synced), crashes, and damages `sector` of the
// first full CLOSED chunk (bit 3 of byte). Sets *chunk and the file offset
// the sector held. REQUIRES: inside f's Run.
bool WriteCrashAndDamage(FlashFixture* f, const std::string& data, uint32_t sector,
                         shale::sim::FlashSectorDamage damage, uint32_t byte, uint32_t* chunk,
                         uint64_t* at) {
  if (!MountOk(f) || !WriteFlashFile(f->fs(), kTable, data, /*sync=*/true).ok()) return false;
  f->fs()->Shutdown();
  f->ProcessCrash();
  return FindClosedChunk(*f->device(), sector, chunk, at) &&
         f->device()->DamageSector(*chunk, sector, damage, byte, 3).ok();
}

// Damage at rest in the middle of a file: the mount keeps the file's size
// and every byte around the damage, and reading the damaged range fails,
// naming the file, chunk and sector.
void CheckDamageMidFile(shale::sim::FlashSectorDamage damage, uint32_t byte, uint32_t sector) {
  FlashFixture f;
  const std::string data = Pattern(200'000, 7);
  REQUIRE(f.Run([&] {
             uint32_t chunk = 0;
             uint64_t at = 0;
             OK_OR_RETURN(WriteCrashAndDamage(&f, data, sector, damage, byte, &chunk, &at));
             OK_OR_RETURN(MountOk(&f));
             uint64_t size = 0;
             OK_OR_RETURN(f.fs()->GetFileSize(kTable, &size).ok());
             CHECK(size == data.size());
             CHECK(f.fs()->stats().damaged_ranges_found == 1);
             const std::string whole = ReadFlashFile(f.fs(), kTable);
             INFO(whole.substr(0, 300));
             CHECK(whole.find(kTable) != std::string::npos);
             CHECK(whole.find("chunk " + std::to_string(chunk) + " sector " +
                              std::to_string(sector)) != std::string::npos);
             std::unique_ptr<shale::RandomAccessFile> r;
             OK_OR_RETURN(f.fs()->NewRandomAccessFile(kTable, FileOptions(), &r).ok());
             std::string scratch(4096, '\0');
             Slice got;
             CHECK_FALSE(r->Read(at, 10, &got, scratch.data()).ok());
             CHECK(r->Read(at - 100, 100, &got, scratch.data()).ok());
             CHECK(got.ToString() == data.substr(at - 100, 100));
             const uint64_t after = at + 4096;
             CHECK(r->Read(after, 100, &got, scratch.data()).ok());
             CHECK(got.ToString() == data.substr(after, 100));
           }).ok());
}

TEST_CASE("flash fs: damage at rest mid-file is kept in the file and reported on read") {
  using shale::sim::FlashSectorDamage;
  SECTION("an unreadable sector") { CheckDamageMidFile(FlashSectorDamage::kUnreadable, 0, 5); }
  SECTION("a flipped data bit") { CheckDamageMidFile(FlashSectorDamage::kDataBitFlip, 100, 5); }
  SECTION("a flipped tag bit") { CheckDamageMidFile(FlashSectorDamage::kOobBitFlip, 17, 5); }
  // The last DATA sector before CLOSE: only the CLOSE says data was there.
  SECTION("the chunk's last data sector") {
    CheckDamageMidFile(FlashSectorDamage::kDataBitFlip, 9, SmallGeometry().sectors_per_chunk - 2);
  }
}

TEST_CASE("flash fs: planted, a mount that skips the tag CRC ends a file at a flipped offset") {
  FlashFixture f;
  const std::string data = Pattern(200'000, 7);
  REQUIRE(f.Run([&] {
             uint32_t chunk = 0;
             uint64_t at = 0;
             // Byte 17: bit 3 of the file offset's second byte (+2048).
             OK_OR_RETURN(WriteCrashAndDamage(
                 &f, data, 5, shale::sim::FlashSectorDamage::kOobBitFlip, 17, &chunk, &at));
             shale::FlashFsOptions options;
             options.planted_bugs = shale::kBugFlashMountAcceptsBadCrc;
             OK_OR_RETURN(f.Mount(options).ok());
             uint64_t size = 0;
             OK_OR_RETURN(f.fs()->GetFileSize(kTable, &size).ok());
             CHECK(size == at);  // silently cut where the flipped offset left a gap
           }).ok());
}

}  // namespace
}  // namespace shale_test
