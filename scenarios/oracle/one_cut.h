// Batch atomicity of one read: every value an iterator returns, and every
// key it passes over, comes from one snapshot, so one sequence must explain
// them all.
//
// Thread safety: none (reads a History the caller does not change meanwhile).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "scenarios/oracle/history.h"

namespace shale::scenario {

// One key's value as a read saw it (nullopt: absent, passed over).
using KeyObservation = std::pair<std::string, Value>;

// True if some sequence s explains every observation: at s, by the
// acknowledged writes in sequence order, each key held the value observed.
// A key constrains s only where the acknowledged writes pin it down: a key
// whose observed value a pending or failed write (whose sequence is
// unknown) or an unknown base value may explain, whose writes' snapshot
// order differs from their log order, or one of whose acknowledged writes
// became visible at a sequence not known, constrains nothing. Indeterminate
// writes can only narrow the sequences at which a value held, so a false
// answer is a contradiction whatever they did: no false alarms. Under
// ReadVisibility::kPerKey (readers may see part of a batch) it is true.
// A write not yet acknowledged (its sequence unknown) that alone explains
// one key's value must show on every key of it the read saw, unless a
// write not known to precede it explains that key's value.
// On false, *key names a key whose value no sequence that explains the
// most other keys can give.
bool OneCutExplains(const History& history, const std::vector<KeyObservation>& observed,
                    std::string* key);

}  // namespace shale::scenario
