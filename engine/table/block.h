// Block: an immutable, parsed data or index block, and its iterator.
//
// Format (all integers little-endian):
//   block   := entry* restart:fixed32 * num_restarts | num_restarts:fixed32
//   entry   := shared:varint32 | non_shared:varint32 | value_size:varint32 |
//              key_delta[non_shared] | value[value_size]
// An entry's key is the first `shared` bytes of the previous key followed by
// key_delta. Entries at restart offsets have shared == 0. num_restarts >= 1.
//
// Malformed contents never cause an out-of-bounds read: the iterator stops
// and reports Corruption.
//
// Ownership: a Block owns its contents. Iterators point into the Block, which
// must outlive them. Thread safety: a Block is immutable (share it freely);
// each iterator is used by one thread.
#pragma once

#include <cstdint>
#include <memory>

#include "shale/comparator.h"
#include "shale/iterator.h"
#include "table/format.h"

namespace shale {

// A key being rebuilt from prefix-compressed entries. Keys up to
// kInlineBytes long need no heap allocation (the Get path stays lean).
class KeyBuffer {
 public:
  static constexpr size_t kInlineBytes = 128;
  KeyBuffer() = default;
  KeyBuffer(const KeyBuffer&) = delete;
  KeyBuffer& operator=(const KeyBuffer&) = delete;
  const char* data() const { return heap_ ? heap_.get() : inline_; }
  size_t size() const { return size_; }
  // REQUIRES: n <= size()
  void Truncate(size_t n) { size_ = n; }
  void Assign(const char* p, size_t n) {
    size_ = 0;
    Append(p, n);
  }
  void Append(const char* p, size_t n);

 private:
  char inline_[kInlineBytes];
  std::unique_ptr<char[]> heap_;
  size_t capacity_ = kInlineBytes;
  size_t size_ = 0;
};

// Iterates one block. Usable on the stack (Init) or from Block::NewIterator.
class BlockIter final : public Iterator {
 public:
  BlockIter() = default;
  // REQUIRES: data[0, restarts_offset + 4*num_restarts) is readable and
  // outlives the iterator; num_restarts >= 1. An entry whose key is shorter
  // than min_key_bytes is Corruption (a table's blocks hold internal keys,
  // which the comparator may only see whole).
  void Init(const Comparator* comparator, const char* data, uint32_t restarts_offset,
            uint32_t num_restarts, size_t min_key_bytes);
  // An iterator over nothing, failed with status.
  void InitError(const Status& status);

  bool Valid() const override { return current_ < restarts_; }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(const Slice& target) override;
  void SeekForPrev(const Slice& target) override;
  void Next() override;
  void Prev() override;
  Slice key() const override { return key_; }
  Slice value() const override { return value_; }
  Status status() const override { return status_; }

 private:
  uint32_t RestartPoint(uint32_t index) const;
  uint32_t NextEntryOffset() const {
    return static_cast<uint32_t>(value_.data() + value_.size() - data_);
  }
  void SeekToRestartPoint(uint32_t index);
  [[nodiscard]] bool RestartKey(uint32_t index, Slice* key);
  // Moves to the entry after the current one; false at the end or on error.
  bool ParseNextEntry();
  void MarkCorrupt(const char* why);
  void MarkInvalid() {
    current_ = restarts_;
    restart_index_ = num_restarts_;
  }

  const Comparator* comparator_ = nullptr;
  const char* data_ = nullptr;
  uint32_t restarts_ = 0;  // offset of the restart array
  uint32_t num_restarts_ = 0;
  size_t min_key_bytes_ = 0;
  uint32_t current_ = 0;        // offset of the current entry; restarts_ = invalid
  uint32_t restart_index_ = 0;  // restart block holding current_
  Slice key_;                   // into data_ (whole key) or key_buf_
  KeyBuffer key_buf_;
  Slice value_;
  Status status_;
};

class Block {
 public:
  explicit Block(BlockContents contents);
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  size_t size() const { return contents_.data.size(); }
  // Whether the block holds its bytes (false: they lie in a file's map).
  bool owns_bytes() const { return contents_.owned(); }
  // The caller owns the result; comparator must outlive it. Keys shorter
  // than min_key_bytes are Corruption (BlockIter::Init).
  Iterator* NewIterator(const Comparator* comparator, size_t min_key_bytes = 0) const;
  // Points *iter at this block (an error iterator if the block is malformed).
  void InitIterator(const Comparator* comparator, BlockIter* iter, size_t min_key_bytes = 0) const;

 private:
  BlockContents contents_;
  uint32_t restarts_offset_ = 0;
  uint32_t num_restarts_ = 0;  // 0 = malformed
};

}  // namespace shale
