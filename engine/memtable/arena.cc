#include "memtable/arena.h"

#include <cstdint>

namespace shale {

char* Arena::AllocateAligned(size_t bytes) {
  assert(bytes > 0);
  static_assert((kAlignBytes & (kAlignBytes - 1)) == 0, "alignment must be a power of two");
  const size_t misalign = reinterpret_cast<uintptr_t>(alloc_ptr_) & (kAlignBytes - 1);
  const size_t slop = misalign == 0 ? 0 : kAlignBytes - misalign;
  const size_t needed = bytes + slop;
  char* result;
  if (needed <= alloc_remaining_bytes_) {
    result = alloc_ptr_ + slop;
    alloc_ptr_ += needed;
    alloc_remaining_bytes_ -= needed;
  } else {
    result = AllocateFallback(bytes);  // new blocks come from new[]: aligned
  }
  assert((reinterpret_cast<uintptr_t>(result) & (kAlignBytes - 1)) == 0);
  return result;
}

char* Arena::AllocateFallback(size_t bytes) {
  if (bytes > block_bytes_ / 4) {
    // A dedicated block; the current block keeps its tail for small requests.
    return AllocateNewBlock(bytes);
  }
  alloc_ptr_ = AllocateNewBlock(block_bytes_);
  alloc_remaining_bytes_ = block_bytes_;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  alloc_remaining_bytes_ -= bytes;
  return result;
}

char* Arena::AllocateNewBlock(size_t block_bytes) {
  // new char[] of at least kAlignBytes is aligned to __STDCPP_DEFAULT_NEW_ALIGNMENT__.
  static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= kAlignBytes);
  blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_bytes));
  memory_usage_bytes_.fetch_add(block_bytes + sizeof(blocks_.back()), std::memory_order_relaxed);
  char* block = blocks_.back().get();
  assert((reinterpret_cast<uintptr_t>(block) & (kAlignBytes - 1)) == 0);
  return block;
}

}  // namespace shale
