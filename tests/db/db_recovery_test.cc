// Recovery on the real backend: a process crash (the files as they stand
// while the DB is open), WAL damage under each WALRecoveryMode, direct I/O,
// and table-reader churn under a small max_open_files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/file_damage.h"
#include "common/temp_dir.h"
#include "db/db_impl.h"
#include "db/txn_hooks.h"
#include "shale/db.h"

using namespace shale;
namespace fs = std::filesystem;
using shale_test::FlipByte;
using shale_test::NewestWal;

namespace {

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%05d", i);
  return buf;
}

// A process crash: every write that returned is in the page cache, so the
// files as they are now are what a restarted process finds.
void CrashCopy(const std::string& from, const std::string& to) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    fs::copy_file(entry.path(), to + "/" + entry.path().filename().string());
  }
}

// Writes keys [0, n) one batch each (no flush), then crash-copies the DB.
// mapped_wal: allow appending the WAL through mmap (the default) rather
// than write(2), whose file ends exactly at its last record; mode: the
// recovery mode the writer runs with.
std::string WriteThenCrash(const shale_test::TempDir& dir, int n, bool mapped_wal = true,
                           WALRecoveryMode mode = WALRecoveryMode::kPointInTimeRecovery) {
  Options o;
  o.create_if_missing = true;
  o.allow_mmap_writes = mapped_wal;
  o.wal_recovery_mode = mode;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("live"), &db).ok());
  for (int i = 0; i < n; i++) {
    REQUIRE(
        db->Put(WriteOptions(), Key(i), std::string(100, static_cast<char>('a' + i % 26))).ok());
  }
  CrashCopy(dir.Child("live"), dir.Child("crashed"));
  return dir.Child("crashed");
}

// Which of keys [0, n) the DB at path holds, as a bit string "111000...".
std::string Present(const std::string& path, const Options& o, int n, Status* open_status) {
  std::unique_ptr<DB> db;
  *open_status = DB::Open(o, path, &db);
  if (!open_status->ok()) return "";
  std::string bits;
  for (int i = 0; i < n; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    REQUIRE((s.ok() || s.IsNotFound()));
    if (s.ok()) REQUIRE(v == std::string(100, static_cast<char>('a' + i % 26)));
    bits += s.ok() ? '1' : '0';
  }
  return bits;
}

bool IsPrefix(const std::string& bits) { return bits.find("01") == std::string::npos; }

Options WithMode(WALRecoveryMode mode) {
  Options o;
  o.wal_recovery_mode = mode;
  return o;
}

}  // namespace

TEST_CASE("a process crash loses no acknowledged WAL write", "[db][recovery]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  const std::string crashed = WriteThenCrash(dir, 500);
  Status s;
  REQUIRE(Present(crashed, Options(), 500, &s) == std::string(500, '1'));
  REQUIRE(s.ok());
}

TEST_CASE("WAL damage in the middle, by recovery mode", "[db][recovery]") {
  constexpr int kKeys = 600;  // ~75 KiB of WAL: several 32 KiB blocks
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  // Damage placed by file size: a WAL that ends at its last record.
  const std::string crashed = WriteThenCrash(dir, kKeys, /*mapped_wal=*/false);
  const std::string wal = NewestWal(crashed);
  FlipByte(wal, fs::file_size(wal) / 3);
  const std::string copy = dir.Child("copy");
  fs::create_directories(copy);
  fs::copy(crashed, copy, fs::copy_options::recursive);
  Status s;

  SECTION("absolute consistency refuses to open") {
    Present(crashed, WithMode(WALRecoveryMode::kAbsoluteConsistency), kKeys, &s);
    REQUIRE(s.IsCorruption());
  }
  SECTION("tolerate-tail refuses damage that is not at the tail") {
    Present(crashed, WithMode(WALRecoveryMode::kTolerateCorruptedTailRecords), kKeys, &s);
    REQUIRE(s.IsCorruption());
  }
  SECTION("point in time recovers an exact prefix, stopping at the damage") {
    const std::string bits =
        Present(crashed, WithMode(WALRecoveryMode::kPointInTimeRecovery), kKeys, &s);
    REQUIRE(s.ok());
    REQUIRE(IsPrefix(bits));
    REQUIRE(bits.front() == '1');
    REQUIRE(bits.back() == '0');
  }
  SECTION("skip-any recovers records after the damage too") {
    const std::string bits =
        Present(crashed, WithMode(WALRecoveryMode::kSkipAnyCorruptedRecords), kKeys, &s);
    REQUIRE(s.ok());
    REQUIRE(bits.front() == '1');
    REQUIRE(bits.back() == '1');
    REQUIRE(bits.find('0') != std::string::npos);
  }
}

TEST_CASE("a torn WAL tail, by recovery mode", "[db][recovery]") {
  constexpr int kKeys = 300;
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  const std::string crashed = WriteThenCrash(dir, kKeys, /*mapped_wal=*/false);
  const std::string wal = NewestWal(crashed);
  fs::resize_file(wal, fs::file_size(wal) - 50);  // cut inside the last record
  Status s;
  SECTION("tolerate-tail drops just the torn record") {
    const std::string bits =
        Present(crashed, WithMode(WALRecoveryMode::kTolerateCorruptedTailRecords), kKeys, &s);
    REQUIRE(s.ok());
    REQUIRE(bits == std::string(kKeys - 1, '1') + "0");
  }
  SECTION("point in time drops just the torn record") {
    const std::string bits =
        Present(crashed, WithMode(WALRecoveryMode::kPointInTimeRecovery), kKeys, &s);
    REQUIRE(s.ok());
    REQUIRE(bits == std::string(kKeys - 1, '1') + "0");
  }
  SECTION("absolute consistency refuses") {
    Present(crashed, WithMode(WALRecoveryMode::kAbsoluteConsistency), kKeys, &s);
    REQUIRE(s.IsCorruption());
  }
}

TEST_CASE("a process crash with the WAL mapped leaves a zero tail that recovery stops at",
          "[db][recovery]") {
  constexpr int kKeys = 300;
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  const std::string crashed = WriteThenCrash(dir, kKeys);
  shale_test::TempDir other(shale_test::TempDir::InMemoryBase());
  const std::string written = WriteThenCrash(other, kKeys, /*mapped_wal=*/false);
  // Both logs hold the same records; the mapped one runs on in zeros.
  const uint64_t record_bytes = fs::file_size(NewestWal(written));
  const std::string wal = NewestWal(crashed);
  REQUIRE(fs::file_size(wal) > record_bytes);
  std::string tail(fs::file_size(wal) - record_bytes, 'x');
  {
    std::ifstream in(wal, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(record_bytes));
    in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  }
  REQUIRE(tail == std::string(tail.size(), '\0'));
  Status s;
  // Each section opens the crashed files afresh (an open repairs them).
  SECTION("point in time keeps every write") {
    REQUIRE(Present(crashed, WithMode(WALRecoveryMode::kPointInTimeRecovery), kKeys, &s) ==
            std::string(kKeys, '1'));
    REQUIRE(s.ok());
  }
  SECTION("tolerate-tail keeps every write") {
    REQUIRE(Present(crashed, WithMode(WALRecoveryMode::kTolerateCorruptedTailRecords), kKeys, &s) ==
            std::string(kKeys, '1'));
    REQUIRE(s.ok());
  }
  SECTION("absolute consistency refuses it as a torn tail") {
    Present(crashed, WithMode(WALRecoveryMode::kAbsoluteConsistency), kKeys, &s);
    REQUIRE(s.IsCorruption());
    REQUIRE(s.ToString().find("truncated record at end of log") != std::string::npos);
  }
}

TEST_CASE("a kill midway through a mapped append tears the last record", "[db][recovery]") {
  constexpr int kKeys = 300;
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  const std::string crashed = WriteThenCrash(dir, kKeys);
  shale_test::TempDir other(shale_test::TempDir::InMemoryBase());
  const uint64_t record_bytes =
      fs::file_size(NewestWal(WriteThenCrash(other, kKeys, /*mapped_wal=*/false)));
  // The memcpy stopped 40 bytes short: the last record's header and most
  // of its payload are there, its end is still the reserved zeros.
  const std::string wal = NewestWal(crashed);
  REQUIRE(fs::file_size(wal) > record_bytes);
  {
    std::fstream io(wal, std::ios::binary | std::ios::in | std::ios::out);
    io.seekp(static_cast<std::streamoff>(record_bytes - 40));
    io.write(std::string(40, '\0').data(), 40);
  }
  Status s;
  SECTION("point in time keeps every write before it") {
    REQUIRE(Present(crashed, WithMode(WALRecoveryMode::kPointInTimeRecovery), kKeys, &s) ==
            std::string(kKeys - 1, '1') + "0");
    REQUIRE(s.ok());
  }
  SECTION("skip-any keeps every write before it") {
    REQUIRE(Present(crashed, WithMode(WALRecoveryMode::kSkipAnyCorruptedRecords), kKeys, &s) ==
            std::string(kKeys - 1, '1') + "0");
    REQUIRE(s.ok());
  }
  SECTION("tolerate-tail refuses it, which is why that mode never maps its WAL") {
    Present(crashed, WithMode(WALRecoveryMode::kTolerateCorruptedTailRecords), kKeys, &s);
    REQUIRE(s.IsCorruption());
    REQUIRE(s.ToString().find("corrupt record") != std::string::npos);
  }
}

TEST_CASE("tolerate-tail and absolute consistency write the WAL with write(2)", "[db][recovery]") {
  constexpr int kKeys = 300;
  for (WALRecoveryMode mode :
       {WALRecoveryMode::kTolerateCorruptedTailRecords, WALRecoveryMode::kAbsoluteConsistency}) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    shale_test::TempDir other(shale_test::TempDir::InMemoryBase());
    // With the DB still open, a mapped log would run on in reserved zeros.
    const std::string asked = WriteThenCrash(dir, kKeys, /*mapped_wal=*/true, mode);
    const std::string plain = WriteThenCrash(other, kKeys, /*mapped_wal=*/false, mode);
    REQUIRE(fs::file_size(NewestWal(asked)) == fs::file_size(NewestWal(plain)));
    Status s;
    REQUIRE(Present(asked, WithMode(mode), kKeys, &s) == std::string(kKeys, '1'));
    REQUIRE(s.ok());
  }
}

TEST_CASE("a clean close cuts a mapped WAL back to its records", "[db][recovery]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  o.create_if_missing = true;
  o.allow_mmap_writes = true;
  o.wal_recovery_mode = WALRecoveryMode::kAbsoluteConsistency;
  for (int round = 0; round < 3; round++) {
    std::unique_ptr<DB> db;
    REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
    for (int i = 0; i < 200; i++) REQUIRE(db->Put(WriteOptions(), Key(round * 200 + i), "v").ok());
    REQUIRE(db->SyncWAL().ok());
  }
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  std::string v;
  for (int i = 0; i < 600; i++) REQUIRE(db->Get(ReadOptions(), Key(i), &v).ok());
}

TEST_CASE("recovery twice in a row is stable", "[db][recovery]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  const std::string crashed = WriteThenCrash(dir, 200);
  Status s;
  REQUIRE(Present(crashed, Options(), 200, &s) == std::string(200, '1'));
  REQUIRE(Present(crashed, Options(), 200, &s) == std::string(200, '1'));
  REQUIRE(s.ok());
}

TEST_CASE("direct I/O for SST reads, flushes and compactions", "[db][directio]") {
  shale_test::TempDir dir;  // /tmp: tmpfs has no O_DIRECT
  Options o;
  o.create_if_missing = true;
  o.use_direct_reads = true;
  o.use_direct_io_for_flush_and_compaction = true;
  o.write_buffer_size = 16 << 10;
  o.target_file_size_base = 32 << 10;
  std::unique_ptr<DB> db;
  Status s = DB::Open(o, dir.Child("db"), &db);
  REQUIRE(s.ok());
  for (int i = 0; i < 2000; i++)
    REQUIRE(db->Put(WriteOptions(), Key(i), std::string(50, 'd')).ok());
  s = db->Flush(FlushOptions());
  if (s.IsNotSupported()) {
    WARN("O_DIRECT not supported here: " << s.ToString());
    return;
  }
  REQUIRE(s.ok());
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  for (int i = 0; i < 2000; i += 7) {
    std::string v;
    REQUIRE(db->Get(ReadOptions(), Key(i), &v).ok());
    REQUIRE(v == std::string(50, 'd'));
  }
}

TEST_CASE("a small max_open_files makes table readers churn", "[db][tablecache]") {
  constexpr int kFiles = 30;
  auto opens_for = [](int max_open_files) {
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    Options o;
    o.create_if_missing = true;
    o.disable_auto_compactions = true;
    o.max_open_files = max_open_files;
    std::unique_ptr<DB> db;
    REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
    for (int f = 0; f < kFiles; f++) {
      REQUIRE(db->Put(WriteOptions(), Key(f), "v").ok());
      REQUIRE(db->Flush(FlushOptions()).ok());
    }
    const uint64_t before = db->GetStats().table_reader_opens;
    for (int round = 0; round < 3; round++) {
      for (int f = 0; f < kFiles; f++) {
        std::string v;
        REQUIRE(db->Get(ReadOptions(), Key(f), &v).ok());
      }
    }
    return db->GetStats().table_reader_opens - before;
  };
  const uint64_t unbounded = opens_for(-1);
  const uint64_t bounded = opens_for(20);  // 10 readers for tables
  REQUIRE(unbounded == 0);                 // every table was opened when it was flushed
  REQUIRE(bounded >= 3 * (kFiles - 10));
}

namespace {

std::string Manifest(const std::string& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("MANIFEST-", 0) == 0) return dir + "/" + name;
  }
  return "";
}

// A closed DB whose MANIFEST holds several edits (one per flush).
std::string FlushedDB(const shale_test::TempDir& dir) {
  Options o;
  o.create_if_missing = true;
  o.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  for (int i = 0; i < 20; i++) {
    REQUIRE(db->Put(WriteOptions(), Key(i), "v").ok());
    REQUIRE(db->Flush(FlushOptions()).ok());
  }
  REQUIRE(db->Close().ok());
  return dir.Child("db");
}

}  // namespace

TEST_CASE("MANIFEST damage: a garbage tail is a torn write, a flipped bit is not",
          "[db][recovery]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  const std::string path = FlushedDB(dir);
  const std::string manifest = Manifest(path);
  REQUIRE(!manifest.empty());
  const uint64_t size = fs::file_size(manifest);
  std::unique_ptr<DB> db;
  SECTION("garbage after the last record is ignored") {
    std::ofstream(manifest, std::ios::app | std::ios::binary) << std::string(300, '\x5a');
    REQUIRE(DB::Open(Options(), path, &db).ok());
    std::string v;
    REQUIRE(db->Get(ReadOptions(), Key(19), &v).ok());
  }
  SECTION("a flipped bit before whole records fails Open") {
    FlipByte(manifest, size / 2);
    Status s = DB::Open(Options(), path, &db);
    REQUIRE(s.IsCorruption());
  }
}

TEST_CASE("a small max_manifest_file_size rolls the MANIFEST while the DB is open",
          "[db][recovery]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 8 << 10;
  o.max_manifest_file_size = 1024;
  const std::string path = dir.Child("db");
  auto manifests = [&path] {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("MANIFEST-", 0) == 0) names.push_back(name);
    }
    return names;
  };
  std::set<std::string> seen;
  {
    std::unique_ptr<DB> db;
    REQUIRE(DB::Open(o, path, &db).ok());
    for (int i = 0; i < 3000; i++) {
      REQUIRE(
          db->Put(WriteOptions(), Key(i), std::string(100, static_cast<char>('a' + i % 26))).ok());
      if (i % 300 == 299) {
        REQUIRE(db->Flush(FlushOptions()).ok());
        for (const std::string& m : manifests()) seen.insert(m);
        // At most the current one and one a running compaction just replaced.
        REQUIRE(manifests().size() <= 2);
      }
    }
  }
  REQUIRE(seen.size() >= 3);         // it rolled while the DB was open
  REQUIRE(manifests().size() == 1);  // each old one went once its successor was current
  Status s;
  REQUIRE(Present(path, o, 3000, &s) == std::string(3000, '1'));
  REQUIRE(s.ok());
}

// With two write queues a WritePrepared write's entries reach the memtable
// before its commit marker publishes them, and a flush then puts them in a
// table. If the process dies before the marker, the restarted DB must number
// new writes past every sequence in its tables: a reused sequence would
// bring the old entry into view once new writes reach it.
TEST_CASE("recovery numbers writes past a table's unpublished entries", "[db][recovery]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  o.create_if_missing = true;
  o.two_write_queues = true;
  {
    DBImpl live(SanitizeOptions(o), dir.Child("live"));
    REQUIRE(live.OpenImpl().ok());
    REQUIRE(live.Put(WriteOptions(), "published", "p").ok());
    WriteBatch unpublished;
    unpublished.Put("hidden", "h");
    WriteHooks hooks;
    hooks.publish = false;  // a WritePrepared write whose marker never came
    REQUIRE(live.WriteWithHooks(WriteOptions(), &unpublished, &hooks).ok());
    REQUIRE(live.GetLatestSequenceNumber() == 1);
    REQUIRE(live.Flush(FlushOptions()).ok());  // the table holds sequence 2
    CrashCopy(dir.Child("live"), dir.Child("crashed"));
  }
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(Options(), dir.Child("crashed"), &db).ok());
  REQUIRE(db->GetLatestSequenceNumber() >= 2);
  std::string before;
  const Status first = db->Get(ReadOptions(), "hidden", &before);
  REQUIRE((first.ok() || first.IsNotFound()));
  REQUIRE(db->Put(WriteOptions(), "next", "n").ok());
  REQUIRE(db->Put(WriteOptions(), "next", "m").ok());
  std::string after;
  const Status second = db->Get(ReadOptions(), "hidden", &after);
  REQUIRE(second.code() == first.code());
  REQUIRE(after == before);
}
