// Compression through the DB: flushes write Options::compression, and a
// compaction whose outputs are the bottom of their key range writes
// bottommost_compression when it is set (RocksDB's meaning).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "common/db_read.h"
#include "common/temp_dir.h"
#include "shale/db.h"
#include "table/table_test_util.h"

using namespace shale;

namespace {

// The codec each table file of the DB at path records.
std::multiset<CompressionType> TableCodecs(const std::string& path) {
  std::multiset<CompressionType> codecs;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() != ".sst") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    TableOptions o;
    o.comparator = shale_test::TestComparator();
    std::unique_ptr<Table> table;
    REQUIRE(shale_test::OpenTable(o, bytes, &table).ok());
    codecs.insert(table->properties().compression);
  }
  return codecs;
}

Options CompressingOptions(CompressionType compression, CompressionType bottommost) {
  Options o;
  o.create_if_missing = true;
  o.disable_auto_compactions = true;
  o.compression = compression;
  o.bottommost_compression = bottommost;
  return o;
}

void WriteAndFlush(DB* db, int first, int n) {
  for (int i = first; i < first + n; i++) {
    char key[16];
    snprintf(key, sizeof(key), "key%06d", i);
    REQUIRE(db->Put(WriteOptions(), key, std::string(100, static_cast<char>('a' + i % 26))).ok());
  }
  REQUIRE(db->Flush(FlushOptions()).ok());
}

}  // namespace

TEST_CASE(
    "bottommost_compression applies to compaction outputs at the bottom, flushes keep "
    "compression",
    "[db][compression]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  const std::string path = dir.Child("db");
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(CompressingOptions(kLZ4Compression, kZSTD), path, &db).ok());
  WriteAndFlush(db.get(), 0, 2000);
  REQUIRE(TableCodecs(path) == std::multiset<CompressionType>{kLZ4Compression});
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  const std::multiset<CompressionType> compacted = TableCodecs(path);
  REQUIRE(!compacted.empty());
  REQUIRE(std::all_of(compacted.begin(), compacted.end(),
                      [](CompressionType c) { return c == kZSTD; }));
  WriteAndFlush(db.get(), 2000, 100);  // a new L0 table above the bottom
  const std::multiset<CompressionType> after = TableCodecs(path);
  REQUIRE(after.count(kLZ4Compression) == 1);
  REQUIRE(after.count(kZSTD) == compacted.size());
  for (int i = 0; i < 2100; i += 97) {
    char key[16];
    snprintf(key, sizeof(key), "key%06d", i);
    REQUIRE(shale_test::Read(db.get(), key) == std::string(100, static_cast<char>('a' + i % 26)));
  }
}

TEST_CASE("without bottommost_compression every table uses compression", "[db][compression]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  const std::string path = dir.Child("db");
  std::unique_ptr<DB> db;
  REQUIRE(
      DB::Open(CompressingOptions(kSnappyCompression, kDisableCompressionOption), path, &db).ok());
  WriteAndFlush(db.get(), 0, 2000);
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  WriteAndFlush(db.get(), 2000, 100);
  for (CompressionType c : TableCodecs(path)) REQUIRE(c == kSnappyCompression);
}

TEST_CASE("Open refuses a compression type that is no codec", "[db][compression]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  std::unique_ptr<DB> db;
  Options o = CompressingOptions(kDisableCompressionOption, kDisableCompressionOption);
  REQUIRE(DB::Open(o, dir.Child("a"), &db).IsInvalidArgument());
  o = CompressingOptions(kNoCompression, static_cast<CompressionType>(2));
  REQUIRE(DB::Open(o, dir.Child("b"), &db).IsInvalidArgument());
  o = CompressingOptions(static_cast<CompressionType>(5), kDisableCompressionOption);
  REQUIRE(DB::Open(o, dir.Child("c"), &db).IsInvalidArgument());
}
