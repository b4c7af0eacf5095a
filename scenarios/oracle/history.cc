#include "scenarios/oracle/history.h"

#include <algorithm>
#include <cassert>

#include "util/hash.h"

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
uint64_t Fingerprint(const std::string& key, const std::string& value) {
  return HashKeyValue(key, Value(value));
}
}  // namespace

uint64_t HashKeyValue(const std::string& key, const Value& value) {
  const uint64_t key_hash = Hash64(key.data(), key.size(), /*seed=*/0x6b6579);
  if (!value.has_value()) return key_hash ^ 0xab5e47ull;
  return Hash64(value->data(), value->size(), key_hash);
}

uint64_t History::BeginWrite(std::vector<KeyOp> ops, bool wal, bool sync) {
  WriteRecord w;
  w.id = writes_.size();
  w.ops = std::move(ops);
  w.wal = wal;
  w.sync = sync;
  w.begin_event = ++events_;
  w.sequence_floor = max_acked_sequence_;
  for (const KeyOp& op : w.ops) {
    std::vector<uint64_t>& ids = writes_by_key_[op.key];
    if (ids.empty() || ids.back() != w.id) ids.push_back(w.id);
  }
  writes_.push_back(std::move(w));
  if (observer_ != nullptr) observer_->BeganWrite(writes_.back().ops, wal, sync);
  return writes_.back().id;
}

void History::EndWrite(uint64_t id, const Status& status, uint64_t sequence, uint64_t visible_at) {
  assert(id < writes_.size());
  WriteRecord& w = writes_[id];
  assert(w.outcome == WriteRecord::Outcome::kPending);
  w.end_event = ++events_;
  if (observer_ != nullptr) observer_->EndedWrite(id, status, sequence, visible_at);
  if (!status.ok()) {
    w.outcome = WriteRecord::Outcome::kFailed;
    return;
  }
  w.outcome = WriteRecord::Outcome::kAcked;
  w.sequence = sequence;
  const bool published_later =
      visible_at == 0 && visibility_ == ReadVisibility::kWholeBatchPublishedLater;
  w.visible_sequence = published_later ? 0 : std::max(sequence, visible_at);
  w.must_survive = w.wal && w.sync;
  w.written = w.wal && (wal_writes_ == WalWrites::kAtAck || w.sync);
  if (!w.ops.empty()) max_acked_sequence_ = std::max({max_acked_sequence_, sequence, visible_at});
  w.ack_index = ack_order_.size();
  ack_order_.push_back(id);
  acked_count_++;
}

template <typename MarkFn>
void History::CoverAcked(HistoryObserver::Barrier barrier, uint64_t token, const MarkFn& mark) {
  const uint64_t covered = std::min<uint64_t>(token, ack_order_.size());
  written_prefix_ = std::max(written_prefix_, covered);
  if (observer_ != nullptr) observer_->BarrierDone(barrier, token);
  for (uint64_t i = 0; i < covered; i++) mark(writes_[ack_order_[i]]);
}

void History::SyncWalDone(uint64_t token) {
  CoverAcked(HistoryObserver::Barrier::kSyncWal, token, [](WriteRecord& w) {
    if (w.wal) w.must_survive = w.written = true;
  });
}

void History::WalFlushDone(uint64_t token) {
  CoverAcked(HistoryObserver::Barrier::kWalFlush, token, [](WriteRecord& w) {
    if (w.wal) w.written = true;
  });
}

void History::FlushDone(uint64_t token) {
  CoverAcked(HistoryObserver::Barrier::kFlush, token, [](WriteRecord& w) {
    w.must_survive = true;
    w.flushed = true;
    if (w.wal) w.written = true;
  });
}

void History::CloseDone(uint64_t token) {
  CoverAcked(HistoryObserver::Barrier::kClose, token, [](WriteRecord& w) {
    if (w.wal) {
      w.written = true;
    } else {
      w.must_survive = true;
    }
  });
}

const std::vector<uint64_t>& History::WritesTo(const std::string& key) const {
  static const std::vector<uint64_t> kNone;
  const auto it = writes_by_key_.find(key);
  return it == writes_by_key_.end() ? kNone : it->second;
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

std::vector<Value> History::BaseValues(const std::string& key) const {
  if (auto unknown = base_unknown_.find(key); unknown != base_unknown_.end())
    return unknown->second;
  auto it = base_.find(key);
  return {it == base_.end() ? Value() : Value(it->second)};
}

State History::ExpectedState() const {
  assert(base_unknown_.empty());
  State state = base_;
  for (const WriteRecord* w : AckedInOrder()) Apply(*w, &state);
  return state;
}

State History::StateAtSequence(uint64_t seq) const {
  assert(!any_pending() && base_unknown_.empty());
  State state = base_;
  for (const WriteRecord* w : AckedInOrder()) {
    if (w->sequence > seq) break;
    Apply(*w, &state);
  }
  return state;
}

// The settled value without a copy: the newest early write's value, or,
// when no early write touched the key, the base state's value (nullptr:
// absent), or any of its values if the base does not know it.
struct History::Settled {
  const Value* written = nullptr;
  const std::string* base = nullptr;
  const std::vector<Value>* unknown = nullptr;
  bool ruled_out = false;  // an observed later write overwrote it
  bool Equals(const Value& v) const {
    if (ruled_out) return false;
    if (written != nullptr) return *written == v;
    if (unknown != nullptr) return std::find(unknown->begin(), unknown->end(), v) != unknown->end();
    return base == nullptr ? !v.has_value() : v.has_value() && *v == *base;
  }
  // Every value it may be (one, unless the base does not know it).
  std::vector<Value> Copies() const {
    if (written != nullptr) return {*written};
    if (unknown != nullptr) return *unknown;
    return {base == nullptr ? Value() : Value(*base)};
  }
};

template <typename LaterFn>
History::Settled History::VisitPossible(const std::string& key, const ReadStart& start,
                                        const LaterFn& on_later) const {
  // The value after every write acknowledged before the read began (the
  // newest of them by sequence), or what any later write gave the key.
  Settled settled;
  if (auto base = base_.find(key); base != base_.end()) settled.base = &base->second;
  if (auto unknown = base_unknown_.find(key); unknown != base_unknown_.end()) {
    settled.unknown = &unknown->second;
  }
  uint64_t settled_seq = 0;
  uint64_t settled_end = 0;  // when the settled write returned (0: the base)
  auto it = writes_by_key_.find(key);
  if (it == writes_by_key_.end()) return settled;
  uint64_t newest_early_begin = 0;  // of the early writes to key
  for (uint64_t id : it->second) {
    const WriteRecord& w = writes_[id];
    if (w.ack_index < start.since_acked)
      newest_early_begin = std::max(newest_early_begin, w.begin_event);
  }
  uint64_t newest_observed_begin = 0;  // of the later writes observed before the read
  for (uint64_t id : it->second) {
    const WriteRecord& w = writes_[id];
    const bool early = w.ack_index < start.since_acked;
    const bool superseded =
        w.outcome == WriteRecord::Outcome::kFailed && w.end_event < newest_early_begin;
    if (superseded) continue;
    if (!early && ObservedEvent(w, key) < start.event) {
      newest_observed_begin = std::max(newest_observed_begin, w.begin_event);
    }
    for (const KeyOp& op : w.ops) {
      if (op.key != key) continue;
      if (!early) {
        on_later(w, op.value);
      } else if (w.sequence >= settled_seq) {
        settled.written = &op.value;  // the last op of a batch on a key wins
        settled_seq = w.sequence;
        settled_end = w.end_event;
      }
    }
  }
  settled.ruled_out = settled_end < newest_observed_begin;
  return settled;
}

std::vector<Value> History::PossibleValues(const std::string& key, const ReadStart& start) const {
  std::vector<Value> values;
  const Settled settled =
      VisitPossible(key, start, [&](const WriteRecord&, const Value& v) { values.push_back(v); });
  if (settled.ruled_out) return values;
  std::vector<Value> settled_values = settled.Copies();
  values.insert(values.begin(), settled_values.begin(), settled_values.end());
  return values;
}

int History::Explanations(const std::string& key, const ReadStart& start, const Value& observed,
                          const WriteRecord** only) const {
  *only = nullptr;
  int count = 0;
  const Settled settled = VisitPossible(key, start, [&](const WriteRecord& w, const Value& v) {
    if (v != observed) return;
    if (*only != &w) count++;  // a batch's ops on one key are one explanation
    *only = &w;
  });
  if (settled.Equals(observed)) count++;
  if (count != 1 || settled.Equals(observed)) *only = nullptr;
  return count;
}

bool History::IsPossible(const std::string& key, const ReadStart& start,
                         const Value& observed) const {
  const WriteRecord* only = nullptr;
  return Explanations(key, start, observed, &only) > 0;
}

bool History::Observe(const std::string& key, const ReadStart& start, const Value& observed) {
  const WriteRecord* only = nullptr;
  const int count = Explanations(key, start, observed, &only);
  if (count == 1 && only != nullptr) MarkObserved(&writes_[only->id], key);
  if (observer_ != nullptr) observer_->Observed(key, start, observed);
  return count > 0;
}

uint64_t History::ObservedEvent(const WriteRecord& w, const std::string& key) const {
  if (visibility_ != ReadVisibility::kPerKey) return w.observed_event;
  for (const auto& [k, event] : w.observed_keys) {
    if (k == key) return event;
  }
  return std::numeric_limits<uint64_t>::max();
}

void History::MarkObserved(WriteRecord* w, const std::string& key) {
  if (ObservedEvent(*w, key) != std::numeric_limits<uint64_t>::max()) return;
  const uint64_t event = ++events_;
  if (w->observed_event == std::numeric_limits<uint64_t>::max()) {
    w->observed_event = event;
    observed_writes_++;
  }
  if (visibility_ == ReadVisibility::kPerKey) w->observed_keys.emplace_back(key, event);
}

void History::AbandonPending() {
  for (WriteRecord& w : writes_) {
    if (w.outcome == WriteRecord::Outcome::kPending) {
      w.outcome = WriteRecord::Outcome::kFailed;
      w.end_event = ++events_;
    }
  }
}

void History::Reset(State base, UnknownValues unknown) {
  for (const auto& [key, value] : base_) earlier_values_.insert(Fingerprint(key, value));
  for (const auto& [key, values] : base_unknown_) {
    for (const Value& value : values) {
      if (value.has_value()) earlier_values_.insert(Fingerprint(key, *value));
    }
  }
  for (const WriteRecord& w : writes_) {
    for (const KeyOp& op : w.ops) {
      if (op.value.has_value()) earlier_values_.insert(Fingerprint(op.key, *op.value));
    }
  }
  base_ = std::move(base);
  base_unknown_ = std::move(unknown);
  writes_.clear();
  ack_order_.clear();
  writes_by_key_.clear();
  acked_count_ = 0;
  written_prefix_ = 0;
  max_acked_sequence_ = 0;
  events_ = 0;
}

bool History::WrittenInEarlierPhase(const std::string& key, const std::string& value) const {
  return earlier_values_.count(Fingerprint(key, value)) != 0;
}

bool History::any_pending() const {
  return std::any_of(writes_.begin(), writes_.end(), [](const WriteRecord& w) {
    return w.outcome == WriteRecord::Outcome::kPending;
  });
}

}  // namespace shale::scenario
