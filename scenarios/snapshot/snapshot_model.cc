#include "scenarios/snapshot/snapshot_model.h"

#include <algorithm>
#include <cassert>

namespace shale::scenario {

uint64_t SnapshotModel::BeginWrite() {
  pending_.insert(issued_);
  return issued_++;
}

void SnapshotModel::EndWrite(uint64_t id, const Status& status, const std::vector<KeyOp>& ops,
                             uint64_t first_sequence) {
  const size_t erased = pending_.erase(id);
  assert(erased == 1);
  (void)erased;
  if (!status.ok()) return;
  for (size_t j = 0; j < ops.size(); j++) {
    const uint64_t seq = first_sequence + j;
    std::vector<Version>& vs = versions_[ops[j].key];
    // Acks arrive nearly in sequence order: insert from the back.
    auto pos = std::upper_bound(vs.begin(), vs.end(), seq,
                                [](uint64_t s, const Version& v) { return s < v.sequence; });
    assert(pos == vs.begin() || std::prev(pos)->sequence != seq);
    vs.insert(pos, Version{seq, ops[j].value});
  }
}

const std::string* SnapshotModel::ValueAt(const std::string& key, uint64_t seq) const {
  auto it = versions_.find(key);
  if (it == versions_.end()) return nullptr;
  const std::vector<Version>& vs = it->second;
  auto pos = std::upper_bound(vs.begin(), vs.end(), seq,
                              [](uint64_t s, const Version& v) { return s < v.sequence; });
  if (pos == vs.begin()) return nullptr;  // no version at or below seq
  const Value& v = std::prev(pos)->value;
  return v.has_value() ? &*v : nullptr;
}

bool ModelCursor::Visible() {
  value_ = model_->ValueAt(it_->first, seq_);
  return value_ != nullptr;
}

void ModelCursor::SettleForward() {
  const auto end = model_->versions().end();
  while (it_ != end && !Visible()) ++it_;
  valid_ = it_ != end;
}

void ModelCursor::SettleBackward() {
  const auto begin = model_->versions().begin();
  while (true) {
    if (Visible()) {
      valid_ = true;
      return;
    }
    if (it_ == begin) break;
    --it_;
  }
  valid_ = false;
}

void ModelCursor::SeekToFirst() {
  it_ = model_->versions().begin();
  SettleForward();
}

void ModelCursor::SeekToLast() {
  const auto& vs = model_->versions();
  if (vs.empty()) {
    valid_ = false;
    return;
  }
  it_ = std::prev(vs.end());
  SettleBackward();
}

void ModelCursor::Seek(const std::string& target) {
  it_ = model_->versions().lower_bound(target);
  SettleForward();
}

void ModelCursor::SeekForPrev(const std::string& target) {
  const auto& vs = model_->versions();
  it_ = vs.upper_bound(target);  // first key > target
  if (it_ == vs.begin()) {
    valid_ = false;
    return;
  }
  --it_;
  SettleBackward();
}

void ModelCursor::Next() {
  if (!valid_) return;
  ++it_;
  SettleForward();
}

void ModelCursor::Prev() {
  if (!valid_) return;
  if (it_ == model_->versions().begin()) {
    valid_ = false;
    return;
  }
  --it_;
  SettleBackward();
}

}  // namespace shale::scenario
