#include "table/block.h"

#include <algorithm>

#include "util/check.h"
#include "util/coding.h"

namespace shale {

void KeyBuffer::Append(const char* p, size_t n) {
  if (size_ + n > capacity_) {
    const size_t new_capacity = std::max(capacity_ * 2, size_ + n);
    std::unique_ptr<char[]> bigger(new char[new_capacity]);
    std::memcpy(bigger.get(), data(), size_);
    heap_ = std::move(bigger);
    capacity_ = new_capacity;
  }
  char* base = heap_ ? heap_.get() : inline_;
  if (n > 0) std::memcpy(base + size_, p, n);
  size_ += n;
}

namespace {

// Decodes an entry header at p (entry must end by limit). Returns the start
// of the key delta, or nullptr if the entry is malformed.
inline const char* DecodeEntry(const char* p, const char* limit, uint32_t* shared,
                               uint32_t* non_shared, uint32_t* value_size) {
  if (limit - p < 3) return nullptr;
  *shared = static_cast<uint8_t>(p[0]);
  *non_shared = static_cast<uint8_t>(p[1]);
  *value_size = static_cast<uint8_t>(p[2]);
  if ((*shared | *non_shared | *value_size) < 128) {
    p += 3;  // fast path: all three fit in one byte
  } else {
    if ((p = GetVarint32Ptr(p, limit, shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, non_shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, value_size)) == nullptr) return nullptr;
  }
  const uint64_t body = uint64_t{*non_shared} + *value_size;
  if (body > static_cast<uint64_t>(limit - p)) return nullptr;
  return p;
}

}  // namespace

void BlockIter::Init(const Comparator* comparator, const char* data, uint32_t restarts_offset,
                     uint32_t num_restarts, size_t min_key_bytes) {
  SHALE_CHECK(num_restarts >= 1);
  comparator_ = comparator;
  min_key_bytes_ = min_key_bytes;
  data_ = data;
  restarts_ = restarts_offset;
  num_restarts_ = num_restarts;
  status_ = Status::OK();
  MarkInvalid();
}

void BlockIter::InitError(const Status& status) {
  data_ = "";
  restarts_ = 0;
  num_restarts_ = 0;
  status_ = status;
  MarkInvalid();
}

uint32_t BlockIter::RestartPoint(uint32_t index) const {
  SHALE_CHECK(index < num_restarts_);
  return DecodeFixed32(data_ + restarts_ + index * sizeof(uint32_t));
}

void BlockIter::MarkCorrupt(const char* why) {
  status_ = Status::Corruption("bad block entry", why);
  MarkInvalid();
}

void BlockIter::SeekToRestartPoint(uint32_t index) {
  restart_index_ = index;
  const uint32_t offset = RestartPoint(index);
  if (offset > restarts_) return MarkCorrupt("restart offset out of range");
  key_buf_.Truncate(0);
  key_ = Slice();
  value_ = Slice(data_ + offset, 0);  // NextEntryOffset() == offset
}

bool BlockIter::RestartKey(uint32_t index, Slice* key) {
  const uint32_t offset = RestartPoint(index);
  uint32_t shared, non_shared, value_size;
  const char* p = offset < restarts_ ? DecodeEntry(data_ + offset, data_ + restarts_, &shared,
                                                   &non_shared, &value_size)
                                     : nullptr;
  if (p == nullptr || shared != 0 || non_shared < min_key_bytes_) {
    MarkCorrupt("bad restart entry");
    return false;
  }
  *key = Slice(p, non_shared);
  return true;
}

bool BlockIter::ParseNextEntry() {
  current_ = NextEntryOffset();
  const char* p = data_ + current_;
  const char* limit = data_ + restarts_;
  if (p >= limit) {
    MarkInvalid();
    return false;
  }
  uint32_t shared, non_shared, value_size;
  p = DecodeEntry(p, limit, &shared, &non_shared, &value_size);
  if (p == nullptr || shared > key_.size() || uint64_t{shared} + non_shared < min_key_bytes_) {
    MarkCorrupt("malformed entry");
    return false;
  }
  if (shared == 0) {
    key_ = Slice(p, non_shared);  // whole key: no copy
  } else {
    if (key_.data() != key_buf_.data()) key_buf_.Assign(key_.data(), shared);
    key_buf_.Truncate(shared);
    key_buf_.Append(p, non_shared);
    key_ = Slice(key_buf_.data(), key_buf_.size());
  }
  value_ = Slice(p + non_shared, value_size);
  while (restart_index_ + 1 < num_restarts_ && RestartPoint(restart_index_ + 1) <= current_) {
    ++restart_index_;
  }
  return true;
}

void BlockIter::SeekToFirst() {
  if (!status_.ok()) return;
  SeekToRestartPoint(0);
  if (status_.ok()) ParseNextEntry();
}

void BlockIter::SeekToLast() {
  if (!status_.ok()) return;
  SeekToRestartPoint(num_restarts_ - 1);
  if (!status_.ok()) return;
  while (ParseNextEntry() && NextEntryOffset() < restarts_) {
  }
}

void BlockIter::Next() {
  SHALE_CHECK(Valid());
  ParseNextEntry();
}

void BlockIter::Prev() {
  SHALE_CHECK(Valid());
  const uint32_t original = current_;
  while (RestartPoint(restart_index_) >= original) {
    if (restart_index_ == 0) return MarkInvalid();  // before the first entry
    restart_index_--;
  }
  SeekToRestartPoint(restart_index_);
  if (!status_.ok()) return;
  while (ParseNextEntry() && NextEntryOffset() < original) {
  }
  if (Valid() && NextEntryOffset() != original) MarkCorrupt("entries overlap");
}

void BlockIter::Seek(const Slice& target) {
  if (!status_.ok()) return;
  // Binary search for the last restart point whose key is < target.
  uint32_t left = 0;
  uint32_t right = num_restarts_ - 1;
  while (left < right) {
    const uint32_t mid = left + (right - left + 1) / 2;
    Slice mid_key;
    if (!RestartKey(mid, &mid_key)) return;
    if (comparator_->Compare(mid_key, target) < 0) {
      left = mid;
    } else {
      right = mid - 1;
    }
  }
  SeekToRestartPoint(left);
  if (!status_.ok()) return;
  while (ParseNextEntry()) {
    if (comparator_->Compare(key_, target) >= 0) return;
  }
}

void BlockIter::SeekForPrev(const Slice& target) {
  if (!status_.ok()) return;
  Seek(target);
  if (!Valid()) {
    SeekToLast();
  } else if (comparator_->Compare(key_, target) > 0) {
    Prev();
  }
}

Block::Block(BlockContents contents) : contents_(std::move(contents)) {
  const size_t size = contents_.data.size();
  if (size < sizeof(uint32_t) || size > UINT32_MAX) return;
  const uint32_t n = DecodeFixed32(contents_.data.data() + size - sizeof(uint32_t));
  const size_t max_restarts = (size - sizeof(uint32_t)) / sizeof(uint32_t);
  if (n == 0 || n > max_restarts) return;
  num_restarts_ = n;
  restarts_offset_ = static_cast<uint32_t>(size - (1 + size_t{n}) * sizeof(uint32_t));
}

void Block::InitIterator(const Comparator* comparator, BlockIter* iter,
                         size_t min_key_bytes) const {
  if (num_restarts_ == 0) {
    iter->InitError(Status::Corruption("bad block contents (restart array)"));
  } else {
    iter->Init(comparator, contents_.data.data(), restarts_offset_, num_restarts_, min_key_bytes);
  }
}

Iterator* Block::NewIterator(const Comparator* comparator, size_t min_key_bytes) const {
  auto* iter = new BlockIter();
  InitIterator(comparator, iter, min_key_bytes);
  return iter;
}

}  // namespace shale
