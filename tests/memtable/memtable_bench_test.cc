// Throughput check for the memtable (hidden: run with `test_memtable [.bench]`).
// Target: >= 300k inserts/s of 16-byte keys and 100-byte values on one core.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "db/dbformat.h"
#include "memtable/memtable.h"
#include "util/random.h"

using namespace shale;

TEST_CASE("memtable insert and lookup throughput", "[.bench]") {
  constexpr int kEntries = 500000;  // ~70 MiB, about one 64 MiB write buffer
  InternalKeyComparator icmp(BytewiseComparator());
  MemTable* mem = new MemTable(icmp);
  mem->Ref();
  Random rnd(42);
  const std::string value(100, 'v');
  char key[17];
  auto make_key = [&key](uint64_t n) {
    snprintf(key, sizeof(key), "%016llu", static_cast<unsigned long long>(n));
    return Slice(key, 16);
  };

  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kEntries; i++) {
    mem->Add(static_cast<SequenceNumber>(i + 1), kTypeValue, make_key(rnd.Uniform(1u << 30)),
             value);
  }
  const auto t1 = std::chrono::steady_clock::now();
  int found = 0;
  std::string out;
  Random lookup_rnd(42);
  for (int i = 0; i < kEntries; i++) {
    LookupKey lkey(make_key(lookup_rnd.Uniform(1u << 30)), kMaxSequenceNumber);
    Status s;
    if (mem->Get(lkey, &out, &s)) found++;
  }
  const auto t2 = std::chrono::steady_clock::now();
  const double insert_s = std::chrono::duration<double>(t1 - t0).count();
  const double get_s = std::chrono::duration<double>(t2 - t1).count();
  printf("inserts/s: %.0f  gets/s: %.0f  memory: %zu MiB\n", kEntries / insert_s, kEntries / get_s,
         mem->ApproximateMemoryUsage() >> 20);
  REQUIRE(found == kEntries);
  CHECK(kEntries / insert_s >= 300000);
  mem->Unref();
}
