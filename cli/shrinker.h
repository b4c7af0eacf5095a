// Shrinker: cuts a failing run down to a small run that fails the same
// property, by editing its choice tape (sim/choice_tape.h) and its config.
//
// The order is shortlex over (workload operations, crashes, tape length,
// tape bytes): an edit is kept only if the run it gives still fails with
// the same property and is smaller in that order. After each kept edit the
// tape is cut to the bytes the run read, so it stays self-contained. The
// passes, repeated until a round keeps nothing (and more small new runs
// find nothing either) or time runs out:
//   * structural: fewer crashes, I/O faults off, the uniform scheduler,
//     a lower operation limit (halving from what the run did);
//   * small new runs: tapes at operation limits 4, 8, 16, ..., half of
//     them fresh seeds' tapes and half the smallest run's opening draws
//     (its options and setup) followed by new bytes, about as much time
//     at each limit (within 60% of the time limit and a cap on runs);
//   * on the tape, as Hypothesis shrinks choice sequences: zero the tape
//     from a point on (binary search); delete whole operations (16, 4, 1
//     at a time, from the operation marks the run recorded, so the draws
//     after them stay whole); stop a client before an operation (zero its
//     "one more?" draw); delete spans (256 ... 1 bytes, from the end),
//     zero spans, and lower single bytes (binary search toward zero).
//     Zero is every draw's default choice, so these stop clients early,
//     skip crashes and faults and pick first tasks.
//
// Thread safety: runs the scenario in this thread; one Shrink at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "scenarios/scenario.h"

namespace shale::cli {

struct ShrinkProgress {
  double seconds = 0;
  uint64_t runs = 0;
  uint64_t ops = 0;         // of the smallest failing run so far
  uint64_t tape_bytes = 0;  // its tape
};

struct ShrinkOptions {
  double max_seconds = 60;  // time limit (a run in progress finishes)
  // Called about once a second; may be null.
  std::function<void(const ShrinkProgress&)> progress;
};

struct ShrinkOutcome {
  scenario::RunConfig original;  // with its tape
  scenario::RunResult original_result;
  scenario::RunConfig shrunk;  // with its tape; trace off
  scenario::RunResult shrunk_result;
  uint64_t runs = 0;  // scenario runs made
  double seconds = 0;
};

// Shrinks config's failure. config may carry a tape; if not, the seed's
// tape is used. False with one line in *error if config's run passes.
// REQUIRES: config.scenario is registered.
[[nodiscard]] bool Shrink(const scenario::RunConfig& config, const ShrinkOptions& options,
                          ShrinkOutcome* outcome, std::string* error);

}  // namespace shale::cli
