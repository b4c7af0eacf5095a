// Basic DB behaviour on the real backend: writes, reads, iterators,
// snapshots, flush, compaction and reopen.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "common/db_read.h"
#include "common/temp_dir.h"
#include "shale/db.h"
#include "shale/write_batch.h"

using namespace shale;
using shale_test::Read;

namespace {

Options SmallOptions() {
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 4096;
  o.target_file_size_base = 8192;
  o.max_bytes_for_level_base = 16384;
  o.max_bytes_for_level_multiplier = 2;
  o.level0_file_num_compaction_trigger = 2;
  o.block_size = 256;
  return o;
}

std::string Scan(DB* db, bool reverse = false) {
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  std::string out;
  if (reverse) {
    for (it->SeekToLast(); it->Valid(); it->Prev())
      out += it->key().ToString() + "=" + it->value().ToString() + ";";
  } else {
    for (it->SeekToFirst(); it->Valid(); it->Next())
      out += it->key().ToString() + "=" + it->value().ToString() + ";";
  }
  REQUIRE(it->status().ok());
  return out;
}

std::string Key(int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

int FilesAtLevel(DB* db, int level) {
  std::string files;
  REQUIRE(db->GetProperty("shale.num-files-at-level" + std::to_string(level), &files));
  return std::stoi(files);
}

// Even keys compacted below level 0, then odd keys in one level-0 file
// spanning them all: every Get of an even key consults that file in vain.
void WriteShadowingL0(DB* db, std::map<std::string, std::string>* model) {
  for (int i = 0; i < 400; i += 2) {
    model->emplace(Key(i), "deep" + std::to_string(i));
    REQUIRE(db->Put(WriteOptions(), Key(i), model->at(Key(i))).ok());
  }
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  for (int i = 1; i < 400; i += 2) {
    model->emplace(Key(i), "l0-" + std::to_string(i));
    REQUIRE(db->Put(WriteOptions(), Key(i), model->at(Key(i))).ok());
  }
  REQUIRE(db->Flush(FlushOptions()).ok());
  REQUIRE(FilesAtLevel(db, 0) == 1);
}

}  // namespace

TEST_CASE("put, get, delete, reopen", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  REQUIRE(dir.ok());
  const std::string path = dir.Child("db");
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(SmallOptions(), path, &db).ok());
  REQUIRE(db->Put(WriteOptions(), "a", "1").ok());
  REQUIRE(db->Put(WriteOptions(), "b", "2").ok());
  REQUIRE(db->Delete(WriteOptions(), "a").ok());
  REQUIRE(Read(db.get(), "a") == "NOT_FOUND");
  REQUIRE(Read(db.get(), "b") == "2");
  REQUIRE(db->Close().ok());
  db.reset();
  REQUIRE(DB::Open(SmallOptions(), path, &db).ok());
  REQUIRE(Read(db.get(), "a") == "NOT_FOUND");
  REQUIRE(Read(db.get(), "b") == "2");
}

TEST_CASE("open without create_if_missing fails cleanly", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o;
  std::unique_ptr<DB> db;
  Status s = DB::Open(o, dir.Child("absent"), &db);
  REQUIRE(s.IsInvalidArgument());
  REQUIRE(db == nullptr);
}

TEST_CASE("many writes flush, compact into levels, and survive reopen", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  const std::string path = dir.Child("db");
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(SmallOptions(), path, &db).ok());
  std::map<std::string, std::string> model;
  for (int i = 0; i < 3000; i++) {
    const std::string k = Key((i * 7919) % 1000);
    const std::string v = "value" + std::to_string(i) + std::string(50, 'x');
    REQUIRE(db->Put(WriteOptions(), k, v).ok());
    model[k] = v;
  }
  REQUIRE(db->Flush(FlushOptions()).ok());
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  std::string files;
  int deepest = 0;
  for (int level = 0; level < 7; level++) {
    REQUIRE(db->GetProperty("shale.num-files-at-level" + std::to_string(level), &files));
    if (std::stoi(files) > 0) deepest = level;
  }
  REQUIRE(deepest >= 1);
  for (const auto& [k, v] : model) REQUIRE(Read(db.get(), k) == v);
  REQUIRE(db->Close().ok());
  db.reset();
  REQUIRE(DB::Open(SmallOptions(), path, &db).ok());
  std::string expected;
  for (const auto& [k, v] : model) expected += k + "=" + v + ";";
  REQUIRE(Scan(db.get()) == expected);
  const DBStats stats = db->GetStats();
  REQUIRE(stats.table_reader_opens > 0);
}

TEST_CASE("snapshots see the past across flush and compaction", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(SmallOptions(), dir.Child("db"), &db).ok());
  REQUIRE(db->Put(WriteOptions(), "k", "old").ok());
  const Snapshot* snap = db->GetSnapshot();
  REQUIRE(db->Put(WriteOptions(), "k", "new").ok());
  REQUIRE(db->Delete(WriteOptions(), "gone").ok());
  for (int i = 0; i < 500; i++) REQUIRE(db->Put(WriteOptions(), Key(i), std::string(40, 'v')).ok());
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(Read(db.get(), "k", snap) == "old");
  REQUIRE(Read(db.get(), "k") == "new");
  db->ReleaseSnapshot(snap);
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(Read(db.get(), "k") == "new");
}

TEST_CASE("iterators go both ways and seek", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(SmallOptions(), dir.Child("db"), &db).ok());
  for (const char* k : {"a", "c", "e", "g"}) REQUIRE(db->Put(WriteOptions(), k, k).ok());
  REQUIRE(db->Flush(FlushOptions()).ok());
  REQUIRE(db->Put(WriteOptions(), "b", "b").ok());
  REQUIRE(db->Delete(WriteOptions(), "e").ok());
  REQUIRE(Scan(db.get()) == "a=a;b=b;c=c;g=g;");
  REQUIRE(Scan(db.get(), true) == "g=g;c=c;b=b;a=a;");
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  it->Seek("d");
  REQUIRE(it->Valid());
  REQUIRE(it->key() == Slice("g"));
  it->SeekForPrev("f");
  REQUIRE(it->Valid());
  REQUIRE(it->key() == Slice("c"));
  it->Prev();
  REQUIRE(it->key() == Slice("b"));
  it->Next();
  REQUIRE(it->key() == Slice("c"));
  it->Next();
  REQUIRE(it->key() == Slice("g"));
}

TEST_CASE("properties and stats", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(SmallOptions(), dir.Child("db"), &db).ok());
  REQUIRE(db->Put(WriteOptions(), "a", "1").ok());
  std::string value;
  REQUIRE(db->GetProperty("shale.stats", &value));
  REQUIRE(value.find("flushes") != std::string::npos);
  REQUIRE_FALSE(db->GetProperty("shale.no-such-thing", &value));
  REQUIRE_FALSE(db->GetProperty("shale.num-files-at-level99", &value));
  REQUIRE(db->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  REQUIRE(db->GetProperty("shale.compaction-pending", &value));
  REQUIRE(value == "0");
}

TEST_CASE("a written batch carries the sequence it was given", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(SmallOptions(), dir.Child("db"), &db).ok());
  WriteBatch a, b;
  REQUIRE(a.Sequence() == 0);
  a.Put("x", "1");
  a.Put("y", "2");
  b.Delete("x");
  REQUIRE(db->Write(WriteOptions(), &a).ok());
  REQUIRE(db->Write(WriteOptions(), &b).ok());
  REQUIRE(a.Sequence() == 1);
  REQUIRE(b.Sequence() == 3);
  REQUIRE(db->GetLatestSequenceNumber() == 3);
  a.Clear();
  REQUIRE(a.Sequence() == 0);
}

TEST_CASE("Gets that consult a level-0 file in vain compact it away", "[db]") {
  shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
  Options o = SmallOptions();
  o.write_buffer_size = 1 << 20;  // one flush holds all the odd keys
  o.level0_file_num_compaction_trigger = 8;
  o.max_bytes_for_level_base = 1 << 20;
  const bool seek_compaction = GENERATE(true, false);
  o.disable_seek_compaction = !seek_compaction;
  std::unique_ptr<DB> db;
  REQUIRE(DB::Open(o, dir.Child("db"), &db).ok());
  std::map<std::string, std::string> model;
  WriteShadowingL0(db.get(), &model);
  // 100 seeks at least; the file is far below 1.6 MB, so 100 exactly.
  // Key(0) sorts before the file: 49 charges a round.
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 100; i += 2) REQUIRE(Read(db.get(), Key(i)) == model.at(Key(i)));
  }
  // The compaction runs in the background: wait for it, bounded.
  for (int waited_ms = 0; seek_compaction && waited_ms < 10000 && FilesAtLevel(db.get(), 0) > 0;
       waited_ms += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(db->GetStats().seek_compactions == (seek_compaction ? 1u : 0u));
  CHECK(FilesAtLevel(db.get(), 0) == (seek_compaction ? 0 : 1));
  // Nothing lost or brought back by the move.
  for (const auto& [k, v] : model) REQUIRE(Read(db.get(), k) == v);
  std::string expected;
  for (const auto& [k, v] : model) expected += k + "=" + v + ";";
  REQUIRE(Scan(db.get()) == expected);
}
