// Reads at a snapshot, as plans that run the same way on the engine and on
// the model (SnapshotModel), so their answers compare position by position
// and a read can be repeated exactly later.
//
// A plan is a point Get, or an iteration: one positioning call (SeekToFirst,
// SeekToLast, Seek, SeekForPrev) and then a list of Next/Prev moves, which
// may switch direction. The answer lists the iterator's position after the
// positioning call and after each move, and ends at the first invalid
// position (remaining moves are not made). A Get's answer is one position:
// valid with the value, or invalid (NotFound).
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/snapshot/snapshot_model.h"
#include "shale/db.h"
#include "shale/env.h"

namespace shale::scenario {

struct ReadPlan {
  enum class Kind : uint8_t { kGet, kFirst, kLast, kSeek, kSeekForPrev };
  Kind kind = Kind::kGet;
  std::string key;          // kGet, kSeek, kSeekForPrev
  std::vector<bool> moves;  // true: Next, false: Prev
  bool is_get() const { return kind == Kind::kGet; }
};

struct Position {
  bool valid = false;
  std::string key;
  std::string value;
  bool operator==(const Position& o) const {
    return valid == o.valid && (!valid || (key == o.key && value == o.value));
  }
  bool operator!=(const Position& o) const { return !(*this == o); }
};
using Answer = std::vector<Position>;

// Runs plan on db at snapshot (yielding now and then mid-iteration so other
// tasks interleave). Returns the first error (NotFound of a Get is not one);
// *engine_ops counts each Get, seek and move.
[[nodiscard]] Status ReadEngine(DB* db, const Snapshot* snapshot, Runtime* runtime,
                                const ReadPlan& plan, Answer* answer, uint64_t* engine_ops);
// The same plan on the model's state at seq.
Answer ReadModel(const SnapshotModel& model, uint64_t seq, const ReadPlan& plan);

// Where two answers first differ, for a failure report.
struct Mismatch {
  bool found = false;
  size_t position = 0;   // index into the answers
  std::string key;       // the expected position's key (else the observed one's)
  std::string expected;  // a rendering of the position (value, or "<end>" / "<absent>")
  std::string observed;
};
Mismatch Compare(const ReadPlan& plan, const Answer& expected, const Answer& observed);

// One line: "Get key000012" or "Seek(key000040) then 9 moves (Next x5, Prev x4)".
std::string DescribePlan(const ReadPlan& plan);

}  // namespace shale::scenario
