#include "scenarios/oracle/recovery_check.h"

#include <algorithm>
#include <set>

#include "scenarios/oracle/cut_tracker.h"

namespace shale::scenario {

namespace {

using Acked = std::vector<const WriteRecord*>;

bool Contains(const std::vector<Value>& values, const Value& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// Appends to *out each of values it does not hold yet.
void AddNew(const std::vector<Value>& values, std::vector<Value>* out) {
  for (const Value& v : values) {
    if (!Contains(*out, v)) out->push_back(v);
  }
}

Value ValueIn(const State& state, const std::string& key) {
  auto it = state.find(key);
  return it == state.end() ? Value() : Value(it->second);
}

}  // namespace

bool MustSurvive(const WriteRecord& w, bool process_crash) {
  return w.must_survive || (process_crash && w.written);
}

namespace {

// An acknowledged write a crash may take on its own: a disable_wal one no
// flush covered, or one skip-any recovery may have skipped (a WAL write is
// otherwise lost only with the suffix after it).
bool MayBeMissing(const WriteRecord& w, const CheckScope& scope) {
  if (!w.wal) return !MustSurvive(w, scope.process_crash);
  return !w.flushed && std::any_of(scope.skippable.begin(), scope.skippable.end(),
                                   [&w](const SequenceRange& r) { return r.Holds(w.sequence); });
}

Value LastValueFor(const WriteRecord& w, const std::string& key) {
  Value v;
  for (const KeyOp& op : w.ops) {
    if (op.key == key) v = op.value;
  }
  return v;
}

bool Gave(const WriteRecord& w, const std::string& key, const Value& value) {
  for (const KeyOp& op : w.ops) {
    if (op.key == key && op.value == value) return true;
  }
  return false;
}

bool EverWritten(const History& history, const std::string& key, const Value& v) {
  if (Contains(history.BaseValues(key), v)) return true;
  for (const WriteRecord& w : history.writes()) {
    if (Gave(w, key, v)) return true;
  }
  return false;
}

// The broken promise a bad key shows, strongest evidence first: a
// must-survive write lost (durability), a value from an earlier phase back
// (resurrection), a value never written (no phantoms), else an order no
// prefix explains (prefix recovery).
enum class Broken : uint8_t { kDurability, kResurrection, kPhantom, kPrefix };

const char* BrokenName(Broken b) {
  switch (b) {
    case Broken::kDurability:
      return "durability";
    case Broken::kResurrection:
      return "resurrection";
    case Broken::kPhantom:
      return "no phantoms";
    case Broken::kPrefix:
      return "prefix recovery";
  }
  return "prefix recovery";
}

Broken Classify(const History& history, const Acked& acked,
                const std::vector<IndeterminateWindow>& windows, size_t floor,
                const std::string& key, const Value& observed) {
  if (observed.has_value() && !EverWritten(history, key, observed)) {
    return history.WrittenInEarlierPhase(key, *observed) ? Broken::kResurrection : Broken::kPhantom;
  }
  // Was the key's newest write the cut must include lost (the key shows
  // an older value, not one a later write gave it)?
  size_t newest = floor;
  for (size_t i = 0; i < floor; i++) {
    for (const KeyOp& op : acked[i]->ops) {
      if (op.key == key) newest = i;
    }
  }
  if (newest == floor) return Broken::kPrefix;
  bool durable_lost = LastValueFor(*acked[newest], key) != observed;
  for (size_t i = newest + 1; i < acked.size() && durable_lost; i++) {
    durable_lost = !Gave(*acked[i], key, observed);
  }
  for (const IndeterminateWindow& window : windows) {  // one that may follow the newest
    if (newest < window.bound && Gave(*window.write, key, observed)) durable_lost = false;
  }
  return durable_lost ? Broken::kDurability : Broken::kPrefix;
}

// Each write is all or nothing, whichever way the cut treats it: a write
// whose own value shows for one of its keys happened, so every key it
// wrote must show its value, or that of a write that may be ordered after
// it. Acknowledged writes in the cut are ordered by sequence. An
// indeterminate one (failed, or cut short by the crash; in a cut that
// holds every write it must follow) has no known sequence: it is ordered
// after every write that ended before it began and before every write
// that began after it ended, and either way with the writes it overlapped.
class AtomicityCheck {
 public:
  // admitted: the indeterminate writes the cut may hold.
  AtomicityCheck(const History& history, const Acked& acked, size_t cut,
                 const std::vector<IndeterminateWindow>& admitted, const CheckScope& scope,
                 const State& recovered)
      : history_(history), scope_(scope), recovered_(recovered), unreadable_(scope.unreadable) {
    for (size_t i = 0; i < cut; i++) Add(acked[i], /*indeterminate=*/false);
    for (const IndeterminateWindow& window : admitted) Add(window.write, /*indeterminate=*/true);
  }

  // Checks the writes the cut may or may not hold; on the first one
  // recovered in part, sets v->ok false and names its key.
  // every: check the writes the cut must hold too (when no cut matched,
  // a write recovered in part is why, whatever the cut would demand).
  void Check(RecoveryVerdict* v, bool every = false) const {
    for (size_t pos = 0; pos < units_.size(); pos++) {
      const Unit& unit = units_[pos];
      const bool optional = unit.indeterminate || MayBeMissing(*unit.write, scope_);
      if ((every || optional) && Happened(pos) && !Whole(pos, v)) return;
    }
  }

 private:
  struct Unit {
    const WriteRecord* write;
    bool indeterminate;
  };

  void Add(const WriteRecord* w, bool indeterminate) {
    for (const KeyOp& op : w->ops) {
      std::vector<size_t>& positions = by_key_[op.key];
      if (positions.empty() || positions.back() != units_.size())
        positions.push_back(units_.size());
    }
    units_.push_back(Unit{w, indeterminate});
  }

  // A value of the write, one neither the base nor another write gave the
  // key, shows it happened: a put's (workload values are unique, but a
  // WritePrepared rollback writes a key's old value again), or a delete's
  // absence (only as the write's last operation on the key) where the base
  // held the key and no other write of the whole history deletes it, so
  // that no cut explains the absence without this write.
  bool Happened(size_t pos) const {
    const WriteRecord& w = *units_[pos].write;
    for (size_t i = 0; i < w.ops.size(); i++) {
      const KeyOp& op = w.ops[i];
      if (unreadable_.count(op.key) != 0) continue;
      const bool rewritten_later =
          std::any_of(w.ops.begin() + static_cast<ptrdiff_t>(i) + 1, w.ops.end(),
                      [&op](const KeyOp& o) { return o.key == op.key; });
      if (!op.value.has_value() && rewritten_later) continue;
      if (ValueIn(recovered_, op.key) != op.value) continue;
      if (Contains(history_.BaseValues(op.key), op.value)) continue;
      const std::vector<size_t>& writers = by_key_.at(op.key);
      const bool copied = std::any_of(writers.begin(), writers.end(), [&](size_t other) {
        return other != pos && Gave(*units_[other].write, op.key, op.value);
      });
      if (!op.value.has_value() && DeletedElsewhere(w, op.key)) continue;
      if (!copied) return true;
    }
    return false;
  }

  // A write of the history other than w (in any cut or none) deletes key.
  bool DeletedElsewhere(const WriteRecord& w, const std::string& key) const {
    const std::vector<WriteRecord>& all = history_.writes();
    return std::any_of(all.begin(), all.end(), [&](const WriteRecord& other) {
      return &other != &w && Gave(other, key, Value());
    });
  }

  bool Whole(size_t pos, RecoveryVerdict* v) const {
    const WriteRecord& w = *units_[pos].write;
    std::map<std::string, Value> last;  // the write's final value per key
    for (const KeyOp& op : w.ops) last[op.key] = op.value;
    for (const auto& [key, value] : last) {
      if (unreadable_.count(key) != 0) continue;  // may hold the value: unknown
      const Value observed = ValueIn(recovered_, key);
      if (observed == value || LaterWriteGave(pos, key, observed)) continue;
      v->ok = false;
      v->property = "atomicity";
      v->key = key;
      v->expected = DescribeValue(value);
      v->observed = DescribeValue(observed);
      return false;
    }
    return true;
  }

  // May be ordered after units_[pos]. Two writes in the cut: by sequence.
  // With an indeterminate one (its sequence unknown): unless it ended
  // before the other began (real time), either order is possible.
  bool After(size_t other, size_t pos) const {
    if (other == pos) return false;
    if (!units_[pos].indeterminate && !units_[other].indeterminate) return other > pos;
    return units_[other].write->end_event > units_[pos].write->begin_event;
  }

  bool LaterWriteGave(size_t pos, const std::string& key, const Value& observed) const {
    for (size_t other : by_key_.at(key)) {
      if (After(other, pos) && Gave(*units_[other].write, key, observed)) return true;
    }
    return false;
  }

  const History& history_;
  const CheckScope& scope_;
  const State& recovered_;
  const std::set<std::string>& unreadable_;
  std::vector<Unit> units_;                            // the cut's order
  std::map<std::string, std::vector<size_t>> by_key_;  // key -> positions in units_
};

RecoveryVerdict Diagnose(const History& history, const Acked& acked, size_t floor,
                         const CheckScope& scope, const State& recovered) {
  const std::set<std::string>& unreadable = scope.unreadable;
  // Re-run to the full history; of the keys that break it, report the one
  // with the strongest evidence (ties: the smallest key). Where that is
  // only the order, a write that shows in part is named instead.
  CutWalk walk(history, acked, recovered, unreadable);
  for (walk.AdmitReady(); walk.cut() < acked.size(); walk.AdmitReady()) {
    walk.Step(MayBeMissing(*acked[walk.cut()], scope));
  }
  const CutTracker& full = walk.tracker();
  RecoveryVerdict v;
  v.ok = false;
  v.property = "prefix recovery";  // every key matches the full history only out of order
  Broken best = Broken::kPrefix;
  for (const std::string& key : full.bad_keys()) {
    const Broken b = Classify(history, acked, walk.windows(), floor, key, ValueIn(recovered, key));
    if (!v.key.empty() && b >= best) continue;
    best = b;
    v.key = key;
    v.property = BrokenName(b);
  }
  if (best == Broken::kPrefix) {
    // Out of order, or a write recovered in part (which no cut explains
    // either): the full history's atomicity check tells them apart.
    RecoveryVerdict partial;
    const AtomicityCheck atomicity(history, acked, acked.size(), walk.windows(), scope, recovered);
    atomicity.Check(&partial, /*every=*/true);
    if (!partial.ok) return partial;
  }
  if (v.key.empty()) return v;
  v.observed = DescribeValue(ValueIn(recovered, v.key));
  v.expected = DescribeValue(full.allowed(v.key).back());
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
    out +=
        (c >= 32 && c < 127) ? std::string(1, c) : "\\x" + std::to_string(static_cast<uint8_t>(c));
  }
  if (value->size() > 40) out += "...(" + std::to_string(value->size()) + " bytes)";
  return out;
}

std::string DescribeKeyOps(const std::vector<KeyOp>& ops) {
  std::string out;
  for (const KeyOp& op : ops) {
    if (!out.empty()) out += ", ";
    out += op.value ? "put " + op.key + "=" + DescribeValue(op.value) : "delete " + op.key;
  }
  return out;
}

RecoveryVerdict CheckRecovery(const History& history, const CheckScope& scope,
                              const State& recovered) {
  const bool process_crash = scope.process_crash;
  const std::set<std::string>& unreadable = scope.unreadable;
  const Acked acked = AckedBySequence(history);
  size_t floor = 0;  // the cut must include acked[0, floor)
  for (size_t i = 0; i < acked.size(); i++) {
    const bool logged_before_damage = acked[i]->sequence < scope.durable_below_sequence;
    const bool required = (scope.durability || logged_before_damage)
                              ? MustSurvive(*acked[i], process_crash)
                              : acked[i]->flushed;
    if (required) floor = i + 1;
  }
  CutWalk walk(history, acked, recovered, unreadable);
  RecoveryVerdict best;
  bool found = false;
  size_t admitted_at_best = 0;
  for (size_t k = 0; k <= acked.size(); k++) {
    walk.AdmitReady();
    if (k >= floor && walk.tracker().mismatches() == 0) {
      if (!found) best.min_cut = k;
      best.cut = k;
      admitted_at_best = walk.admitted();
      found = true;
      for (const std::string& key : unreadable)
        AddNew(walk.tracker().allowed(key), &best.unknown[key]);
    }
    if (k < acked.size()) walk.Step(MayBeMissing(*acked[k], scope));
  }
  if (!found) return Diagnose(history, acked, floor, scope, recovered);
  const std::vector<IndeterminateWindow> admitted(walk.windows().begin(),
                                                  walk.windows().begin() + admitted_at_best);
  const AtomicityCheck atomicity(history, acked, best.cut, admitted, scope, recovered);
  atomicity.Check(&best);
  return best;
}

}  // namespace shale::scenario
