// Options::allow_mmap_reads through the DB on the real file system: reads
// answer from the tables' maps, uncompressed data blocks bypass the block
// cache, every read from a map is checksummed, and an iterator keeps
// reading the tables it pinned across a compaction.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/db_read.h"
#include "common/temp_dir.h"
#include "shale/db.h"

using namespace shale;

namespace {

Options MappedOptions(CompressionType compression) {
  Options o;
  o.create_if_missing = true;
  o.disable_auto_compactions = true;
  o.allow_mmap_reads = true;
  o.compression = compression;
  return o;
}

std::string Key(int i) {
  char key[16];
  snprintf(key, sizeof(key), "key%06d", i);
  return key;
}

std::string Value(int i) { return std::string(100, static_cast<char>('a' + i % 26)); }

void WriteAndFlush(DB* db, int first, int n) {
  for (int i = first; i < first + n; i++) REQUIRE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
  REQUIRE(db->Flush(FlushOptions()).ok());
}

// A DB in a fresh in-memory directory, opened with mapped reads.
struct MappedDb {
  explicit MappedDb(CompressionType compression) {
    REQUIRE(dir.ok());
    REQUIRE(DB::Open(MappedOptions(compression), path, &db).ok());
  }
  shale_test::TempDir dir{shale_test::TempDir::InMemoryBase()};
  const std::string path = dir.Child("db");
  std::unique_ptr<DB> db;
};

std::vector<std::string> TableFiles(const std::string& path) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() == ".sst") files.push_back(entry.path().string());
  }
  return files;
}

}  // namespace

TEST_CASE("mapped reads: uncompressed data blocks are read in place and never cached",
          "[db][mmap]") {
  MappedDb m(kNoCompression);
  DB* db = m.db.get();
  WriteAndFlush(db, 0, 2000);
  const uint64_t inserts_before = db->GetStats().block_cache_inserts;
  for (int i = 0; i < 2000; i += 7) REQUIRE(shale_test::Read(db, Key(i)) == Value(i));
  REQUIRE(shale_test::Read(db, "key999999") == "NOT_FOUND");
  std::string expected;
  for (int i = 0; i < 2000; i++) expected += Key(i) + "=" + Value(i) + ";";
  REQUIRE(shale_test::Scan(db) == expected);
  REQUIRE(db->GetStats().block_cache_inserts == inserts_before);
}

TEST_CASE("mapped reads: compressed blocks are decoded once and cached", "[db][mmap]") {
  MappedDb m(kSnappyCompression);
  DB* db = m.db.get();
  WriteAndFlush(db, 0, 2000);
  const DBStats before = db->GetStats();
  for (int i = 0; i < 2000; i += 50) REQUIRE(shale_test::Read(db, Key(i)) == Value(i));
  const DBStats first = db->GetStats();
  REQUIRE(first.block_cache_inserts >= before.block_cache_inserts + 5);
  for (int i = 0; i < 2000; i += 50) REQUIRE(shale_test::Read(db, Key(i)) == Value(i));
  const DBStats second = db->GetStats();
  REQUIRE(second.block_cache_inserts == first.block_cache_inserts);
  REQUIRE(second.block_cache_hits == first.block_cache_hits + 40);
}

TEST_CASE("mapped reads: a byte changed on disk after a good read is Corruption on the next",
          "[db][mmap]") {
  MappedDb m(kNoCompression);
  DB* db = m.db.get();
  const std::string& path = m.path;
  WriteAndFlush(db, 0, 2000);
  REQUIRE(shale_test::Read(db, Key(0)) == Value(0));
  const std::vector<std::string> tables = TableFiles(path);
  REQUIRE(tables.size() == 1);
  {
    // The first data block starts at offset 0; byte 40 is inside its first
    // entry's value. The map is shared, so the open table sees the change.
    std::fstream f(tables[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(40);
    char c = 0;
    f.read(&c, 1);
    f.seekp(40);
    c = static_cast<char>(c ^ 0x20);
    f.write(&c, 1);
  }
  const std::string got = shale_test::Read(db, Key(0));
  INFO(got);
  REQUIRE(got.rfind("ERROR: Corruption", 0) == 0);
}

TEST_CASE("mapped reads: an iterator opened before a compaction reads the tables it pinned",
          "[db][mmap]") {
  MappedDb m(kNoCompression);
  DB* db = m.db.get();
  const std::string& path = m.path;
  WriteAndFlush(db, 0, 1000);
  WriteAndFlush(db, 500, 1000);
  REQUIRE(TableFiles(path).size() == 2);
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    REQUIRE(it->key() == Slice(Key(n)));
    REQUIRE(it->value() == Slice(Value(n)));
  }
  REQUIRE(it->status().ok());
  REQUIRE(n == 1500);
}
