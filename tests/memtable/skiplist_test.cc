#include "memtable/skiplist.h"

#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <set>
#include <vector>

#include "common/rc_check.h"
#include "memtable/arena.h"
#include "util/random.h"

using namespace shale;

namespace {

struct U64Cmp {
  int operator()(uint64_t a, uint64_t b) const { return a < b ? -1 : (a > b ? 1 : 0); }
};
using List = SkipList<uint64_t, U64Cmp>;

}  // namespace

TEST_CASE("empty skiplist has no entries in either direction", "[skiplist]") {
  Arena arena;
  List list(U64Cmp{}, &arena);
  REQUIRE_FALSE(list.Contains(10));
  List::Iterator it(&list);
  REQUIRE_FALSE(it.Valid());
  it.SeekToFirst();
  REQUIRE_FALSE(it.Valid());
  it.SeekToLast();
  REQUIRE_FALSE(it.Valid());
  it.Seek(100);
  REQUIRE_FALSE(it.Valid());
  it.SeekForPrev(100);
  REQUIRE_FALSE(it.Valid());
}

TEST_CASE("skiplist matches a std::set in both directions", "[skiplist]") {
  constexpr uint64_t kRange = 5000;
  Arena arena;
  List list(U64Cmp{}, &arena);
  std::set<uint64_t> model;
  Random rnd(1000);
  for (int i = 0; i < 2000; i++) {
    const uint64_t k = rnd.Uniform(kRange);
    if (model.insert(k).second) list.Insert(k);
  }
  for (uint64_t k = 0; k < kRange; k++) REQUIRE(list.Contains(k) == (model.count(k) == 1));

  List::Iterator it(&list);
  it.SeekToFirst();
  for (uint64_t k : model) {
    REQUIRE(it.Valid());
    REQUIRE(it.key() == k);
    it.Next();
  }
  REQUIRE_FALSE(it.Valid());

  it.SeekToLast();
  for (auto rit = model.rbegin(); rit != model.rend(); ++rit) {
    REQUIRE(it.Valid());
    REQUIRE(it.key() == *rit);
    it.Prev();
  }
  REQUIRE_FALSE(it.Valid());

  for (uint64_t t = 0; t < kRange + 2; t += 7) {
    it.Seek(t);
    auto lb = model.lower_bound(t);
    REQUIRE(it.Valid() == (lb != model.end()));
    if (it.Valid()) REQUIRE(it.key() == *lb);

    it.SeekForPrev(t);
    auto ub = model.upper_bound(t);
    const bool expect_valid = ub != model.begin();
    REQUIRE(it.Valid() == expect_valid);
    if (expect_valid) REQUIRE(it.key() == *std::prev(ub));
  }
}

TEST_CASE("skiplist structure is a function of the insert sequence", "[skiplist]") {
  Arena a1, a2;
  List l1(U64Cmp{}, &a1), l2(U64Cmp{}, &a2);
  for (uint64_t i = 0; i < 3000; i++) {
    const uint64_t k = (i * 2654435761u) % 1000003;
    l1.Insert(k);
    l2.Insert(k);
  }
  // Node sizes depend on heights, so equal usage is a cheap structural check.
  REQUIRE(a1.MemoryUsage() == a2.MemoryUsage());
  REQUIRE(a1.MemoryUsage() > 3000 * sizeof(uint64_t));
}

TEST_CASE("skiplist iteration equals the sorted set of inserted keys", "[skiplist][rapidcheck]") {
  shale_test::FixedSeedProp("forward, backward, Seek and SeekForPrev agree with std::set", [] {
    const auto order =
        *rc::gen::container<std::vector<uint64_t>>(rc::gen::inRange<uint64_t>(0, 300));
    Arena arena;
    List list(U64Cmp{}, &arena);
    std::set<uint64_t> keys;
    for (uint64_t k : order) {
      if (keys.insert(k).second) list.Insert(k);
    }

    List::Iterator it(&list);
    std::vector<uint64_t> forward, backward;
    for (it.SeekToFirst(); it.Valid(); it.Next()) forward.push_back(it.key());
    for (it.SeekToLast(); it.Valid(); it.Prev()) backward.push_back(it.key());
    RC_ASSERT(forward == std::vector<uint64_t>(keys.begin(), keys.end()));
    RC_ASSERT(backward == std::vector<uint64_t>(keys.rbegin(), keys.rend()));

    const uint64_t target = *rc::gen::inRange<uint64_t>(0, 302);
    it.Seek(target);
    auto lb = keys.lower_bound(target);
    RC_ASSERT(it.Valid() == (lb != keys.end()));
    if (it.Valid()) RC_ASSERT(it.key() == *lb);
    it.SeekForPrev(target);
    auto ub = keys.upper_bound(target);
    RC_ASSERT(it.Valid() == (ub != keys.begin()));
    if (it.Valid()) RC_ASSERT(it.key() == *std::prev(ub));
  });
}

// The single writer links a key that lands in its last insert's gap without
// a search. Ascending runs, runs into one gap from either side, random keys,
// and concurrent-mode inserts between them (which must make it forget the
// gap) all keep every level ordered: a Seek for each key, which descends
// through every level, finds exactly the std::set's answer.
TEST_CASE("inserts that reuse the last insert's gap keep every level ordered",
          "[skiplist][rapidcheck]") {
  shale_test::FixedSeedProp(
      "runs, gap fills, random and concurrent inserts agree with std::set", [] {
        Arena arena;
        List list(U64Cmp{}, &arena);
        std::set<uint64_t> keys;
        const int steps = *rc::gen::inRange(1, 40);
        for (int step = 0; step < steps; step++) {
          const uint64_t base = *rc::gen::inRange<uint64_t>(0, 1u << 20) * 64;
          const int n = *rc::gen::inRange(1, 60);
          const int kind = *rc::gen::inRange(0, 4);
          for (int i = 0; i < n; i++) {
            uint64_t k = base;
            if (kind == 0) k = base + static_cast<uint64_t>(i);       // ascending run
            if (kind == 1) k = base + 63 - static_cast<uint64_t>(i);  // descending into one gap
            if (kind == 2) k = *rc::gen::inRange<uint64_t>(0, 1u << 26);
            if (kind == 3) k = base + static_cast<uint64_t>(i % 2 == 0 ? i : 62 - i);  // both ends
            if (!keys.insert(k).second) continue;
            if (kind == 3 && i % 3 == 2) {
              const List::Reservation r = list.ReserveNode(0);
              list.InsertConcurrently(r, k);
            } else {
              list.Insert(k);
            }
          }
        }
        List::Iterator it(&list);
        std::vector<uint64_t> forward;
        for (it.SeekToFirst(); it.Valid(); it.Next()) forward.push_back(it.key());
        RC_ASSERT(forward == std::vector<uint64_t>(keys.begin(), keys.end()));
        for (uint64_t k : keys) {
          for (uint64_t probe : {k, k + 1}) {
            it.Seek(probe);
            const auto lb = keys.lower_bound(probe);
            RC_ASSERT(it.Valid() == (lb != keys.end()));
            if (it.Valid()) RC_ASSERT(it.key() == *lb);
          }
          RC_ASSERT(list.Contains(k));
        }
      });
}
