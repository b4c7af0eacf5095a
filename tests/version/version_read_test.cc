// Reads through a Version over real table files: Get, AddIterators, the
// table cache, and the compaction input iterator.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "table/merging_iterator.h"
#include "table/table_builder.h"
#include "version/filename.h"
#include "version/version_test_util.h"

namespace shale {
namespace {

using shale_test::IKey;
using shale_test::VersionSetFixture;

struct Entry {
  std::string user_key;
  SequenceNumber seq;
  ValueType type;
  std::string value;
};

// Writes entries (sorted by internal key) to a new table and adds it to level.
uint64_t WriteTable(VersionSetFixture& t, int level, const std::vector<Entry>& entries) {
  const uint64_t number = t.vset_->NewFileNumber();
  const std::string path = TableFileName(t.dir_.path(), number);
  std::unique_ptr<WritableFile> file;
  REQUIRE(t.env_->fs()->NewWritableFile(path, FileOptions(), &file).ok());
  WritableFileWriter writer(std::move(file), path);
  TableBuilder builder(t.table_options_, &writer);
  for (const Entry& e : entries) {
    builder.Add(IKey(e.user_key, e.seq, e.type).Encode(), e.value);
  }
  REQUIRE(builder.Finish().ok());
  REQUIRE(writer.Sync().ok());
  REQUIRE(writer.Close().ok());
  VersionEdit edit;
  const Entry& first = entries.front();
  const Entry& last = entries.back();
  edit.AddFile(level, number, builder.FileSize(), IKey(first.user_key, first.seq, first.type),
               IKey(last.user_key, last.seq, last.type), 1, 100);
  REQUIRE(t.Apply(&edit).ok());
  return number;
}

std::string GetAt(VersionSetFixture& t, const std::string& key, SequenceNumber seq) {
  std::string value;
  Status s;
  LookupKey lkey(key, seq);
  if (!t.vset_->current()->Get(ReadOptions(), lkey, &value, &s)) return "ABSENT";
  if (s.IsNotFound()) return "DELETED";
  if (!s.ok()) return "ERROR:" + s.ToString();
  return value;
}

TEST_CASE("Version::Get searches L0 newest first, then levels", "[version_read]") {
  VersionSetFixture t;
  WriteTable(t, 2, {{"a", 1, kTypeValue, "a1"}, {"m", 2, kTypeValue, "m2"}});
  WriteTable(t, 1, {{"b", 3, kTypeValue, "b3"}, {"m", 4, kTypeDeletion, ""}});
  WriteTable(t, 0, {{"a", 5, kTypeValue, "a5"}, {"c", 6, kTypeValue, "c6"}});
  WriteTable(t, 0, {{"a", 7, kTypeValue, "a7"}});
  CHECK(GetAt(t, "a", 100) == "a7");
  CHECK(GetAt(t, "a", 6) == "a5");
  CHECK(GetAt(t, "a", 4) == "a1");
  CHECK(GetAt(t, "a", 0) == "ABSENT");
  CHECK(GetAt(t, "b", 100) == "b3");
  CHECK(GetAt(t, "c", 100) == "c6");
  CHECK(GetAt(t, "m", 100) == "DELETED");
  CHECK(GetAt(t, "m", 3) == "m2");
  CHECK(GetAt(t, "z", 100) == "ABSENT");
  const uint64_t opens = t.stats_.table_reader_opens.load();
  CHECK(opens == 4);
  CHECK(GetAt(t, "a", 100) == "a7");
  CHECK(t.stats_.table_reader_opens.load() == opens);
  CHECK(t.stats_.table_cache_hits.load() > 0);

  // AddIterators, both directions, merged.
  std::vector<Iterator*> iters;
  t.vset_->current()->AddIterators(ReadOptions(), &iters);
  CHECK(iters.size() == 4);  // two L0 files, L1, L2
  std::unique_ptr<Iterator> merged(
      NewMergingIterator(&t.icmp_, iters.data(), static_cast<int>(iters.size())));
  std::vector<std::string> forward, backward;
  for (merged->SeekToFirst(); merged->Valid(); merged->Next()) {
    forward.push_back(merged->key().ToString());
  }
  REQUIRE(merged->status().ok());
  for (merged->SeekToLast(); merged->Valid(); merged->Prev()) {
    backward.insert(backward.begin(), merged->key().ToString());
  }
  CHECK(forward.size() == 7);
  CHECK(forward == backward);
  merged->Seek(IKey("b", 100).Encode());
  REQUIRE(merged->Valid());
  CHECK(ExtractUserKey(merged->key()) == Slice("b"));
}

TEST_CASE("a missing table file surfaces as an error", "[version_read]") {
  VersionSetFixture t;
  const uint64_t n = WriteTable(t, 1, {{"a", 1, kTypeValue, "v"}});
  REQUIRE(t.env_->fs()->DeleteFile(TableFileName(t.dir_.path(), n)).ok());
  t.table_cache_->Evict(n);
  CHECK(GetAt(t, "a", 10).rfind("ERROR:", 0) == 0);
}

TEST_CASE("MakeInputIterator merges a compaction's inputs", "[version_read]") {
  VersionSetFixture t;
  t.options_.level0_file_num_compaction_trigger = 2;
  WriteTable(t, 1, {{"b", 1, kTypeValue, "b1"}, {"d", 1, kTypeValue, "d1"}});
  WriteTable(t, 1, {{"x", 1, kTypeValue, "x1"}});
  WriteTable(t, 0, {{"a", 2, kTypeValue, "a2"}, {"c", 2, kTypeValue, "c2"}});
  WriteTable(t, 0, {{"b", 3, kTypeValue, "b3"}});
  std::unique_ptr<Compaction> c;
  {
    MutexLock lock(t.mu_.get());
    c.reset(t.vset_->PickCompaction());
  }
  REQUIRE(c != nullptr);
  CHECK(c->num_input_files(0) == 2);
  CHECK(c->num_input_files(1) == 1);
  std::unique_ptr<Iterator> it(t.vset_->MakeInputIterator(c.get()));
  std::vector<std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey p;
    REQUIRE(ParseInternalKey(it->key(), &p));
    seen.push_back(p.user_key.ToString() + "@" + std::to_string(p.sequence));
  }
  CHECK(it->status().ok());
  CHECK(seen == std::vector<std::string>{"a@2", "b@3", "b@1", "c@2", "d@1"});
  it.reset();
  MutexLock lock(t.mu_.get());
  c.reset();
}

// The file a Get charges a seek to: the first one it consulted, when it
// then had to consult another.
uint64_t SeekFileOf(VersionSetFixture& t, const std::string& key) {
  std::string value;
  Status s;
  Version::SeekCharge seek;
  (void)t.vset_->current()->Get(ReadOptions(), LookupKey(key, 100), &value, &s, &seek);
  REQUIRE(s.ok());
  return seek.file == nullptr ? 0 : seek.file->number;
}

TEST_CASE("Version::Get names the first file it consulted in vain", "[version_read]") {
  VersionSetFixture t;
  WriteTable(t, 2, {{"a", 1, kTypeValue, "a1"}, {"z", 1, kTypeValue, "z1"}});
  const uint64_t l1 = WriteTable(t, 1, {{"c", 2, kTypeValue, "c2"}, {"m", 2, kTypeValue, "m2"}});
  const uint64_t l0 = WriteTable(t, 0, {{"b", 3, kTypeValue, "b3"}, {"k", 3, kTypeValue, "k3"}});
  // Found in the first file consulted: nothing to charge.
  CHECK(SeekFileOf(t, "b") == 0);
  CHECK(SeekFileOf(t, "a") == 0);  // only L2 covers "a"
  CHECK(SeekFileOf(t, "z") == 0);
  // The L0 file covers "c" but does not hold it (its filter may say so):
  // it is charged, the L1 file that answers is not.
  CHECK(SeekFileOf(t, "c") == l0);
  // Only L2's range holds "n": nothing to charge.
  CHECK(SeekFileOf(t, "n") == 0);
  // "l" is past L0's range (it ends at "k") and not among L1's keys, but
  // L1's range holds it: L1 is charged, then L2 is consulted in vain too.
  CHECK(SeekFileOf(t, "l") == l1);
  // Three files consulted: only the first is charged.
  CHECK(SeekFileOf(t, "d") == l0);
}

}  // namespace
}  // namespace shale
