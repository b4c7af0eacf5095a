// Concurrent inserts: SkipList::ReserveNode/InsertConcurrently,
// MemTable::AddConcurrently and WriteBatchInternal::InsertInto(concurrent).
//
// Writers are real OS threads started together that claim ids from one
// shared counter (so they insert neighbouring keys at the same moment); a
// reader iterates the whole time and checks that every pass it makes is
// strictly sorted. Afterwards every key must be present exactly once.
//
// The memtable's concurrent mutex is a test-local shale::Mutex over
// std::mutex: test_memtable links shale_memtable only, not the POSIX Env
// (shale_port), and tests may use std threads and locks directly.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "db/dbformat.h"
#include "db/write_batch_internal.h"
#include "memtable/arena.h"
#include "memtable/memtable.h"
#include "memtable/skiplist.h"
#include "shale/comparator.h"
#include "shale/env.h"
#include "shale/write_batch.h"

using namespace shale;

namespace {

constexpr int kWriterThreads = 4;
constexpr uint64_t kKeysPerWriter = 20000;  // on average: writers claim ids from a shared counter
constexpr uint64_t kTotalKeys = kWriterThreads * kKeysPerWriter;

// shale::Mutex over std::mutex (see the file comment).
class StdMutex final : public Mutex {
 public:
  void Lock() override { mu_.lock(); }
  void Unlock() override { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Owns one reference to a memtable that allows concurrent adds.
struct ConcurrentMemTable {
  ConcurrentMemTable()
      : icmp(BytewiseComparator()), mem(new MemTable(icmp, MemTableOptions{.concurrent_mu = &mu})) {
    mem->Ref();
  }
  ~ConcurrentMemTable() { mem->Unref(); }
  StdMutex mu;  // declared first: outlives mem
  InternalKeyComparator icmp;
  MemTable* mem;
};

// Hands out ids 0, 1, 2, ... to whichever writer asks next, so concurrent
// writers insert neighbouring keys at the same moment and their CASes on the
// same links collide (disjoint per-writer ranges would drift apart).
class IdDispenser {
 public:
  explicit IdDispenser(uint64_t limit) : limit_(limit) {}
  // Sets *id to the next unclaimed id; false once all limit ids are claimed.
  bool Claim(uint64_t* id) {
    *id = next_.fetch_add(1, std::memory_order_relaxed);
    return *id < limit_;
  }

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> next_{0};
};

std::string UserKey(uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010llu", static_cast<unsigned long long>(id));
  return buf;
}

std::string ValueFor(uint64_t id) { return "value-" + std::to_string(id); }

// Every 7th id is a deletion; sequence = id + 1 (unique, first is 1).
ValueType TypeFor(uint64_t id) { return id % 7 == 3 ? kTypeDeletion : kTypeValue; }

// Runs fn() on kWriterThreads threads, released together, while a reader
// calls read_pass() until all writers are done. Returns the number of reader
// passes made.
template <typename WriterFn, typename ReadPassFn>
int RunWritersWithReader(WriterFn fn, ReadPassFn read_pass) {
  std::atomic<bool> go{false};
  std::atomic<int> writers_left{kWriterThreads};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriterThreads; w++) {
    writers.emplace_back([&] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      fn();
      writers_left.fetch_sub(1, std::memory_order_release);
    });
  }
  int passes = 0;
  std::thread reader([&] {
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    do {
      read_pass();
      passes++;
    } while (writers_left.load(std::memory_order_acquire) > 0);
  });
  go.store(true, std::memory_order_release);
  for (auto& t : writers) t.join();
  reader.join();
  return passes;
}

// One memtable pass: strictly increasing internal keys, at most kTotalKeys.
// Returns the count seen; records a failure in *sorted (no REQUIRE off the
// main thread: Catch2 v2 assertions are not thread safe).
uint64_t MemTablePass(MemTable* mem, const InternalKeyComparator& icmp, std::atomic<bool>* sorted) {
  std::unique_ptr<Iterator> it(mem->NewIterator());
  std::string prev;
  uint64_t seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (seen > 0 && icmp.Compare(Slice(prev), it->key()) >= 0) sorted->store(false);
    prev.assign(it->key().data(), it->key().size());
    seen++;
  }
  if (seen > kTotalKeys) sorted->store(false);
  return seen;
}

// After all writers: exactly ids 0..kTotalKeys-1, in order, with their types
// and values; Get agrees; the counters are exact.
void CheckMemTableHoldsAllKeys(MemTable* mem) {
  std::unique_ptr<Iterator> it(mem->NewIterator());
  it->SeekToFirst();
  uint64_t deletes = 0;
  for (uint64_t id = 0; id < kTotalKeys; id++) {
    REQUIRE(it->Valid());
    ParsedInternalKey ikey;
    REQUIRE(ParseInternalKey(it->key(), &ikey));
    REQUIRE(ikey.user_key.ToString() == UserKey(id));
    REQUIRE(ikey.sequence == id + 1);
    REQUIRE(ikey.type == TypeFor(id));
    if (ikey.type == kTypeValue) REQUIRE(it->value().ToString() == ValueFor(id));
    if (ikey.type == kTypeDeletion) deletes++;
    it->Next();
  }
  REQUIRE_FALSE(it->Valid());
  REQUIRE(mem->num_entries() == kTotalKeys);
  REQUIRE(mem->num_deletes() == deletes);
  REQUIRE(mem->first_sequence() == 1);
  for (uint64_t id = 0; id < kTotalKeys; id++) {
    LookupKey lkey(UserKey(id), kMaxSequenceNumber);
    std::string value;
    Status s;
    REQUIRE(mem->Get(lkey, &value, &s));
    if (TypeFor(id) == kTypeValue) {
      REQUIRE(s.ok());
      REQUIRE(value == ValueFor(id));
    } else {
      REQUIRE(s.IsNotFound());
    }
  }
}

struct U64Cmp {
  int operator()(uint64_t a, uint64_t b) const { return a < b ? -1 : (a > b ? 1 : 0); }
};
using U64List = SkipList<uint64_t, U64Cmp>;

// One round: kWriterThreads insert keys 1..kTotalKeys into a fresh list
// while a reader checks each pass is sorted; then the list must be exact.
void SkipListConcurrentRound() {
  Arena arena;
  U64List list(U64Cmp{}, &arena);
  std::mutex reserve_mu;  // the caller's lock for ReserveNode
  std::atomic<bool> sorted{true};
  IdDispenser ids(kTotalKeys);
  const int passes = RunWritersWithReader(
      [&] {
        for (uint64_t id; ids.Claim(&id);) {
          U64List::Reservation r;
          {
            std::lock_guard<std::mutex> lock(reserve_mu);
            r = list.ReserveNode(0);
          }
          list.InsertConcurrently(r, id + 1);  // keys 1..kTotalKeys
        }
      },
      [&] {
        U64List::Iterator it(&list);
        uint64_t prev = 0;
        for (it.SeekToFirst(); it.Valid(); it.Next()) {
          if (it.key() <= prev || it.key() > kTotalKeys) sorted.store(false);
          prev = it.key();
        }
      });
  REQUIRE(passes >= 1);
  REQUIRE(sorted.load());

  U64List::Iterator it(&list);
  it.SeekToFirst();
  for (uint64_t k = 1; k <= kTotalKeys; k++) {
    REQUIRE(it.Valid());
    REQUIRE(it.key() == k);
    it.Next();
  }
  REQUIRE_FALSE(it.Valid());
  // Contains, Seek and Prev use the upper levels: they must be consistent too.
  for (uint64_t k = 1; k <= kTotalKeys; k++) REQUIRE(list.Contains(k));
  REQUIRE_FALSE(list.Contains(0));
  REQUIRE_FALSE(list.Contains(kTotalKeys + 1));
  it.SeekToLast();
  REQUIRE(it.Valid());
  REQUIRE(it.key() == kTotalKeys);
  it.Seek(kTotalKeys / 2);
  REQUIRE(it.Valid());
  REQUIRE(it.key() == kTotalKeys / 2);
  it.Prev();
  REQUIRE(it.Valid());
  REQUIRE(it.key() == kTotalKeys / 2 - 1);
}

}  // namespace

TEST_CASE("skiplist concurrent inserters build one sorted list", "[skiplist][concurrent]") {
  // Integer inserts are quick, so one round can finish before the threads
  // overlap much; a few rounds make lost CAS races far likelier to show.
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; round++) SkipListConcurrentRound();
}

TEST_CASE("skiplist ReserveNode + InsertConcurrently matches Insert", "[skiplist][concurrent]") {
  Arena arena_a;
  Arena arena_b;
  U64List by_insert(U64Cmp{}, &arena_a);
  U64List by_reserve(U64Cmp{}, &arena_b);
  for (uint64_t k : {50u, 10u, 30u, 20u, 40u}) {
    by_insert.Insert(k);
    U64List::Reservation r = by_reserve.ReserveNode(16);
    REQUIRE(r.payload > r.node_mem);
    REQUIRE(r.height >= 1);
    for (int i = 0; i < 16; i++) r.payload[i] = static_cast<char>(k);  // payload is writable
    by_reserve.InsertConcurrently(r, k);
  }
  U64List::Iterator a(&by_insert);
  U64List::Iterator b(&by_reserve);
  a.SeekToFirst();
  b.SeekToFirst();
  while (a.Valid()) {
    REQUIRE(b.Valid());
    REQUIRE(a.key() == b.key());
    a.Next();
    b.Next();
  }
  REQUIRE_FALSE(b.Valid());
}

TEST_CASE("memtable AddConcurrently from several threads with a reader", "[memtable][concurrent]") {
  ConcurrentMemTable ref;
  REQUIRE(ref.mem->allows_concurrent_add());
  std::atomic<bool> sorted{true};
  IdDispenser ids(kTotalKeys);
  const int passes = RunWritersWithReader(
      [&] {
        for (uint64_t id; ids.Claim(&id);) {
          const ValueType type = TypeFor(id);
          ref.mem->AddConcurrently(id + 1, type, UserKey(id),
                                   type == kTypeValue ? Slice(ValueFor(id)) : Slice());
        }
      },
      [&] { MemTablePass(ref.mem, ref.icmp, &sorted); });
  REQUIRE(passes >= 1);
  REQUIRE(sorted.load());
  CheckMemTableHoldsAllKeys(ref.mem);
  REQUIRE(ref.mem->ApproximateMemoryUsage() > kTotalKeys * 16);
}

TEST_CASE("InsertInto(concurrent) from several threads", "[write_batch][concurrent]") {
  constexpr uint64_t kRecordsPerBatch = 10;
  static_assert(kTotalKeys % kRecordsPerBatch == 0);
  ConcurrentMemTable ref;
  std::atomic<bool> sorted{true};
  std::atomic<bool> all_ok{true};
  // Batch b holds ids [b*R, (b+1)*R) with sequences id + 1; writers claim
  // batches in turn, so neighbouring batches race each other.
  IdDispenser batches(kTotalKeys / kRecordsPerBatch);
  const int passes = RunWritersWithReader(
      [&] {
        for (uint64_t b; batches.Claim(&b);) {
          WriteBatch batch;
          for (uint64_t id = b * kRecordsPerBatch; id < (b + 1) * kRecordsPerBatch; id++) {
            if (TypeFor(id) == kTypeValue) {
              batch.Put(UserKey(id), ValueFor(id));
            } else {
              batch.Delete(UserKey(id));
            }
          }
          WriteBatchInternal::SetSequence(&batch, b * kRecordsPerBatch + 1);
          if (!WriteBatchInternal::InsertInto(&batch, ref.mem, /*concurrent=*/true).ok()) {
            all_ok.store(false);
          }
        }
      },
      [&] { MemTablePass(ref.mem, ref.icmp, &sorted); });
  REQUIRE(passes >= 1);
  REQUIRE(all_ok.load());
  REQUIRE(sorted.load());
  CheckMemTableHoldsAllKeys(ref.mem);
}

TEST_CASE("InsertInto(concurrent) inserts nothing from a bad batch", "[write_batch][concurrent]") {
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Delete("b");
  batch.Put("c", "3");
  WriteBatchInternal::SetSequence(&batch, 7);
  ConcurrentMemTable ref;

  SECTION("unknown tag after good records") {
    std::string rep = WriteBatchInternal::Contents(&batch).ToString();
    rep.push_back('\x09');
    REQUIRE(WriteBatchInternal::SetContents(&batch, rep).ok());
  }
  SECTION("record count larger than the records") { WriteBatchInternal::SetCount(&batch, 4); }
  SECTION("truncated last record") {
    std::string rep = WriteBatchInternal::Contents(&batch).ToString();
    rep.pop_back();
    REQUIRE(WriteBatchInternal::SetContents(&batch, rep).ok());
  }
  REQUIRE(WriteBatchInternal::InsertInto(&batch, ref.mem, /*concurrent=*/true).IsCorruption());
  REQUIRE(ref.mem->num_entries() == 0);
  REQUIRE(ref.mem->num_deletes() == 0);
  REQUIRE(ref.mem->first_sequence() == kMaxSequenceNumber);
  std::unique_ptr<Iterator> it(ref.mem->NewIterator());
  it->SeekToFirst();
  REQUIRE_FALSE(it->Valid());
}

TEST_CASE("memtable modes may alternate at quiescent points", "[memtable][concurrent]") {
  ConcurrentMemTable ref;
  ref.mem->Add(5, kTypeValue, "b", "b5");
  ref.mem->AddConcurrently(3, kTypeValue, "a", "a3");
  ref.mem->Add(9, kTypeDeletion, "b", "");
  ref.mem->AddConcurrently(7, kTypeValue, "c", "c7");
  REQUIRE(ref.mem->num_entries() == 4);
  REQUIRE(ref.mem->num_deletes() == 1);
  REQUIRE(ref.mem->first_sequence() == 3);
  std::string value;
  Status s;
  REQUIRE(ref.mem->Get(LookupKey("a", 100), &value, &s));
  REQUIRE((s.ok() && value == "a3"));
  REQUIRE(ref.mem->Get(LookupKey("b", 8), &value, &s));
  REQUIRE((s.ok() && value == "b5"));
  REQUIRE(ref.mem->Get(LookupKey("b", 100), &value, &s));
  REQUIRE(s.IsNotFound());
  REQUIRE(ref.mem->Get(LookupKey("c", 100), &value, &s));
  REQUIRE((s.ok() && value == "c7"));
}
