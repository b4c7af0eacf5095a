#include "scenarios/oracle/cut_tracker.h"

#include <algorithm>
#include <utility>

namespace shale::scenario {

namespace {

using Acked = std::vector<const WriteRecord*>;
using EventIndex = std::pair<uint64_t, size_t>;  // (event, index in acked)

// (end event, 1 + the highest index of a write ended by then), by event.
std::vector<EventIndex> EndedPrefix(const Acked& acked) {
  std::vector<EventIndex> ends;
  for (size_t i = 0; i < acked.size(); i++) ends.emplace_back(acked[i]->end_event, i);
  std::sort(ends.begin(), ends.end());
  size_t highest_end = 0;
  for (EventIndex& e : ends) {
    highest_end = std::max(highest_end, e.second + 1);
    e.second = highest_end;
  }
  return ends;
}

// (begin event, the lowest index of a write begun then or later), by event.
std::vector<EventIndex> BegunSuffix(const Acked& acked) {
  std::vector<EventIndex> begins;
  for (size_t i = 0; i < acked.size(); i++) begins.emplace_back(acked[i]->begin_event, i);
  std::sort(begins.begin(), begins.end());
  size_t lowest = acked.size();
  for (size_t j = begins.size(); j-- > 0;) {
    lowest = std::min(lowest, begins[j].second);
    begins[j].second = lowest;
  }
  return begins;
}

}  // namespace

std::vector<IndeterminateWindow> IndeterminateWindows(const History& history, const Acked& acked) {
  const std::vector<EventIndex> ended = EndedPrefix(acked);
  const std::vector<EventIndex> begun = BegunSuffix(acked);
  std::vector<IndeterminateWindow> windows;
  for (const WriteRecord& w : history.writes()) {
    if (w.outcome != WriteRecord::Outcome::kFailed) continue;
    IndeterminateWindow window{&w, 0, acked.size()};
    // The acknowledged writes that ended before w began precede it.
    auto e = std::lower_bound(ended.begin(), ended.end(), EventIndex{w.begin_event, 0});
    if (e != ended.begin()) window.earliest = std::prev(e)->second;
    // Those that began after it ended follow it.
    auto b = std::upper_bound(begun.begin(), begun.end(), EventIndex{w.end_event, acked.size()});
    if (b != begun.end()) window.bound = b->second;
    windows.push_back(window);
  }
  std::stable_sort(windows.begin(), windows.end(),
                   [](const IndeterminateWindow& a, const IndeterminateWindow& b) {
                     return a.earliest < b.earliest;
                   });
  return windows;
}

CutTracker::CutTracker(const History& history, const State& recovered,
                       const std::set<std::string>& unreadable) {
  for (const std::string& k : unreadable) slots_[k].unreadable = true;
  for (const auto& [k, v] : history.base()) slots_[k];
  for (const auto& [k, v] : history.base_unknown()) slots_[k];
  for (const auto& [k, v] : recovered) slots_[k].recovered = v;
  for (auto& [k, slot] : slots_) {
    slot.base = history.BaseValues(k);
    for (const Value& v : slot.base) slot.allowed.push_back(&v);
    Recount(&slot);
  }
}

CutTracker::Slot& CutTracker::SlotFor(const std::string& key) {
  auto [it, added] = slots_.try_emplace(key);
  Slot& slot = it->second;
  if (added) {  // a key neither the base nor the recovered state holds
    slot.base.assign(1, Value());
    slot.allowed.push_back(&slot.base.front());
  }
  return slot;
}

void CutTracker::Apply(const WriteRecord& w, size_t index, bool optional) {
  for (const KeyOp& op : w.ops) {
    Slot& slot = SlotFor(op.key);
    if (!optional) {
      slot.allowed.clear();
      slot.definite_end = index + 1;
    }
    slot.allowed.push_back(&op.value);
    if (!optional) {
      for (const Pending& p : slot.admitted) {
        if (index < p.bound) slot.allowed.push_back(p.value);
      }
    }
    Recount(&slot);
  }
}

void CutTracker::Admit(const IndeterminateWindow& window) {
  for (const KeyOp& op : window.write->ops) {
    Slot& slot = SlotFor(op.key);
    slot.admitted.push_back(Pending{&op.value, window.bound});
    if (slot.definite_end <= window.bound) slot.allowed.push_back(&op.value);
    Recount(&slot);
  }
}

std::vector<std::string> CutTracker::bad_keys() const {
  std::vector<std::string> keys;
  for (const auto& [k, slot] : slots_) {
    if (slot.bad) keys.push_back(k);
  }
  return keys;
}

std::vector<Value> CutTracker::allowed(const std::string& key) const {
  std::vector<Value> values;
  for (const Value* v : slots_.at(key).allowed) values.push_back(*v);
  return values;
}

void CutTracker::Recount(Slot* slot) {
  const bool bad =
      !slot->unreadable && std::none_of(slot->allowed.begin(), slot->allowed.end(),
                                        [slot](const Value* v) { return *v == slot->recovered; });
  bad_count_ += static_cast<size_t>(bad) - static_cast<size_t>(slot->bad);
  slot->bad = bad;
}

CutWalk::CutWalk(const History& history, const Acked& acked, const State& recovered,
                 const std::set<std::string>& unreadable)
    : acked_(acked),
      tracker_(history, recovered, unreadable),
      windows_(IndeterminateWindows(history, acked)) {}

void CutWalk::AdmitReady() {
  while (admitted_ < windows_.size() && windows_[admitted_].earliest <= cut_) {
    tracker_.Admit(windows_[admitted_++]);
  }
}

void CutWalk::Step(bool optional) {
  tracker_.Apply(*acked_[cut_], cut_, optional);
  cut_++;
}

}  // namespace shale::scenario
