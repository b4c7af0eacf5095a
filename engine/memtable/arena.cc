#include "memtable/arena.h"

#include <cstdint>
#include <cstdlib>
#include <new>

#include "shale/env.h"
#include "util/check.h"

namespace shale {

namespace {

size_t RoundUp(size_t bytes, size_t unit) { return (bytes + unit - 1) / unit * unit; }

// block_bytes clamped to the arena's range, and rounded up to whole huge
// pages if they will be advised (an advisor and at least one huge page).
size_t BlockBytesFor(size_t block_bytes, const Runtime* huge_page_advisor) {
  const size_t clamped = block_bytes < Arena::kMinBlockBytes   ? Arena::kMinBlockBytes
                         : block_bytes > Arena::kMaxBlockBytes ? Arena::kMaxBlockBytes
                                                               : block_bytes;
  return huge_page_advisor != nullptr && clamped >= Runtime::kHugePageBytes
             ? RoundUp(clamped, Runtime::kHugePageBytes)
             : clamped;
}

}  // namespace

Arena::Arena(size_t block_bytes, Runtime* huge_page_advisor)
    : block_bytes_(BlockBytesFor(block_bytes, huge_page_advisor)),
      huge_page_advisor_(block_bytes_ >= Runtime::kHugePageBytes ? huge_page_advisor : nullptr) {
  static_assert(kMaxBlockBytes % Runtime::kHugePageBytes == 0,
                "rounding a block up to huge pages keeps it within kMaxBlockBytes");
}

char* Arena::AllocateAligned(size_t bytes) {
  SHALE_CHECK(bytes > 0);
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
    result = AllocateFallback(bytes);  // new blocks are aligned
  }
  SHALE_CHECK((reinterpret_cast<uintptr_t>(result) & (kAlignBytes - 1)) == 0);
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
  if (huge_page_advisor_ != nullptr && block_bytes >= Runtime::kHugePageBytes) {
    return AllocateHugePageBlock(block_bytes);
  }
  // new char[] of at least kAlignBytes is aligned to __STDCPP_DEFAULT_NEW_ALIGNMENT__.
  static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= kAlignBytes);
  blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_bytes));
  memory_usage_bytes_.fetch_add(block_bytes + sizeof(blocks_.back()), std::memory_order_relaxed);
  char* block = blocks_.back().get();
  SHALE_CHECK((reinterpret_cast<uintptr_t>(block) & (kAlignBytes - 1)) == 0);
  return block;
}

char* Arena::AllocateHugePageBlock(size_t block_bytes) {
  const size_t rounded_bytes = RoundUp(block_bytes, Runtime::kHugePageBytes);
  std::unique_ptr<char, FreeBlock> owned(
      static_cast<char*>(std::aligned_alloc(Runtime::kHugePageBytes, rounded_bytes)));
  if (owned == nullptr) throw std::bad_alloc();  // as new char[] would
  char* block = owned.get();
  huge_page_blocks_.push_back(std::move(owned));
  huge_page_advisor_->AdviseHugePages(block, rounded_bytes);
  memory_usage_bytes_.fetch_add(rounded_bytes + sizeof(huge_page_blocks_.back()),
                                std::memory_order_relaxed);
  return block;
}

void Arena::FreeBlock::operator()(char* block) const { std::free(block); }

}  // namespace shale
