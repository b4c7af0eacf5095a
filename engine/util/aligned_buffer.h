// AlignedBuffer: a heap buffer whose start address is a multiple of an
// alignment (for direct I/O). Ownership: owns its memory. Not thread safe.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include "util/check.h"

namespace shale {

inline size_t RoundUp(size_t x, size_t alignment) {
  return (x + alignment - 1) / alignment * alignment;
}
inline size_t RoundDown(size_t x, size_t alignment) { return x / alignment * alignment; }

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // Allocates capacity bytes (rounded up to alignment), aligned to alignment.
  // REQUIRES: alignment is a power of two.
  void Allocate(size_t alignment, size_t capacity) {
    SHALE_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0);
    alignment_ = alignment;
    capacity_ = RoundUp(capacity, alignment);
    void* p = std::aligned_alloc(alignment < sizeof(void*) ? sizeof(void*) : alignment, capacity_);
    SHALE_CHECK(p != nullptr);
    data_.reset(static_cast<char*>(p));
    size_ = 0;
  }
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  size_t alignment() const { return alignment_; }
  size_t available() const { return capacity_ - size_; }
  // Appends up to n bytes; returns how many fit.
  size_t Append(const char* src, size_t n) {
    const size_t take = n < available() ? n : available();
    std::memcpy(data_.get() + size_, src, take);
    size_ += take;
    return take;
  }
  void set_size(size_t n) {
    SHALE_CHECK(n <= capacity_);
    size_ = n;
  }
  // Keeps bytes [from, size) and moves them to the start.
  void DropPrefix(size_t from) {
    SHALE_CHECK(from <= size_);
    std::memmove(data_.get(), data_.get() + from, size_ - from);
    size_ -= from;
  }
  void Zero(size_t from, size_t to) {
    SHALE_CHECK(from <= to && to <= capacity_);
    std::memset(data_.get() + from, 0, to - from);
  }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data_;
  size_t alignment_ = 1;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace shale
