#include "memtable/memtable_bloom.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace shale;

namespace {

// A filter of about bytes, with its memory.
struct BloomWithMemory {
  explicit BloomWithMemory(size_t bytes)
      : memory(new char[MemTableBloom::MemoryBytes(bytes)]), bloom(bytes, memory.get()) {}
  std::unique_ptr<char[]> memory;
  MemTableBloom bloom;
};

std::string Key(int i) { return "key" + std::to_string(i) + "/suffix"; }

}  // namespace

TEST_CASE("memtable bloom has no false negatives and few false positives", "[memtable_bloom]") {
  constexpr int kKeys = 10000;
  BloomWithMemory f(kKeys * 3);  // 24 bits per key, as 2% of a buffer of 100-byte entries
  REQUIRE(f.bloom.num_lines() == (kKeys * 3 + 63) / 64);
  for (int i = 0; i < kKeys; i++) REQUIRE_FALSE(f.bloom.MayContain(Key(i)));
  for (int i = 0; i < kKeys; i += 2) f.bloom.Add(Key(i));
  int false_positives = 0;
  for (int i = 0; i < kKeys; i++) {
    if (i % 2 == 0) {
      REQUIRE(f.bloom.MayContain(Key(i)));
    } else if (f.bloom.MayContain(Key(i))) {
      false_positives++;
    }
  }
  // 48 bits per added key, six probes in one line: well under 1% (measured
  // about 0.1%).
  INFO("false positives: " << false_positives);
  REQUIRE(false_positives < kKeys / 2 / 100);
}

TEST_CASE("memtable bloom of one line still holds every key", "[memtable_bloom]") {
  BloomWithMemory f(0);
  REQUIRE(f.bloom.num_lines() == 1);
  for (int i = 0; i < 100; i++) f.bloom.Add(Key(i));
  for (int i = 0; i < 100; i++) REQUIRE(f.bloom.MayContain(Key(i)));
}

TEST_CASE("memtable bloom keeps every key added by concurrent writers", "[memtable_bloom]") {
  constexpr int kThreads = 4;
  constexpr int kKeysPerThread = 20000;
  BloomWithMemory f(kThreads * kKeysPerThread / 8);  // dense: many shared words
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&f, t] {
      for (int i = 0; i < kKeysPerThread; i++) f.bloom.AddConcurrently(Key(t * kKeysPerThread + i));
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads * kKeysPerThread; i++) REQUIRE(f.bloom.MayContain(Key(i)));
}

TEST_CASE("memtable bloom lines are cache-line aligned in unaligned memory", "[memtable_bloom]") {
  std::unique_ptr<char[]> memory(new char[MemTableBloom::MemoryBytes(1000) + 1]);
  MemTableBloom bloom(1000, memory.get() + 1);
  bloom.Add("a");
  REQUIRE(bloom.MayContain("a"));
  REQUIRE(bloom.num_lines() == 16);
}
