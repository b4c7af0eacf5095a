// Arena: a bump allocator for memtable entries and skiplist nodes.
//
// Memory comes in blocks of block_bytes (4 KiB by default; the DB sizes
// them from write_buffer_size, as RocksDB does, so that a tiny buffer is not
// "full" after one block and a large one makes few allocations). An
// allocation larger than a quarter block gets a block of its own so that
// the tail of the current block is not wasted. Nothing is freed until the
// Arena is destroyed.
//
// Huge pages: given a Runtime, an arena whose blocks are at least
// Runtime::kHugePageBytes rounds them up to whole huge pages, aligns them to
// one and passes each to Runtime::AdviseHugePages. A memtable search visits
// nodes scattered over the whole arena; over 4 KiB pages most visits also
// miss the TLB.
//
// Ownership: the Arena owns every block; pointers it hands out stay valid
// until the Arena is destroyed.
// Thread safety: Allocate and AllocateAligned are for one thread at a time
// (the memtable's single writer, or concurrent writers that each hold the
// memtable's concurrent-write mutex while they allocate). MemoryUsage() may
// be called from any thread concurrently with an allocation (it reads an
// atomic).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>
#include "util/check.h"

namespace shale {

class Runtime;

class Arena {
 public:
  static constexpr size_t kDefaultBlockBytes = 4096;
  static constexpr size_t kMinBlockBytes = 256;
  static constexpr size_t kMaxBlockBytes = 8 << 20;
  // Alignment of AllocateAligned: enough for pointers and 64-bit atomics.
  static constexpr size_t kAlignBytes = alignof(std::max_align_t) > 8 ? alignof(std::max_align_t)
                                                                      : 8;

  // block_bytes is clamped to [kMinBlockBytes, kMaxBlockBytes].
  // huge_page_advisor: nullptr, or the Runtime that advises huge pages for
  // blocks of at least Runtime::kHugePageBytes (it must outlive the Arena).
  explicit Arena(size_t block_bytes = kDefaultBlockBytes, Runtime* huge_page_advisor = nullptr);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() = default;

  // Returns bytes of uninitialized memory with no alignment promise.
  // REQUIRES: bytes > 0.
  char* Allocate(size_t bytes);
  // As Allocate, aligned to kAlignBytes.
  char* AllocateAligned(size_t bytes);

  // Bytes held by the arena (blocks plus their bookkeeping).
  size_t MemoryUsage() const { return memory_usage_bytes_.load(std::memory_order_relaxed); }

 private:
  char* AllocateFallback(size_t bytes);
  char* AllocateNewBlock(size_t block_bytes);

  // Allocates a block of whole huge pages, aligned to one, and advises it.
  char* AllocateHugePageBlock(size_t block_bytes);

  struct FreeBlock {
    void operator()(char* block) const;
  };

  const size_t block_bytes_;  // whole huge pages if huge_page_advisor_
  // Non-null only if block_bytes_ is at least a huge page.
  Runtime* const huge_page_advisor_;
  char* alloc_ptr_ = nullptr;
  size_t alloc_remaining_bytes_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char, FreeBlock>> huge_page_blocks_;
  std::atomic<size_t> memory_usage_bytes_{0};
};

inline char* Arena::Allocate(size_t bytes) {
  SHALE_CHECK(bytes > 0);
  if (bytes <= alloc_remaining_bytes_) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    alloc_remaining_bytes_ -= bytes;
    return result;
  }
  return AllocateFallback(bytes);
}

}  // namespace shale
