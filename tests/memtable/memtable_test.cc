#include "memtable/memtable.h"

#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "common/internal_key.h"
#include "common/rc_check.h"
#include "db/dbformat.h"
#include "shale/comparator.h"

using namespace shale;
using shale_test::EncodedIKey;

namespace {

// Owns one reference to a fresh memtable.
struct MemTableRef {
  explicit MemTableRef(const InternalKeyComparator& icmp, const MemTableOptions& options = {})
      : mem(new MemTable(icmp, options)) {
    mem->Ref();
  }
  ~MemTableRef() { mem->Unref(); }
  MemTable* mem;
};

// Get at a snapshot: "VALUE:<v>", "DELETED", or "ABSENT".
std::string GetAt(MemTable* mem, const std::string& key, SequenceNumber seq) {
  LookupKey lkey(key, seq);
  std::string value = "untouched";
  Status s = Status::Corruption("untouched");
  if (!mem->Get(lkey, &value, &s)) return "ABSENT";
  if (s.IsNotFound()) return "DELETED";
  REQUIRE(s.ok());
  return "VALUE:" + value;
}

}  // namespace

TEST_CASE("memtable Get returns the newest version at or below the snapshot", "[memtable]") {
  InternalKeyComparator icmp(BytewiseComparator());
  MemTableRef ref(icmp);
  MemTable* mem = ref.mem;
  REQUIRE(mem->num_entries() == 0);
  REQUIRE(mem->first_sequence() == kMaxSequenceNumber);

  mem->Add(10, kTypeValue, "a", "a10");
  mem->Add(20, kTypeValue, "a", "a20");
  mem->Add(30, kTypeDeletion, "a", "");
  mem->Add(40, kTypeValue, "a", "a40");
  mem->Add(5, kTypeValue, "b", "b5");
  mem->Add(15, kTypeValue, "ab", "");

  REQUIRE(mem->num_entries() == 6);
  REQUIRE(mem->num_deletes() == 1);
  REQUIRE(mem->first_sequence() == 5);

  REQUIRE(GetAt(mem, "a", 9) == "ABSENT");
  REQUIRE(GetAt(mem, "a", 10) == "VALUE:a10");
  REQUIRE(GetAt(mem, "a", 19) == "VALUE:a10");
  REQUIRE(GetAt(mem, "a", 20) == "VALUE:a20");
  REQUIRE(GetAt(mem, "a", 30) == "DELETED");
  REQUIRE(GetAt(mem, "a", 39) == "DELETED");
  REQUIRE(GetAt(mem, "a", 40) == "VALUE:a40");
  REQUIRE(GetAt(mem, "a", kMaxSequenceNumber) == "VALUE:a40");
  REQUIRE(GetAt(mem, "ab", 14) == "ABSENT");
  REQUIRE(GetAt(mem, "ab", 15) == "VALUE:");
  REQUIRE(GetAt(mem, "b", 100) == "VALUE:b5");
  REQUIRE(GetAt(mem, "", 100) == "ABSENT");
  REQUIRE(GetAt(mem, "aa", 100) == "ABSENT");
  REQUIRE(GetAt(mem, "c", 100) == "ABSENT");
}

TEST_CASE("memtable handles long keys and values and counts memory", "[memtable]") {
  InternalKeyComparator icmp(BytewiseComparator());
  MemTableRef ref(icmp);
  const size_t before = ref.mem->ApproximateMemoryUsage();
  const std::string long_key(300, 'k');
  const std::string long_value(100000, 'v');
  ref.mem->Add(1, kTypeValue, long_key, long_value);
  REQUIRE(ref.mem->ApproximateMemoryUsage() >= before + long_value.size());
  REQUIRE(GetAt(ref.mem, long_key, 1) == "VALUE:" + long_value);

  // Seek with a target longer than the iterator's inline buffer.
  std::unique_ptr<Iterator> it(ref.mem->NewIterator());
  it->Seek(EncodedIKey(long_key, kMaxSequenceNumber, kValueTypeForSeek));
  REQUIRE(it->Valid());
  REQUIRE(it->key() == Slice(EncodedIKey(long_key, 1, kTypeValue)));
  REQUIRE(it->value().size() == long_value.size());
  it->SeekForPrev(EncodedIKey(long_key, 0, kTypeDeletion));
  REQUIRE(it->Valid());
  REQUIRE(it->key() == Slice(EncodedIKey(long_key, 1, kTypeValue)));
  REQUIRE(it->status().ok());
}

TEST_CASE("memtable iterator walks internal keys in both directions", "[memtable]") {
  InternalKeyComparator icmp(BytewiseComparator());
  MemTableRef ref(icmp);
  ref.mem->Add(1, kTypeValue, "k1", "v1");
  ref.mem->Add(2, kTypeValue, "k1", "v2");
  ref.mem->Add(3, kTypeDeletion, "k2", "");
  std::unique_ptr<Iterator> it(ref.mem->NewIterator());
  REQUIRE_FALSE(it->Valid());
  it->SeekToFirst();
  REQUIRE(it->Valid());
  REQUIRE(it->key() == Slice(EncodedIKey("k1", 2, kTypeValue)));
  REQUIRE(it->value() == Slice("v2"));
  it->Next();
  REQUIRE(it->key() == Slice(EncodedIKey("k1", 1, kTypeValue)));
  REQUIRE(it->value() == Slice("v1"));
  it->Next();
  REQUIRE(it->key() == Slice(EncodedIKey("k2", 3, kTypeDeletion)));
  REQUIRE(it->value().empty());
  it->Next();
  REQUIRE_FALSE(it->Valid());
  it->SeekToLast();
  REQUIRE(it->key() == Slice(EncodedIKey("k2", 3, kTypeDeletion)));
  it->Prev();
  it->Prev();
  REQUIRE(it->key() == Slice(EncodedIKey("k1", 2, kTypeValue)));
  it->Prev();
  REQUIRE_FALSE(it->Valid());
  REQUIRE(it->status().ok());
}

TEST_CASE("memtable equals a std::map model of internal keys", "[memtable][rapidcheck]") {
  shale_test::FixedSeedProp(
      "iteration, Seek, SeekForPrev and Get agree with the model",
      [] {
        InternalKeyComparator icmp(BytewiseComparator());
        auto cmp = [&icmp](const std::string& a, const std::string& b) {
          return icmp.Compare(a, b) < 0;
        };
        std::map<std::string, std::string, decltype(cmp)> model(cmp);
        // No bloom filter, one line (false positives, so Get searches and
        // misses), or a large one (absent keys skipped): Get must answer
        // the same, deletions included.
        MemTableOptions options;
        options.bloom_bytes = *rc::gen::element<size_t>(0, 1, 4096);
        MemTableRef ref(icmp, options);

        const auto user_key_gen = rc::gen::container<std::string>(rc::gen::inRange<char>('a', 'd'));
        const int n = *rc::gen::inRange(0, 200);
        SequenceNumber seq = *rc::gen::inRange<SequenceNumber>(0, 1000);
        for (int i = 0; i < n; i++) {
          const std::string key = *user_key_gen;
          const bool is_delete = *rc::gen::inRange(0, 4) == 0;
          const std::string value = is_delete ? "" : *rc::gen::string<std::string>();
          seq += *rc::gen::inRange<SequenceNumber>(1, 4);
          const ValueType t = is_delete ? kTypeDeletion : kTypeValue;
          ref.mem->Add(seq, t, key, value);
          model.emplace(EncodedIKey(key, seq, t), value);
        }
        RC_ASSERT(ref.mem->num_entries() == model.size());

        std::unique_ptr<Iterator> it(ref.mem->NewIterator());
        auto m = model.begin();
        for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
          RC_ASSERT(m != model.end());
          RC_ASSERT(it->key().ToString() == m->first);
          RC_ASSERT(it->value().ToString() == m->second);
        }
        RC_ASSERT(m == model.end());
        auto rm = model.rbegin();
        for (it->SeekToLast(); it->Valid(); it->Prev(), ++rm) {
          RC_ASSERT(rm != model.rend());
          RC_ASSERT(it->key().ToString() == rm->first);
        }
        RC_ASSERT(rm == model.rend());

        for (int probe = 0; probe < 20; probe++) {
          const std::string user_key = *user_key_gen;
          const SequenceNumber at = *rc::gen::inRange<SequenceNumber>(0, seq + 2);
          const std::string target =
              EncodedIKey(user_key, at, *rc::gen::element(kTypeValue, kTypeDeletion));
          it->Seek(target);
          auto lb = model.lower_bound(target);
          RC_ASSERT(it->Valid() == (lb != model.end()));
          if (it->Valid()) RC_ASSERT(it->key().ToString() == lb->first);
          it->SeekForPrev(target);
          auto ub = model.upper_bound(target);
          RC_ASSERT(it->Valid() == (ub != model.begin()));
          if (it->Valid()) RC_ASSERT(it->key().ToString() == std::prev(ub)->first);

          // Get: the first model entry at or after the seek key, if same user key.
          auto g = model.lower_bound(EncodedIKey(user_key, at, kValueTypeForSeek));
          std::string expected = "ABSENT";
          if (g != model.end() && ExtractUserKey(g->first) == Slice(user_key)) {
            const bool deleted = (ExtractTrailer(g->first) & 0xff) == kTypeDeletion;
            expected = deleted ? "DELETED" : "VALUE:" + g->second;
          }
          RC_ASSERT(GetAt(ref.mem, user_key, at) == expected);
        }
      },
      /*seed=*/20240611, /*max_success=*/500);
}
