// Cutting a differing log down: the shortest sub-log (in the greedy,
// delta-debugging sense) on which two runs still answer differently.
//
// Thread safety: pure, apart from what differs() does.
#pragma once

#include <functional>
#include <vector>

#include "scenarios/diff/diff_log.h"

namespace shale::scenario {

// differs(log) reruns both sides on log (always a ValidSubLog) and says
// whether their answers still differ. REQUIRES: differs(ops) is true.
// Tries at most max_runs candidate logs. Returns a log on which differs
// is true, no longer than ops; no single op can be dropped from it unless
// max_runs ran out.
std::vector<DiffOp> ShrinkDiffLog(const std::vector<DiffOp>& ops,
                                  const std::function<bool(const std::vector<DiffOp>&)>& differs,
                                  int max_runs);

}  // namespace shale::scenario
