// BlockBuilder: builds one data or index block (format in block.h).
//
// Keys are prefix-compressed against the previous key; every
// restart_interval-th key is stored whole and its offset recorded in the
// restart array, so readers can binary-search.
//
// Ownership: owns its buffer; Finish() returns a Slice into it, valid until
// Reset() or destruction. Thread safety: one thread at a time.
// REQUIRES: keys are added in strictly increasing order of the comparator
// the block will be read with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shale/slice.h"

namespace shale {

class BlockBuilder {
 public:
  // REQUIRES: restart_interval >= 1.
  explicit BlockBuilder(int restart_interval);
  BlockBuilder(const BlockBuilder&) = delete;
  BlockBuilder& operator=(const BlockBuilder&) = delete;

  void Reset();
  // REQUIRES: Finish() not called since the last Reset().
  void Add(const Slice& key, const Slice& value);
  // Appends the restart array and returns the whole block.
  Slice Finish();
  // Size of the block if Finish() were called now.
  size_t CurrentSizeEstimate() const;
  bool empty() const { return buffer_.empty(); }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int counter_ = 0;  // entries since the last restart
  bool finished_ = false;
  std::string last_key_;
};

}  // namespace shale
