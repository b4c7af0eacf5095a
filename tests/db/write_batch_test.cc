#include "shale/write_batch.h"

#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/rc_check.h"
#include "db/dbformat.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"

using namespace shale;

namespace {

// Records every call as "Put(k, v)" / "Delete(k)".
class Recorder final : public WriteBatch::Handler {
 public:
  void Put(const Slice& key, const Slice& value) override {
    calls.push_back("Put(" + key.ToString() + ", " + value.ToString() + ")");
  }
  void Delete(const Slice& key) override { calls.push_back("Delete(" + key.ToString() + ")"); }
  std::vector<std::string> calls;
};

// Dumps a memtable as "Put(k, v)@seq" lines in internal key order.
std::vector<std::string> Dump(MemTable* mem) {
  std::vector<std::string> out;
  std::unique_ptr<Iterator> it(mem->NewIterator());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey ikey;
    REQUIRE(ParseInternalKey(it->key(), &ikey));
    const std::string op = ikey.type == kTypeValue ? "Put(" + ikey.user_key.ToString() + ", " +
                                                         it->value().ToString() + ")"
                                                   : "Delete(" + ikey.user_key.ToString() + ")";
    out.push_back(op + "@" + std::to_string(ikey.sequence));
  }
  return out;
}

struct MemTableRef {
  MemTableRef() : icmp(BytewiseComparator()), mem(new MemTable(icmp)) { mem->Ref(); }
  ~MemTableRef() { mem->Unref(); }
  InternalKeyComparator icmp;
  MemTable* mem;
};

}  // namespace

TEST_CASE("empty write batch", "[write_batch]") {
  WriteBatch batch;
  REQUIRE(batch.Count() == 0);
  REQUIRE(batch.ApproximateSize() == WriteBatchInternal::kHeaderBytes);
  REQUIRE(WriteBatchInternal::Sequence(&batch) == 0);
  Recorder r;
  REQUIRE(batch.Iterate(&r).ok());
  REQUIRE(r.calls.empty());
}

TEST_CASE("write batch round-trips records in order", "[write_batch]") {
  WriteBatch batch;
  batch.Put("foo", "bar");
  batch.Delete("box");
  batch.Put("baz", "boo");
  batch.Put("", "");
  WriteBatchInternal::SetSequence(&batch, 100);
  REQUIRE(batch.Count() == 4);
  REQUIRE(WriteBatchInternal::Count(&batch) == 4);
  REQUIRE(WriteBatchInternal::Sequence(&batch) == 100);
  Recorder r;
  REQUIRE(batch.Iterate(&r).ok());
  REQUIRE(r.calls ==
          std::vector<std::string>{"Put(foo, bar)", "Delete(box)", "Put(baz, boo)", "Put(, )"});

  // Through SetContents (the WAL path) and into a memtable.
  WriteBatch copy;
  REQUIRE(WriteBatchInternal::SetContents(&copy, WriteBatchInternal::Contents(&batch)).ok());
  REQUIRE(WriteBatchInternal::ByteSize(&copy) == batch.ApproximateSize());
  MemTableRef ref;
  REQUIRE(WriteBatchInternal::InsertInto(&copy, ref.mem).ok());
  REQUIRE(Dump(ref.mem) == std::vector<std::string>{"Put(, )@103", "Put(baz, boo)@102",
                                                    "Delete(box)@101", "Put(foo, bar)@100"});
  REQUIRE(ref.mem->first_sequence() == 100);
  REQUIRE(ref.mem->num_deletes() == 1);

  batch.Clear();
  REQUIRE(batch.Count() == 0);
  REQUIRE(batch.ApproximateSize() == WriteBatchInternal::kHeaderBytes);
}

TEST_CASE("write batch Append concatenates records and keeps the sequence", "[write_batch]") {
  WriteBatch b1, b2;
  WriteBatchInternal::SetSequence(&b1, 200);
  WriteBatchInternal::SetSequence(&b2, 300);
  b1.Append(b2);
  REQUIRE(b1.Count() == 0);
  b2.Put("a", "va");
  b1.Append(b2);
  REQUIRE(b1.Count() == 1);
  b2.Clear();
  b2.Put("b", "vb");
  b2.Delete("c");
  WriteBatchInternal::Append(&b1, &b2);
  REQUIRE(b1.Count() == 3);
  REQUIRE(WriteBatchInternal::Sequence(&b1) == 200);
  Recorder r;
  REQUIRE(b1.Iterate(&r).ok());
  REQUIRE(r.calls == std::vector<std::string>{"Put(a, va)", "Put(b, vb)", "Delete(c)"});
}

TEST_CASE("write batch rejects malformed representations", "[write_batch]") {
  WriteBatch batch;
  SECTION("shorter than the header") {
    REQUIRE(WriteBatchInternal::SetContents(&batch, Slice("short", 5)).IsCorruption());
    REQUIRE(WriteBatchInternal::SetContents(&batch, Slice("")).IsCorruption());
  }
  SECTION("unknown tag") {
    batch.Put("k", "v");
    std::string rep = WriteBatchInternal::Contents(&batch).ToString();
    rep[WriteBatchInternal::kHeaderBytes] = 0x7;
    REQUIRE(WriteBatchInternal::SetContents(&batch, rep).ok());
    Recorder r;
    REQUIRE(batch.Iterate(&r).IsCorruption());
  }
  SECTION("count larger than the records") {
    batch.Put("k", "v");
    WriteBatchInternal::SetCount(&batch, 2);
    Recorder r;
    REQUIRE(batch.Iterate(&r).IsCorruption());
  }
  SECTION("count smaller than the records") {
    batch.Put("k", "v");
    batch.Delete("k");
    WriteBatchInternal::SetCount(&batch, 1);
    Recorder r;
    REQUIRE(batch.Iterate(&r).IsCorruption());
  }
  SECTION("every truncation of a valid batch") {
    batch.Put("key1", "value1");
    batch.Delete("key2");
    batch.Put("key3", std::string(200, 'x'));
    const std::string rep = WriteBatchInternal::Contents(&batch).ToString();
    for (size_t len = WriteBatchInternal::kHeaderBytes; len < rep.size(); len++) {
      WriteBatch cut;
      REQUIRE(WriteBatchInternal::SetContents(&cut, Slice(rep.data(), len)).ok());
      Recorder r;
      REQUIRE(cut.Iterate(&r).IsCorruption());
    }
  }
}

TEST_CASE("InsertInto inserts nothing from a malformed batch", "[write_batch]") {
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Put("b", "2");
  batch.Put("c", "3");
  WriteBatchInternal::SetSequence(&batch, 7);
  std::string rep = WriteBatchInternal::Contents(&batch).ToString();
  rep.push_back('\x09');  // an unknown tag after three good records
  REQUIRE(WriteBatchInternal::SetContents(&batch, rep).ok());
  MemTableRef ref;
  REQUIRE(WriteBatchInternal::InsertInto(&batch, ref.mem).IsCorruption());
  REQUIRE(ref.mem->num_entries() == 0);
  REQUIRE(Dump(ref.mem).empty());
}

TEST_CASE("write batch random round trip and garbling", "[write_batch][rapidcheck]") {
  shale_test::FixedSeedProp("Iterate yields what was written; a garbled rep never crashes", [] {
    const auto ops = *rc::gen::container<std::vector<std::pair<bool, std::string>>>(
        rc::gen::pair(rc::gen::arbitrary<bool>(), rc::gen::string<std::string>()));
    WriteBatch batch;
    std::vector<std::string> expected;
    for (const auto& [is_put, key] : ops) {
      if (is_put) {
        batch.Put(key, key + "!");
        expected.push_back("Put(" + key + ", " + key + "!)");
      } else {
        batch.Delete(key);
        expected.push_back("Delete(" + key + ")");
      }
    }
    RC_ASSERT(batch.Count() == ops.size());
    Recorder r;
    RC_ASSERT(batch.Iterate(&r).ok());
    RC_ASSERT(r.calls == expected);

    // Flip one byte past the header: parsing must terminate with OK or
    // Corruption, and InsertInto must be all-or-nothing.
    std::string rep = WriteBatchInternal::Contents(&batch).ToString();
    RC_PRE(rep.size() > WriteBatchInternal::kHeaderBytes);
    const size_t pos = *rc::gen::inRange(WriteBatchInternal::kHeaderBytes, rep.size());
    rep[pos] = static_cast<char>(rep[pos] ^ *rc::gen::inRange(1, 256));
    WriteBatch garbled;
    RC_ASSERT(WriteBatchInternal::SetContents(&garbled, rep).ok());
    Recorder r2;
    const Status s = garbled.Iterate(&r2);
    RC_ASSERT((s.ok() || s.IsCorruption()));
    MemTableRef ref;
    const Status s2 = WriteBatchInternal::InsertInto(&garbled, ref.mem);
    RC_ASSERT(s2.ok() == s.ok());
    RC_ASSERT(ref.mem->num_entries() == (s.ok() ? garbled.Count() : 0));
  });
}
