#include "scenarios/oracle/one_cut.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace shale::scenario {

namespace {

constexpr uint64_t kNoBound = std::numeric_limits<uint64_t>::max();

// The sequences [lo, hi) at which a key held a value.
struct Held {
  uint64_t lo = 0;
  uint64_t hi = kNoBound;
  bool Contains(uint64_t s) const { return lo <= s && s < hi; }
};

// w's last op on key (w has one).
const Value& ValueWritten(const WriteRecord& w, const std::string& key) {
  const auto op =
      std::find_if(w.ops.rbegin(), w.ops.rend(), [&key](const KeyOp& o) { return o.key == key; });
  return op->value;
}

// Where key held observed, as the acknowledged writes tell; false if the
// key constrains nothing (see OneCutExplains).
bool HeldAt(const History& history, const std::string& key, const Value& observed,
            std::vector<Held>* held) {
  std::vector<const WriteRecord*> acked;
  for (const uint64_t id : history.WritesTo(key)) {
    const WriteRecord& w = history.writes()[id];
    if (w.outcome == WriteRecord::Outcome::kAcked) {
      if (w.visible_sequence == 0) return false;  // seen from a sequence not known
      acked.push_back(&w);
    } else if (ValueWritten(w, key) == observed) {
      return false;
    }
  }
  if (history.base_unknown().count(key) > 0) return false;
  std::sort(acked.begin(), acked.end(),
            [](const WriteRecord* a, const WriteRecord* b) { return a->sequence < b->sequence; });
  for (size_t i = 1; i < acked.size(); i++) {
    if (acked[i]->visible_sequence <= acked[i - 1]->visible_sequence) return false;
  }
  const auto base = history.base().find(key);
  const Value base_value = base == history.base().end() ? Value() : Value(base->second);
  const auto next_from = [&acked](size_t i) {
    return i < acked.size() ? acked[i]->visible_sequence : kNoBound;
  };
  if (base_value == observed) held->push_back(Held{0, next_from(0)});
  for (size_t i = 0; i < acked.size(); i++) {
    if (ValueWritten(*acked[i], key) == observed) {
      held->push_back(Held{acked[i]->visible_sequence, next_from(i + 1)});
    }
  }
  return !held->empty();  // unexplained: the per-key check's to report
}

// True if key's value in the base state may be observed.
bool BaseExplains(const History& history, const std::string& key, const Value& observed) {
  const auto unknown = history.base_unknown().find(key);
  if (unknown != history.base_unknown().end()) {
    return std::find(unknown->second.begin(), unknown->second.end(), observed) !=
           unknown->second.end();
  }
  const auto base = history.base().find(key);
  return (base == history.base().end() ? Value() : Value(base->second)) == observed;
}

// The one write not acknowledged (pending or failed) that alone explains
// key's observed value; nullptr if none or another explanation exists.
const WriteRecord* OnlyUnacknowledged(const History& history, const std::string& key,
                                      const Value& observed) {
  if (BaseExplains(history, key, observed)) return nullptr;
  const WriteRecord* only = nullptr;
  for (const uint64_t id : history.WritesTo(key)) {
    const WriteRecord& w = history.writes()[id];
    if (ValueWritten(w, key) != observed) continue;
    if (w.outcome == WriteRecord::Outcome::kAcked || only != nullptr) return nullptr;
    only = &w;
  }
  return only;
}

// True if every write that explains key's observed value ended before
// later began (so is ordered before it), the base counting as before all.
bool OnlyBefore(const History& history, const std::string& key, const Value& observed,
                const WriteRecord& later) {
  bool explained = BaseExplains(history, key, observed);
  for (const uint64_t id : history.WritesTo(key)) {
    const WriteRecord& w = history.writes()[id];
    if (ValueWritten(w, key) != observed) continue;
    if (&w == &later || w.end_event >= later.begin_event) return false;
    explained = true;
  }
  return explained;
}

// A write not yet acknowledged that one key shows must show on each of its
// keys the read saw, or a later write must: a value from a write ordered
// before it there means the read saw part of it. False with *key set to
// such a key.
bool SeenWholeIfSeen(const History& history, const std::vector<KeyObservation>& observed,
                     std::string* key) {
  for (const auto& [k, v] : observed) {
    const WriteRecord* seen = OnlyUnacknowledged(history, k, v);
    if (seen == nullptr) continue;
    for (const KeyObservation& other : observed) {
      const bool written = std::any_of(seen->ops.begin(), seen->ops.end(),
                                       [&other](const KeyOp& op) { return op.key == other.first; });
      if (!written || !OnlyBefore(history, other.first, other.second, *seen)) continue;
      *key = other.first;
      return false;
    }
  }
  return true;
}

}  // namespace

bool OneCutExplains(const History& history, const std::vector<KeyObservation>& observed,
                    std::string* key) {
  if (history.visibility() == ReadVisibility::kPerKey) return true;
  if (!SeenWholeIfSeen(history, observed, key)) return false;
  std::vector<std::pair<const std::string*, std::vector<Held>>> constraints;
  for (const auto& [k, v] : observed) {
    std::vector<Held> held;
    if (HeldAt(history, k, v, &held)) constraints.emplace_back(&k, std::move(held));
  }
  // If some s explains every key, the greatest lo among the intervals that
  // hold it does too: trying every lo is enough.
  size_t best_count = 0;
  const std::string* best_miss = nullptr;
  for (const auto& candidate : constraints) {
    for (const Held& at : candidate.second) {
      size_t count = 0;
      const std::string* miss = nullptr;
      for (const auto& [k, held] : constraints) {
        const bool holds = std::any_of(held.begin(), held.end(),
                                       [&at](const Held& h) { return h.Contains(at.lo); });
        if (holds) count++;
        if (!holds && miss == nullptr) miss = k;
      }
      if (miss == nullptr) return true;
      if (count > best_count) {
        best_count = count;
        best_miss = miss;
      }
    }
  }
  if (best_miss == nullptr) return true;  // no key constrains s
  *key = *best_miss;
  return false;
}

}  // namespace shale::scenario
