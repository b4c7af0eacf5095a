// Properties: (b) an SST round-trips any sorted set of distinct internal keys
// -- InternalGet and iteration (both directions, Seek, SeekForPrev) agree
// with a std::map model; and a single flipped byte anywhere in the file
// yields a non-OK status somewhere or exactly the right answers, with every
// codec (a byte of a compressed block included).
#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "common/rc_check.h"
#include "shale/cache.h"
#include "table/table_test_util.h"
#include "util/random.h"

using namespace shale;
using namespace shale_test;

namespace {

// Short keys over a tiny alphabet: shared prefixes, many versions per key.
std::string RandomUserKey(Random* rnd) {
  std::string k(rnd->Uniform(7), 'a');
  for (char& c : k) c = rnd->OneIn(20) ? '\xff' : static_cast<char>('a' + rnd->Uniform(3));
  return k;
}

std::string RandomInternalKey(Random* rnd) {
  return EncodedIKey(RandomUserKey(rnd), rnd->Uniform(40),
                     rnd->OneIn(3) ? kTypeDeletion : kTypeValue);
}

// Half the values are runs of one letter, so compressed tables hold both
// compressed blocks and blocks stored raw (those that did not shrink).
Model RandomModel(uint64_t seed, int n) {
  Random rnd(seed);
  Model m;
  for (int i = 0; i < n; i++) {
    std::string value(rnd.Skewed(9), 'v');
    const bool run = rnd.OneIn(2);
    const char letter = static_cast<char>('a' + rnd.Uniform(26));
    for (char& c : value) c = run ? letter : static_cast<char>('a' + rnd.Uniform(26));
    m[RandomInternalKey(&rnd)] = value;
  }
  return m;
}

struct Params {
  uint64_t seed;
  int num_entries;
  size_t block_size;
  int restart_interval;
  int bloom_bits;
  size_t cache_bytes;  // 0: no cache
  CompressionType compression;
};

Params GenParams() {
  Params p;
  p.seed = *rc::gen::arbitrary<uint64_t>();
  p.num_entries = *rc::gen::inRange(0, 400);
  p.block_size = *rc::gen::inRange<size_t>(64, 513);
  p.restart_interval = *rc::gen::inRange(1, 17);
  p.bloom_bits = *rc::gen::element(0, 1, 10, 16);
  p.cache_bytes = *rc::gen::element<size_t>(0, 0, 1000, 1 << 20);
  p.compression = *rc::gen::element(kNoCompression, kSnappyCompression, kLZ4Compression, kZSTD);
  return p;
}

TableOptions MakeOptions(const Params& p, Cache* cache) {
  TableOptions o;
  o.comparator = TestComparator();
  o.block_size = p.block_size;
  o.block_restart_interval = p.restart_interval;
  o.bloom_bits_per_key = p.bloom_bits;
  o.block_cache = cache;
  o.compression = p.compression;
  return o;
}

// The model's answer to InternalGet(lookup): the first entry >= lookup if it
// has lookup's user key.
const std::pair<const std::string, std::string>* ModelGet(const Model& m, const std::string& k) {
  auto it = m.lower_bound(k);
  if (it == m.end() || ExtractUserKey(it->first) != ExtractUserKey(k)) return nullptr;
  return &*it;
}

struct GetResult {
  Status status;
  int calls = 0;
  std::string key, value;
};

GetResult DoGet(const Table& t, const std::string& k, bool fill_cache) {
  GetResult r;
  ReadOptions ro;
  ro.fill_cache = fill_cache;
  r.status = t.InternalGet(ro, k, [&r](const Slice& key, const Slice& value) {
    r.calls++;
    r.key = key.ToString();
    r.value = value.ToString();
  });
  return r;
}

void CheckGetAgrees(const Table& t, const Model& m, const std::string& k, bool fill_cache) {
  const GetResult r = DoGet(t, k, fill_cache);
  RC_ASSERT(r.status.ok());
  const auto* expected = ModelGet(m, k);
  RC_ASSERT(r.calls == (expected != nullptr ? 1 : 0));
  if (expected != nullptr) {
    RC_ASSERT(r.key == expected->first);
    RC_ASSERT(r.value == expected->second);
  }
}

void CheckPosition(Iterator* it, const Model& m, Model::const_iterator expected) {
  RC_ASSERT(it->status().ok());
  RC_ASSERT(it->Valid() == (expected != m.end()));
  if (expected != m.end()) {
    RC_ASSERT(it->key() == Slice(expected->first));
    RC_ASSERT(it->value() == Slice(expected->second));
  }
}

void CheckIteration(const Table& t, const Model& m, Random* rnd) {
  std::unique_ptr<Iterator> it(t.NewIterator(ReadOptions()));
  auto expected = m.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) CheckPosition(it.get(), m, expected);
  CheckPosition(it.get(), m, expected);
  auto rexpected = m.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++rexpected) {
    RC_ASSERT(rexpected != m.rend());
    RC_ASSERT(it->key() == Slice(rexpected->first));
  }
  RC_ASSERT(rexpected == m.rend());
  for (int i = 0; i < 50; i++) {
    const std::string target = RandomInternalKey(rnd);
    it->Seek(target);
    CheckPosition(it.get(), m, m.lower_bound(target));
    auto ub = m.upper_bound(target);
    it->SeekForPrev(target);
    CheckPosition(it.get(), m, ub == m.begin() ? m.end() : std::prev(ub));
    // A short random walk from the SeekForPrev position.
    auto pos = ub == m.begin() ? m.end() : std::prev(ub);
    for (int step = 0; step < 10 && it->Valid(); step++) {
      if (rnd->OneIn(2)) {
        it->Next();
        ++pos;
      } else {
        it->Prev();
        pos = pos == m.begin() ? m.end() : std::prev(pos);
      }
      CheckPosition(it.get(), m, pos);
    }
  }
}

}  // namespace

TEST_CASE("SST round-trips and agrees with a map model", "[table][prop]") {
  FixedSeedProp(
      "round trip",
      [] {
        const Params p = GenParams();
        const Model m = RandomModel(p.seed, p.num_entries);
        std::shared_ptr<Cache> cache;
        if (p.cache_bytes > 0) cache = NewLRUCache(p.cache_bytes, 1, TestRuntimeInstance());
        const TableOptions o = MakeOptions(p, cache.get());
        const std::string file = BuildTable(o, m);
        std::unique_ptr<Table> t;
        RC_ASSERT(OpenTable(o, file, &t).ok());
        RC_ASSERT(t->properties().num_entries == m.size());
        Random rnd(p.seed ^ 0x1234);
        for (int pass = 0; pass < 2; pass++) {  // second pass hits the cache
          for (const auto& [k, v] : m) CheckGetAgrees(*t, m, k, rnd.OneIn(2));
        }
        for (int i = 0; i < 200; i++) {
          const std::string probe =
              EncodedIKey(RandomUserKey(&rnd), rnd.Uniform(45), kValueTypeForSeek);
          CheckGetAgrees(*t, m, probe, true);
        }
        CheckIteration(*t, m, &rnd);
      },
      /*seed=*/7177, /*cases=*/100);
}

TEST_CASE("a flipped byte anywhere is detected or harmless", "[table][prop]") {
  FixedSeedProp(
      "single byte flip",
      [] {
        Params p = GenParams();
        p.num_entries = *rc::gen::inRange(1, 200);
        const Model m = RandomModel(p.seed, p.num_entries);
        const TableOptions o = MakeOptions(p, nullptr);
        std::string file = BuildTable(o, m);
        const size_t offset = *rc::gen::inRange<size_t>(0, file.size());
        const int mask = *rc::gen::inRange(1, 256);
        file[offset] = static_cast<char>(file[offset] ^ mask);
        std::unique_ptr<Table> t;
        if (!OpenTable(o, file, &t).ok()) return;  // detected at Open
        bool detected = false;
        for (const auto& [k, v] : m) {
          const GetResult r = DoGet(*t, k, true);
          if (!r.status.ok()) {
            detected = true;
            continue;
          }
          RC_ASSERT(r.calls == 1);
          RC_ASSERT(r.key == k);
          RC_ASSERT(r.value == v);
        }
        std::unique_ptr<Iterator> it(t->NewIterator(ReadOptions()));
        auto expected = m.begin();
        for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
          RC_ASSERT(expected != m.end());
          RC_ASSERT(it->key() == Slice(expected->first));
          RC_ASSERT(it->value() == Slice(expected->second));
        }
        if (!it->status().ok()) detected = true;
        RC_ASSERT(detected || expected == m.end());
        RC_TAG(detected ? "detected after open" : "harmless");
      },
      /*seed=*/9091, /*cases=*/1000);
}
