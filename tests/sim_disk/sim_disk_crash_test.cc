// SimDisk crashes: what a process crash and a power loss keep, drop, tear,
// and what they do to handles and locks.
#include <catch2/catch.hpp>

#include "sim_disk/test_disk_context.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;

// A disk with a durable, empty "/db".
struct Fixture {
  explicit Fixture(uint64_t seed = 7) : ctx(seed), disk(&ctx, LatencyProfile::Zero()) {
    REQUIRE(disk.CreateDirIfMissing("/db").ok());
    REQUIRE(disk.SyncDir("/").ok());
  }
  // Creates path holding data; syncs the file if sync_file, the dir if sync_dir.
  void Write(const std::string& path, const std::string& data, bool sync_file, bool sync_dir) {
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(disk.NewWritableFile(path, FileOptions(), &w).ok());
    REQUIRE(w->Append(data).ok());
    if (sync_file) REQUIRE(w->Sync().ok());
    if (sync_dir) REQUIRE(disk.SyncDir("/db").ok());
    REQUIRE(w->Close().ok());
  }
  TestDiskContext ctx;
  SimDisk disk;
};

TEST_CASE("sim_disk crash: a synced file under a synced name survives power loss", "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", std::string(1500, 'a'), true, true);
  fx.disk.PowerLoss(kNeverSurvives);
  CHECK(Visible(fx.disk, "/db/a") == std::string(1500, 'a'));
}

TEST_CASE("sim_disk crash: unsynced appends die with power, not with the process", "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "abc", true, true);
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
  REQUIRE(w->Append(std::string(2000, 'x')).ok());
  REQUIRE(w->Truncate(1000).ok());
  fx.disk.ProcessCrash();
  CHECK(Visible(fx.disk, "/db/a") == "abc" + std::string(997, 'x'));
  fx.disk.PowerLoss(kNeverSurvives, /*journal_kept=*/0);
  CHECK(Visible(fx.disk, "/db/a") == "abc");
  CHECK(fx.disk.last_power_loss().empty());
}

TEST_CASE("sim_disk crash: a synced file in an unsynced directory disappears", "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "data", /*sync_file=*/true, /*sync_dir=*/false);
  std::string durable;
  CHECK(fx.disk.ReadDurable("/db/a", &durable).IsNotFound());
  fx.disk.PowerLoss(1, /*journal_kept=*/0);
  CHECK(fx.disk.FileExists("/db/a").IsNotFound());
  // A directory whose own name was never made durable vanishes with its files.
  REQUIRE(fx.disk.CreateDirIfMissing("/db/sub").ok());
  fx.Write("/db/sub/f", "x", true, false);
  fx.disk.PowerLoss(1, /*journal_kept=*/0);
  CHECK(fx.disk.FileExists("/db/sub").IsNotFound());
}

TEST_CASE("sim_disk crash: a rename the journal did not flush is undone by power loss",
          "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "A", true, true);
  fx.Write("/db/b", "B", true, true);
  fx.Write("/db/c", "C", true, true);
  REQUIRE(fx.disk.RenameFile("/db/a", "/db/b").ok());  // over an existing target
  REQUIRE(fx.disk.RenameFile("/db/c", "/db/d").ok());  // to a new name
  CHECK(Visible(fx.disk, "/db/b") == "A");
  fx.disk.PowerLoss(kNeverSurvives, /*journal_kept=*/0);
  CHECK(Visible(fx.disk, "/db/a") == "A");
  CHECK(Visible(fx.disk, "/db/b") == "B");
  CHECK(Visible(fx.disk, "/db/c") == "C");
  CHECK(fx.disk.FileExists("/db/d").IsNotFound());
}

TEST_CASE("sim_disk crash: rename plus SyncDir survives power loss", "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "A", true, true);
  fx.Write("/db/b", "B", true, true);
  REQUIRE(fx.disk.RenameFile("/db/a", "/db/b").ok());
  REQUIRE(fx.disk.SyncDir("/db").ok());
  fx.disk.PowerLoss(kNeverSurvives);
  CHECK(fx.disk.FileExists("/db/a").IsNotFound());
  CHECK(Visible(fx.disk, "/db/b") == "A");
  std::vector<std::string> names;
  REQUIRE(fx.disk.GetChildren("/db", &names).ok());
  CHECK(names == std::vector<std::string>{"b"});
}

TEST_CASE("sim_disk crash: a failed sync drops dirty pages, a retry does not restore them",
          "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "abc", true, true);
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
  REQUIRE(w->Append("def").ok());
  CHECK(FailSync(w.get()).IsIOError());
  CHECK(Visible(fx.disk, "/db/a") == "abc");
  CHECK(w->GetFileSize() == 3);
  REQUIRE(w->Sync().ok());
  fx.disk.PowerLoss(1);
  CHECK(Visible(fx.disk, "/db/a") == "abc");
}

TEST_CASE("sim_disk crash: handles from a crashed process are dead", "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "abc", true, true);
  std::unique_ptr<shale::WritableFile> w;
  std::unique_ptr<shale::SequentialFile> seq;
  std::unique_ptr<shale::RandomAccessFile> ra;
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
  REQUIRE(fx.disk.NewSequentialFile("/db/a", FileOptions(), &seq).ok());
  REQUIRE(fx.disk.NewRandomAccessFile("/db/a", FileOptions(), &ra).ok());
  const bool power = GENERATE(false, true);
  if (power) {
    fx.disk.PowerLoss(2);
  } else {
    fx.disk.ProcessCrash();
  }
  char scratch[8];
  Slice got;
  for (const Status& s :
       {w->Append("x"), w->PositionedAppend("x", 0), w->Truncate(0), w->Flush(), w->Sync(),
        w->Fsync(), w->Allocate(0, 10), w->Close(), seq->Read(1, &got, scratch), seq->Skip(1),
        ra->Read(0, 1, &got, scratch)}) {
    CHECK(s.IsIOError());
    CHECK(s.message().find("crashed process") != std::string::npos);
  }
  CHECK(w->GetFileSize() == 0);
  CHECK(Visible(fx.disk, "/db/a") == "abc");
  w.reset();  // destroying dead handles touches nothing
  seq.reset();
  ra.reset();
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
  CHECK(w->Append("d").ok());
}

TEST_CASE("sim_disk crash: a crash releases every lock", "[sim_disk]") {
  Fixture fx;
  std::unique_ptr<shale::FileLock> lock, again;
  REQUIRE(fx.disk.LockFile("/db/LOCK", &lock).ok());
  CHECK(fx.disk.LockFile("/db/LOCK", &again).IsIOError());
  fx.disk.ProcessCrash();
  REQUIRE(fx.disk.LockFile("/db/LOCK", &again).ok());
  CHECK(fx.disk.UnlockFile(std::move(lock)).IsIOError());  // from the dead process
  CHECK(fx.disk.LockFile("/db/LOCK", &lock).IsIOError());  // still held by `again`
}

TEST_CASE("sim_disk crash: with survive_one_in = 1 whole sectors keep every byte", "[sim_disk]") {
  const std::string data = std::string(700, 'p') + std::string(800, 'q');  // 3 sectors
  int all_whole = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Fixture fx(seed);
    fx.Write("/db/a", "", true, true);
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
    REQUIRE(w->Append(data).ok());
    fx.disk.PowerLoss(1);
    const auto& report = fx.disk.last_power_loss();
    REQUIRE(report.size() == 3);
    bool whole = true;
    for (const auto& s : report) {
      CHECK(s.paths == std::vector<std::string>{"/db/a"});
      whole = whole && s.fate == SimDisk::SurvivingSector::Fate::kWhole;
    }
    const std::string got = Visible(fx.disk, "/db/a");
    if (whole) {
      ++all_whole;
      CHECK(got == data);
    } else {
      CHECK(got.size() <= 3 * SimDisk::kSectorBytes);  // at most sector-rounded
    }
  }
  CHECK(all_whole > 5);
  CHECK(all_whole < 40);
}

}  // namespace
}  // namespace shale_test

namespace shale_test {
namespace {

TEST_CASE("sim_disk crash: a durable size over lost data is reported as a hole", "[sim_disk]") {
  Fixture fx;
  // "/db/h": 2048 unsynced bytes cut back to 600 by a truncate that a
  // directory sync makes durable: after the power loss it holds 600 zeros.
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.NewWritableFile("/db/h", FileOptions(), &w).ok());
  REQUIRE(w->Append(std::string(2048, 'h')).ok());
  REQUIRE(w->Truncate(600).ok());
  REQUIRE(w->Close().ok());
  // "/db/c": synced, then an unsynced append: a power loss cuts it cleanly.
  REQUIRE(fx.disk.NewWritableFile("/db/c", FileOptions(), &w).ok());
  REQUIRE(w->Append(std::string(100, 'c')).ok());
  REQUIRE(w->Sync().ok());
  REQUIRE(w->Append(std::string(300, 'd')).ok());
  REQUIRE(fx.disk.SyncDir("/db").ok());
  fx.disk.PowerLoss(kNeverSurvives, 0);
  CHECK(Visible(fx.disk, "/db/h") == std::string(600, '\0'));
  CHECK(Visible(fx.disk, "/db/c") == std::string(100, 'c'));
  CHECK(fx.disk.last_power_loss_holes() == std::vector<std::string>{"/db/h"});
  // The next power loss reports only its own holes.
  fx.disk.PowerLoss(kNeverSurvives, 0);
  CHECK(fx.disk.last_power_loss_holes().empty());
}

TEST_CASE("sim_disk crash: a file is a hole exactly when its bytes differ from what was written",
          "[sim_disk]") {
  // Two writes of each of sectors 0 and 1 (the second a positioned
  // rewrite, as a direct-I/O log rewrites its last block), so a torn
  // rewrite can be filled in by the older write of its sector.
  int holes = 0;
  int clean_and_cut_short = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Fixture fx(seed);
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fx.disk.NewWritableFile("/db/log", FileOptions(), &w).ok());
    REQUIRE(w->Append(std::string(600, 'a')).ok());
    REQUIRE(w->PositionedAppend(std::string(700, 'b'), 0).ok());
    REQUIRE(w->Truncate(650).ok());
    REQUIRE(fx.disk.SyncDir("/db").ok());
    const std::string written = std::string(650, 'b');
    fx.disk.PowerLoss(/*survive_one_in=*/2, 0);
    const std::string after = Visible(fx.disk, "/db/log");
    const bool prefix = written.compare(0, after.size(), after) == 0 && after.size() <= 650;
    const bool holed = fx.disk.last_power_loss_holes() == std::vector<std::string>{"/db/log"};
    CHECK(holed == !prefix);
    holes += holed ? 1 : 0;
    clean_and_cut_short += prefix && after.size() < written.size() ? 1 : 0;
  }
  CHECK(holes > 20);
  CHECK(clean_and_cut_short > 20);
}

}  // namespace
}  // namespace shale_test
