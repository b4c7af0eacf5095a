#include "table/block_builder.h"

#include <algorithm>
#include <cstdint>

#include "util/check.h"
#include "util/coding.h"

namespace shale {

BlockBuilder::BlockBuilder(int restart_interval) : restart_interval_(restart_interval) {
  SHALE_CHECK(restart_interval_ >= 1);
  restarts_.push_back(0);
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.clear();
  restarts_.push_back(0);
  counter_ = 0;
  finished_ = false;
  last_key_.clear();
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  return buffer_.size() + restarts_.size() * sizeof(uint32_t) + sizeof(uint32_t);
}

void BlockBuilder::Add(const Slice& key, const Slice& value) {
  SHALE_CHECK(!finished_);
  SHALE_CHECK(counter_ <= restart_interval_);
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) shared++;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  const size_t non_shared = key.size() - shared;
  PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(non_shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, non_shared);
  buffer_.append(value.data(), value.size());
  last_key_.resize(shared);
  last_key_.append(key.data() + shared, non_shared);
  SHALE_CHECK(Slice(last_key_) == key);
  counter_++;
}

Slice BlockBuilder::Finish() {
  // The reader's half of this pair is Block's parse of the restart array.
  SHALE_CHECK(!finished_ && restarts_.front() == 0 && restarts_.back() <= buffer_.size());
  SHALE_CHECK(buffer_.size() + (restarts_.size() + 1) * sizeof(uint32_t) <= UINT32_MAX);
  for (uint32_t restart : restarts_) PutFixed32(&buffer_, restart);
  PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
  finished_ = true;
  return Slice(buffer_);
}

}  // namespace shale
