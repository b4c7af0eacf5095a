// SimDisk's metadata journal: a power loss keeps an in-order prefix of the
// uncommitted creates, renames, unlinks and truncates; SyncDir and (if on)
// file syncs commit a prefix; truncates persist apart from data; and the
// Linux fsync failure that marks dirty pages clean.
#include <catch2/catch.hpp>

#include <set>

#include "sim_disk/test_disk_context.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Status;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;

std::vector<std::string> Children(SimDisk* disk, const std::string& dir) {
  std::vector<std::string> names;
  REQUIRE(disk->GetChildren(dir, &names).ok());
  return names;
}

// A disk with a durable, empty "/db".
struct Fixture {
  Fixture() : ctx(11), disk(&ctx, LatencyProfile::Zero()) {
    REQUIRE(disk.CreateDirIfMissing("/db").ok());
    REQUIRE(disk.SyncDir("/").ok());
  }
  // Creates path with data, synced; its name is durable only if sync_dir.
  void Write(const std::string& path, const std::string& data, bool sync_dir) {
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(disk.NewWritableFile(path, FileOptions(), &w).ok());
    REQUIRE(w->Append(data).ok());
    REQUIRE(w->Sync().ok());
    REQUIRE(w->Close().ok());
    if (sync_dir) REQUIRE(disk.SyncDir("/db").ok());
  }
  TestDiskContext ctx;
  SimDisk disk;
};

TEST_CASE("sim_disk journal: a power loss keeps exactly an in-order prefix", "[sim_disk]") {
  // Four records after a durable "old": create a, rename a -> b, unlink old,
  // create c. Each prefix length gives exactly its own directory.
  const std::vector<std::vector<std::string>> expected = {
      {"old"}, {"a", "old"}, {"b", "old"}, {"b"}, {"b", "c"}};
  for (size_t kept = 0; kept < expected.size(); ++kept) {
    INFO("kept " << kept);
    Fixture fx;
    fx.Write("/db/old", "O", true);
    fx.Write("/db/a", "A", false);
    REQUIRE(fx.disk.RenameFile("/db/a", "/db/b").ok());
    REQUIRE(fx.disk.DeleteFile("/db/old").ok());
    fx.Write("/db/c", "C", false);
    REQUIRE(fx.disk.uncommitted_metadata_ops() == 4);
    fx.disk.PowerLoss(kNeverSurvives, kept);
    CHECK(fx.disk.last_power_loss_metadata().kept == kept);
    CHECK(fx.disk.last_power_loss_metadata().uncommitted == 4);
    CHECK(fx.disk.uncommitted_metadata_ops() == 0);
    CHECK(Children(&fx.disk, "/db") == expected[kept]);
    // A name that survived holds its synced data.
    if (kept >= 2) CHECK(Visible(fx.disk, "/db/b") == "A");
  }
}

TEST_CASE("sim_disk journal: a drawn prefix covers none, all and cuts between", "[sim_disk]") {
  std::set<size_t> seen;
  for (uint64_t seed = 1; seed <= 64; ++seed) {
    TestDiskContext ctx(seed);
    SimDisk disk(&ctx, LatencyProfile::Zero());
    REQUIRE(disk.CreateDirIfMissing("/db").ok());
    for (int i = 0; i < 3; ++i) {
      std::unique_ptr<shale::WritableFile> w;
      REQUIRE(disk.NewWritableFile("/db/f" + std::to_string(i), FileOptions(), &w).ok());
    }
    disk.PowerLoss(kNeverSurvives);
    const auto meta = disk.last_power_loss_metadata();
    REQUIRE(meta.uncommitted == 4);  // mkdir /db and three creates
    REQUIRE(meta.kept <= meta.uncommitted);
    seen.insert(meta.kept);
    // Prefix: "/db" exists iff the mkdir (the first record) was kept, and
    // then exactly the first kept - 1 files.
    std::vector<std::string> names;
    const Status s = disk.GetChildren("/db", &names);
    CHECK(s.ok() == (meta.kept >= 1));
    if (s.ok()) CHECK(names.size() == meta.kept - 1);
  }
  CHECK(seen == std::set<size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("sim_disk journal: SyncDir commits up to the directory's last record", "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/early", "E", false);                    // record 1, in /db
  REQUIRE(fx.disk.CreateDirIfMissing("/db/sub").ok());  // record 2, in /db
  fx.Write("/db/sub/f", "F", false);                    // record 3, in /db/sub
  fx.Write("/db/late", "L", false);                     // record 4, in /db
  REQUIRE(fx.disk.SyncDir("/db/sub").ok());
  // Records 1..3 are durable (the log is forced up to sub's last change);
  // record 4 is not.
  CHECK(fx.disk.uncommitted_metadata_ops() == 1);
  fx.disk.PowerLoss(kNeverSurvives, 0);
  CHECK(Children(&fx.disk, "/db") == std::vector<std::string>{"early", "sub"});
  CHECK(Visible(fx.disk, "/db/sub/f") == "F");
  // A directory with nothing journaled commits nothing.
  fx.Write("/db/x", "X", false);
  REQUIRE(fx.disk.SyncDir("/db/sub").ok());
  CHECK(fx.disk.uncommitted_metadata_ops() == 1);
}

TEST_CASE("sim_disk journal: a file sync commits names only where the file system does",
          "[sim_disk]") {
  for (const bool commits : {false, true}) {
    INFO("fsync_commits_metadata " << commits);
    Fixture fx;
    fx.disk.set_fsync_commits_metadata(commits);
    fx.Write("/db/a", "A", false);  // create, then Sync
    fx.Write("/db/b", "B", false);
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fx.disk.NewWritableFile("/db/c", FileOptions(), &w).ok());  // never synced
    // With the rule on, b's sync committed everything up to b's create.
    CHECK(fx.disk.uncommitted_metadata_ops() == (commits ? 1u : 3u));
    fx.disk.PowerLoss(kNeverSurvives, 0);
    CHECK(Children(&fx.disk, "/db") ==
          (commits ? std::vector<std::string>{"a", "b"} : std::vector<std::string>{}));
  }
}

TEST_CASE("sim_disk journal: a truncate persists apart from the data", "[sim_disk]") {
  for (const size_t kept : {size_t{0}, size_t{1}}) {
    INFO("kept " << kept);
    Fixture fx;
    fx.Write("/db/a", "hello world", true);
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
    REQUIRE(w->Truncate(5).ok());
    REQUIRE(w->Append("!").ok());  // never synced
    REQUIRE(fx.disk.uncommitted_metadata_ops() == 1);
    fx.disk.PowerLoss(kNeverSurvives, kept);
    CHECK(Visible(fx.disk, "/db/a") == (kept == 1 ? "hello" : "hello world"));
  }
  // NewWritableFile over an existing file truncates it: with the truncate
  // durable and the new data not, the file is empty (the ext4 zero-length
  // file after a crash).
  Fixture fx;
  fx.Write("/db/a", "old contents", true);
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.NewWritableFile("/db/a", FileOptions(), &w).ok());
  REQUIRE(w->Append("new").ok());
  fx.disk.PowerLoss(kNeverSurvives, 1);
  CHECK(Visible(fx.disk, "/db/a").empty());
}

TEST_CASE("sim_disk journal: a file sync makes its truncates moot", "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "0123456789", true);
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
  REQUIRE(w->Truncate(2).ok());
  REQUIRE(w->Append("xyz").ok());
  REQUIRE(w->Sync().ok());
  CHECK(fx.disk.uncommitted_metadata_ops() == 0);
  fx.disk.PowerLoss(kNeverSurvives, 0);
  CHECK(Visible(fx.disk, "/db/a") == "01xyz");
}

TEST_CASE("sim_disk journal: dirty pages past a truncated end are never written back",
          "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "", true);
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
  REQUIRE(w->Append(std::string(3 * SimDisk::kSectorBytes, 'x')).ok());
  REQUIRE(w->Truncate(0).ok());
  // Every pending sector would survive; none is left to.
  fx.disk.PowerLoss(/*survive_one_in=*/1, 0);
  CHECK(Visible(fx.disk, "/db/a").empty());
  CHECK(fx.disk.last_power_loss().empty());
}

TEST_CASE("sim_disk journal: the journal commits by itself when full", "[sim_disk]") {
  Fixture fx;
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.NewWritableFile("/db/a", FileOptions(), &w).ok());
  for (int i = 0; i < 5000; ++i) {
    REQUIRE(
        fx.disk.RenameFile(i % 2 == 0 ? "/db/a" : "/db/b", i % 2 == 0 ? "/db/b" : "/db/a").ok());
  }
  CHECK(fx.disk.uncommitted_metadata_ops() < 4096);
  CHECK(fx.disk.uncommitted_metadata_ops() == 5001 - 4096);
}

TEST_CASE("sim_disk: a failed fsync that marks pages clean loses them at power loss only",
          "[sim_disk]") {
  Fixture fx;
  fx.Write("/db/a", "abc", true);
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.disk.ReopenWritableFile("/db/a", FileOptions(), &w).ok());
  const std::string far(SimDisk::kSectorBytes, 'f');
  REQUIRE(w->Append("def").ok());
  CHECK(FailSync(w.get(), shale::sim::FailedSync::kMarksClean).IsIOError());
  // Still readable, and the retry "succeeds".
  CHECK(Visible(fx.disk, "/db/a") == "abcdef");
  REQUIRE(w->Sync().ok());
  // A later write in another sector is written back; the lost one is not.
  REQUIRE(w->PositionedAppend(far, SimDisk::kSectorBytes).ok());
  REQUIRE(w->Sync().ok());
  fx.disk.ProcessCrash();
  CHECK(Visible(fx.disk, "/db/a").substr(0, 6) == "abcdef");  // the page cache survives
  fx.disk.PowerLoss(kNeverSurvives, 0);
  const std::string after = Visible(fx.disk, "/db/a");
  REQUIRE(after.size() == 2 * SimDisk::kSectorBytes);
  CHECK(after.substr(0, 6) == std::string("abc\0\0\0", 6));
  CHECK(after.substr(SimDisk::kSectorBytes) == far);
}

}  // namespace
}  // namespace shale_test
