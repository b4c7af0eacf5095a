#include "scenarios/snapshot/snapshot_reads.h"

#include <algorithm>
#include <memory>

#include "scenarios/oracle/recovery_check.h"

namespace shale::scenario {

namespace {

constexpr size_t kYieldEveryMoves = 8;

template <typename Cursor>
void Position0(Cursor* c, const ReadPlan& plan) {
  switch (plan.kind) {
    case ReadPlan::Kind::kFirst:
      return c->SeekToFirst();
    case ReadPlan::Kind::kLast:
      return c->SeekToLast();
    case ReadPlan::Kind::kSeek:
      return c->Seek(plan.key);
    case ReadPlan::Kind::kSeekForPrev:
      return c->SeekForPrev(plan.key);
    case ReadPlan::Kind::kGet:
      break;
  }
}

std::string DescribePosition(const ReadPlan& plan, const Position& p) {
  if (plan.is_get()) return DescribeValue(p.valid ? Value(p.value) : Value());
  if (!p.valid) return "<end of iteration>";
  return p.key + " = " + DescribeValue(Value(p.value));
}

}  // namespace

Status ReadEngine(DB* db, const Snapshot* snapshot, Runtime* runtime, const ReadPlan& plan,
                  Answer* answer, uint64_t* engine_ops) {
  answer->clear();
  ReadOptions ro;
  ro.snapshot = snapshot;
  if (plan.is_get()) {
    Position p;
    p.key = plan.key;
    const Status s = db->Get(ro, plan.key, &p.value);
    ++*engine_ops;
    if (!s.ok() && !s.IsNotFound()) return s;
    p.valid = s.ok();
    if (!p.valid) p.value.clear();
    answer->push_back(std::move(p));
    return Status::OK();
  }
  std::unique_ptr<Iterator> it(db->NewIterator(ro));
  Position0(it.get(), plan);
  ++*engine_ops;
  for (size_t i = 0;; i++) {
    if (!it->status().ok()) return it->status();
    Position p;
    p.valid = it->Valid();
    if (p.valid) {
      p.key = it->key().ToString();
      p.value = it->value().ToString();
    }
    answer->push_back(std::move(p));
    if (!answer->back().valid || i == plan.moves.size()) break;
    plan.moves[i] ? it->Next() : it->Prev();
    ++*engine_ops;
    // A long iteration lets writers, flushes and compactions run under it.
    if (i % kYieldEveryMoves == kYieldEveryMoves - 1) runtime->YieldPoint("snapshot.iterate");
  }
  return Status::OK();
}

Answer ReadModel(const SnapshotModel& model, uint64_t seq, const ReadPlan& plan) {
  Answer answer;
  if (plan.is_get()) {
    Position p;
    p.key = plan.key;
    const std::string* v = model.ValueAt(plan.key, seq);
    p.valid = v != nullptr;
    if (p.valid) p.value = *v;
    answer.push_back(std::move(p));
    return answer;
  }
  ModelCursor c(&model, seq);
  Position0(&c, plan);
  for (size_t i = 0;; i++) {
    Position p;
    p.valid = c.Valid();
    if (p.valid) {
      p.key = c.key();
      p.value = c.value();
    }
    answer.push_back(std::move(p));
    if (!answer.back().valid || i == plan.moves.size()) break;
    plan.moves[i] ? c.Next() : c.Prev();
  }
  return answer;
}

Mismatch Compare(const ReadPlan& plan, const Answer& expected, const Answer& observed) {
  Mismatch m;
  const size_t n = std::max(expected.size(), observed.size());
  for (size_t i = 0; i < n; i++) {
    const Position none;
    const Position& e = i < expected.size() ? expected[i] : none;
    const Position& o = i < observed.size() ? observed[i] : none;
    if (e == o) continue;
    m.found = true;
    m.position = i;
    m.key = e.valid || plan.is_get() ? e.key : o.key;
    m.expected = DescribePosition(plan, e);
    m.observed = DescribePosition(plan, o);
    return m;
  }
  return m;
}

std::string DescribePlan(const ReadPlan& plan) {
  using Kind = ReadPlan::Kind;
  if (plan.kind == Kind::kGet) return "Get(" + plan.key + ")";
  std::string out = plan.kind == Kind::kFirst  ? "SeekToFirst()"
                    : plan.kind == Kind::kLast ? "SeekToLast()"
                    : plan.kind == Kind::kSeek ? "Seek(" + plan.key + ")"
                                               : "SeekForPrev(" + plan.key + ")";
  const size_t nexts = static_cast<size_t>(std::count(plan.moves.begin(), plan.moves.end(), true));
  out += " then up to " + std::to_string(plan.moves.size()) + " moves (Next x" +
         std::to_string(nexts) + ", Prev x" + std::to_string(plan.moves.size() - nexts) + ")";
  return out;
}

}  // namespace shale::scenario
