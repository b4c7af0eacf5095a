#include "scenarios/oracle/history.h"

#include <algorithm>
#include <cassert>

namespace shale::scenario {

namespace {
void Apply(const WriteRecord& w, State* state) {
  for (const KeyOp& op : w.ops) {
    if (op.value.has_value()) {
      (*state)[op.key] = *op.value;
    } else {
      state->erase(op.key);
    }
  }
}
}  // namespace

uint64_t History::BeginWrite(std::vector<KeyOp> ops, bool wal, bool sync) {
  WriteRecord w;
  w.id = writes_.size();
  w.ops = std::move(ops);
  w.wal = wal;
  w.sync = sync;
  writes_.push_back(std::move(w));
  return writes_.back().id;
}

void History::EndWrite(uint64_t id, const Status& status, uint64_t sequence) {
  assert(id < writes_.size());
  WriteRecord& w = writes_[id];
  assert(w.outcome == WriteRecord::Outcome::kPending);
  if (!status.ok()) {
    w.outcome = WriteRecord::Outcome::kFailed;
    return;
  }
  w.outcome = WriteRecord::Outcome::kAcked;
  w.sequence = sequence;
  w.must_survive = w.wal && w.sync;
  ack_order_.push_back(id);
  acked_count_++;
}

void History::SyncWalDone(uint64_t token) {
  for (uint64_t i = 0; i < token && i < ack_order_.size(); i++) {
    WriteRecord& w = writes_[ack_order_[i]];
    if (w.wal) w.must_survive = true;
  }
}

void History::FlushDone(uint64_t token) {
  for (uint64_t i = 0; i < token && i < ack_order_.size(); i++) {
    writes_[ack_order_[i]].must_survive = true;
  }
}

std::vector<const WriteRecord*> History::AckedInOrder() const {
  std::vector<const WriteRecord*> acked;
  for (const WriteRecord& w : writes_) {
    if (w.outcome == WriteRecord::Outcome::kAcked) acked.push_back(&w);
  }
  std::sort(acked.begin(), acked.end(),
            [](const WriteRecord* a, const WriteRecord* b) { return a->sequence < b->sequence; });
  return acked;
}

State History::ExpectedState() const {
  State state = base_;
  for (const WriteRecord* w : AckedInOrder()) Apply(*w, &state);
  return state;
}

State History::StateAtSequence(uint64_t seq) const {
  assert(!any_pending());
  State state = base_;
  for (const WriteRecord* w : AckedInOrder()) {
    if (w->sequence > seq) break;
    Apply(*w, &state);
  }
  return state;
}

std::vector<Value> History::PossibleValues(const std::string& key, uint64_t since_acked) const {
  // The value after every write acked before the read began...
  State before = base_;
  std::vector<bool> early(writes_.size(), false);
  for (uint64_t i = 0; i < since_acked && i < ack_order_.size(); i++) early[ack_order_[i]] = true;
  std::vector<const WriteRecord*> acked = AckedInOrder();
  for (const WriteRecord* w : acked) {
    if (early[w->id]) Apply(*w, &before);
  }
  std::vector<Value> values;
  auto it = before.find(key);
  values.push_back(it == before.end() ? Value() : Value(it->second));
  // ...or what any write not acked before the read began gave it.
  for (const WriteRecord& w : writes_) {
    if (early[w.id]) continue;
    for (const KeyOp& op : w.ops) {
      if (op.key == key) values.push_back(op.value);
    }
  }
  return values;
}

void History::AbandonPending() {
  for (WriteRecord& w : writes_) {
    if (w.outcome == WriteRecord::Outcome::kPending) w.outcome = WriteRecord::Outcome::kFailed;
  }
}

void History::Reset(State base) {
  base_ = std::move(base);
  writes_.clear();
  ack_order_.clear();
  acked_count_ = 0;
}

bool History::any_pending() const {
  return std::any_of(writes_.begin(), writes_.end(), [](const WriteRecord& w) {
    return w.outcome == WriteRecord::Outcome::kPending;
  });
}

}  // namespace shale::scenario
