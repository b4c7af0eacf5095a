// MemTableBloom: a bloom filter over the user keys a memtable holds, so a
// Get for a key the memtable does not hold usually skips the skiplist
// search, which over a large memtable is a chain of cache misses (RocksDB's
// memtable bloom with whole-key filtering).
//
// Layout: 64-byte lines of eight 64-bit words. A key sets kProbes bits, all
// in one line chosen by its hash, so adding or probing a key touches one
// cache line.
//
// Every entry is added, deletions included: a Get must find a deletion in
// the memtable rather than an older value below it.
//
// Ownership: the words live in memory the caller provides (the memtable's
// arena), which must outlive the filter.
// Thread safety: MayContain may run concurrently with either add. Add is
// for one writer at a time (no concurrent Add or AddConcurrently);
// AddConcurrently may run on many threads at once. An add happens before
// the entry it covers is published, so a reader that can see the entry sees
// its bits.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shale/slice.h"

namespace shale {

class MemTableBloom {
 public:
  static constexpr size_t kLineBytes = 64;
  static constexpr int kProbes = 6;

  // The bytes a filter of about bytes needs: whole lines, at least one,
  // plus room to align them to a line.
  static size_t MemoryBytes(size_t bytes);
  // REQUIRES: memory holds MemoryBytes(bytes) bytes and outlives the filter.
  MemTableBloom(size_t bytes, char* memory);
  MemTableBloom(const MemTableBloom&) = delete;
  MemTableBloom& operator=(const MemTableBloom&) = delete;

  void Add(const Slice& user_key);
  void AddConcurrently(const Slice& user_key);
  // False only if no key equal to user_key was added (before this call
  // began, or by this thread).
  bool MayContain(const Slice& user_key) const;

  size_t num_lines() const { return num_lines_; }

 private:
  struct Probe {
    std::atomic<uint64_t>* line;  // the line's first word
    uint64_t bits;                // probe bit positions, 9 bits each
  };
  Probe ProbeFor(const Slice& user_key) const;
  // Calls fn(word, mask) for each of the key's kProbes bits; stops early
  // when fn returns false. Returns whether it ran to the end.
  template <typename Fn>
  bool ForEachProbe(const Slice& user_key, Fn&& fn) const;

  const size_t num_lines_;
  std::atomic<uint64_t>* const words_;  // num_lines_ * 8, line-aligned
};

}  // namespace shale
