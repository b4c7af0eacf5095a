// Slice: a non-owning view of bytes (pointer + length), as in LevelDB.
//
// Ownership: the referenced bytes belong to someone else and must outlive
// the Slice. Thread safety: as for the bytes it points to.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace shale {

class Slice {
 public:
  Slice() : data_(""), size_(0) {}
  Slice(const char* d, size_t n) : data_(d), size_(n) {}
  Slice(const std::string& s) : data_(s.data()), size_(s.size()) {}  // NOLINT
  Slice(std::string_view s) : data_(s.data()), size_(s.size()) {}    // NOLINT
  Slice(const char* s) : data_(s), size_(strlen(s)) {}               // NOLINT

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  char operator[](size_t n) const {
    assert(n < size_);
    return data_[n];
  }

  void clear() {
    data_ = "";
    size_ = 0;
  }
  // REQUIRES: n <= size()
  void remove_prefix(size_t n) {
    assert(n <= size_);
    data_ += n;
    size_ -= n;
  }
  // REQUIRES: n <= size()
  void remove_suffix(size_t n) {
    assert(n <= size_);
    size_ -= n;
  }

  std::string ToString() const { return std::string(data_, size_); }
  std::string_view view() const { return std::string_view(data_, size_); }
  // Hex dump, for messages about binary keys.
  std::string ToHex() const;

  // <0, 0, >0 as memcmp on the bytes, shorter-is-smaller on a tie.
  // Compares 8-byte words inline (byte-swapped to big-endian, so the order
  // is memcmp's): keys are short, and this is the engine's hottest loop.
  int compare(const Slice& b) const {
    const size_t min_len = size_ < b.size_ ? size_ : b.size_;
    size_t i = 0;
    for (; i + 8 <= min_len; i += 8) {
      uint64_t x, y;
      memcpy(&x, data_ + i, 8);
      memcpy(&y, b.data_ + i, 8);
      if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : +1;
    }
    for (; i < min_len; i++) {
      const unsigned char x = static_cast<unsigned char>(data_[i]);
      const unsigned char y = static_cast<unsigned char>(b.data_[i]);
      if (x != y) return x < y ? -1 : +1;
    }
    return size_ < b.size_ ? -1 : (size_ > b.size_ ? +1 : 0);
  }
  bool starts_with(const Slice& x) const {
    return size_ >= x.size_ && (x.size_ == 0 || memcmp(data_, x.data_, x.size_) == 0);
  }

 private:
  const char* data_;
  size_t size_;
};

inline bool operator==(const Slice& x, const Slice& y) {
  return x.size() == y.size() && (x.size() == 0 || memcmp(x.data(), y.data(), x.size()) == 0);
}
inline bool operator!=(const Slice& x, const Slice& y) { return !(x == y); }

}  // namespace shale
