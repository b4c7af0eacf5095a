#include "scenarios/oracle/recovery_check.h"

#include <algorithm>
#include <set>

namespace shale::scenario {

namespace {

using Acked = std::vector<const WriteRecord*>;

bool Contains(const std::vector<Value>& values, const Value& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

Value ValueIn(const State& state, const std::string& key) {
  auto it = state.find(key);
  return it == state.end() ? Value() : Value(it->second);
}

// The per-key sets of values allowed at a cut, updated one write at a time,
// with a running count of keys whose recovered value is not allowed.
class CutTracker {
 public:
  CutTracker(const State& base, const State& recovered) : recovered_(recovered) {
    std::set<std::string> keys;
    for (const auto& [k, v] : base) keys.insert(k);
    for (const auto& [k, v] : recovered) keys.insert(k);
    for (const std::string& k : keys) {
      allowed_[k] = {ValueIn(base, k)};
      Recount(k);
    }
  }
  void Apply(const WriteRecord& w, bool optional) {
    for (const KeyOp& op : w.ops) {
      std::vector<Value>& allowed = allowed_.try_emplace(op.key, std::vector<Value>{Value()}).first->second;
      if (optional) {
        allowed.push_back(op.value);
      } else {
        allowed.assign(1, op.value);
      }
      Recount(op.key);
    }
  }
  size_t mismatches() const { return bad_.size(); }
  // The first mismatching key, and what was allowed for it.
  std::string first_bad() const { return bad_.empty() ? "" : *bad_.begin(); }
  const std::vector<Value>& allowed(const std::string& key) const { return allowed_.at(key); }

 private:
  void Recount(const std::string& key) {
    if (Contains(allowed_[key], ValueIn(recovered_, key))) {
      bad_.erase(key);
    } else {
      bad_.insert(key);
    }
  }
  const State& recovered_;
  std::map<std::string, std::vector<Value>> allowed_;
  std::set<std::string> bad_;  // sorted: reports never depend on hashing
};


bool MustSurvive(const WriteRecord& w, bool process_crash) {
  return w.must_survive || (process_crash && w.wal);
}

bool EverWritten(const History& history, const std::string& key, const Value& v) {
  if (ValueIn(history.base(), key) == v) return true;
  for (const WriteRecord& w : history.writes()) {
    for (const KeyOp& op : w.ops) {
      if (op.key == key && op.value == v) return true;
    }
  }
  return false;
}

RecoveryVerdict Diagnose(const History& history, const Acked& acked, size_t floor,
                         bool process_crash, const State& recovered) {
  // Re-run to the full history to name a key and what was expected there.
  CutTracker full(history.base(), recovered);
  for (const WriteRecord* w : acked) full.Apply(*w, !MustSurvive(*w, process_crash) && !w->wal);
  RecoveryVerdict v;
  v.ok = false;
  v.key = full.first_bad();
  if (v.key.empty()) {
    // Every key matches the whole history only with writes out of order.
    v.property = "prefix recovery";
    return v;
  }
  const Value observed = ValueIn(recovered, v.key);
  v.observed = DescribeValue(observed);
  v.expected = DescribeValue(full.allowed(v.key).back());
  if (!EverWritten(history, v.key, observed)) {
    v.property = "no phantoms";
  } else {
    // Was the key's newest must-survive write lost?
    bool durable_lost = false;
    for (size_t i = 0; i < floor; i++) {
      for (const KeyOp& op : acked[i]->ops) {
        if (op.key == v.key) durable_lost = op.value != observed;
      }
    }
    v.property = durable_lost ? "durability" : "prefix recovery";
  }
  return v;
}

}  // namespace

std::vector<const WriteRecord*> AckedBySequence(const History& history) {
  std::vector<const WriteRecord*> acked;
  for (const WriteRecord& w : history.writes()) {
    if (w.outcome == WriteRecord::Outcome::kAcked) acked.push_back(&w);
  }
  std::sort(acked.begin(), acked.end(),
            [](const WriteRecord* a, const WriteRecord* b) { return a->sequence < b->sequence; });
  return acked;
}

std::string DescribeValue(const Value& value) {
  if (!value.has_value()) return "<absent>";
  std::string out;
  for (char c : value->substr(0, 40)) {
    out += (c >= 32 && c < 127) ? std::string(1, c) : "\\x" + std::to_string(static_cast<uint8_t>(c));
  }
  if (value->size() > 40) out += "...(" + std::to_string(value->size()) + " bytes)";
  return out;
}

RecoveryVerdict CheckRecovery(const History& history, bool process_crash, const State& recovered) {
  const Acked acked = AckedBySequence(history);
  size_t floor = 0;  // the cut must include acked[0, floor)
  for (size_t i = 0; i < acked.size(); i++) {
    if (MustSurvive(*acked[i], process_crash)) floor = i + 1;
  }
  CutTracker tracker(history.base(), recovered);
  RecoveryVerdict best;
  bool found = false;
  for (size_t k = 0; k <= acked.size(); k++) {
    if (k >= floor) {
      if (k == acked.size()) {
        // Failed writes happened after every acked one, or not at all.
        for (const WriteRecord& w : history.writes()) {
          if (w.outcome == WriteRecord::Outcome::kFailed) tracker.Apply(w, /*optional=*/true);
        }
      }
      if (tracker.mismatches() == 0) {
        best.cut = k;
        found = true;
      }
    }
    if (k < acked.size()) {
      const WriteRecord& w = *acked[k];
      tracker.Apply(w, /*optional=*/!w.wal && !MustSurvive(w, process_crash));
    }
  }
  if (found) return best;
  return Diagnose(history, acked, floor, process_crash, recovered);
}

}  // namespace shale::scenario
