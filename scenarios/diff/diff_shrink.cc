// ShrinkDiffLog: chunk removal, halving the chunk until single ops. See
// diff_shrink.h.
#include "scenarios/diff/diff_shrink.h"

#include <algorithm>
#include <cstddef>

namespace shale::scenario {

std::vector<DiffOp> ShrinkDiffLog(const std::vector<DiffOp>& ops,
                                  const std::function<bool(const std::vector<DiffOp>&)>& differs,
                                  int max_runs) {
  std::vector<DiffOp> best = ops;
  int runs = 0;
  for (size_t chunk = std::max<size_t>(1, best.size() / 2); runs < max_runs;) {
    bool removed = false;
    for (size_t start = 0; start < best.size() && runs < max_runs;) {
      std::vector<DiffOp> candidate(best.begin(),
                                    best.begin() + static_cast<std::ptrdiff_t>(start));
      const size_t stop = std::min(best.size(), start + chunk);
      candidate.insert(candidate.end(), best.begin() + static_cast<std::ptrdiff_t>(stop),
                       best.end());
      candidate = ValidSubLog(candidate);
      runs++;
      if (candidate.size() < best.size() && differs(candidate)) {
        best = std::move(candidate);
        removed = true;
      } else {
        start += chunk;
      }
    }
    if (!removed) {
      if (chunk == 1) break;
      chunk = std::max<size_t>(1, chunk / 2);
    }
  }
  return best;
}

}  // namespace shale::scenario
