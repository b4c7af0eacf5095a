// The differential operation log. See diff_log.h.
#include "scenarios/diff/diff_log.h"

#include <algorithm>
#include <cassert>
#include <set>

#include "absl/strings/str_cat.h"

namespace shale::scenario {

namespace {

using Kind = DiffOp::Kind;

// Relative weights of the op kinds, in Kind order.
constexpr uint64_t kWeights[] = {30, 10, 10, 4, 3, 20, 12, 3, 2, 2};

struct LogState {
  sim::ChoiceTape* tape = nullptr;
  uint64_t key_space = 0;
  int op_index = 0;
  int next_snapshot = 0;
  std::vector<int> live;  // snapshot ids, oldest first
};

// "k" and four digits; one in eight cut to three digits (a prefix of ten
// keys), one in eight extended past the four (a key with a prefix).
std::string DrawKey(LogState* s) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%04llu",
                static_cast<unsigned long long>(s->tape->Uniform(s->key_space)));
  std::string key = buf;
  switch (s->tape->Uniform(8)) {
    case 1:
      key.pop_back();
      break;
    case 2:
      key += s->tape->OneIn(2) ? "a" : ".z";
      break;
    default:
      break;
  }
  return key;
}

// Values of 0 to ~300 bytes, some past a small block size; one in sixteen
// empty (found, unlike a deleted key).
std::string DrawValue(LogState* s) {
  if (s->tape->OneIn(16)) return "";
  std::string v = absl::StrCat("v", s->op_index, ".");
  const uint64_t pad = s->tape->OneIn(8) ? 100 + s->tape->Uniform(200) : s->tape->Uniform(24);
  v.append(static_cast<size_t>(pad), static_cast<char>('a' + s->op_index % 26));
  return v;
}

int DrawLiveSnapshot(LogState* s) {
  if (s->live.empty() || s->tape->OneIn(2)) return -1;
  return s->live[s->tape->Uniform(s->live.size())];
}

Kind DrawKind(sim::ChoiceTape* tape) {
  uint64_t total = 0;
  for (uint64_t w : kWeights) total += w;
  uint64_t pick = tape->Uniform(total);
  for (size_t i = 0; i < std::size(kWeights); i++) {
    if (pick < kWeights[i]) return static_cast<Kind>(i);
    pick -= kWeights[i];
  }
  return Kind::kGet;
}

void FillIterate(LogState* s, DiffOp* op) {
  op->snapshot = DrawLiveSnapshot(s);
  op->seek = static_cast<DiffOp::Seek>(s->tape->Uniform(4));
  op->key = DrawKey(s);
  op->forward = s->tape->OneIn(2);
  op->steps = static_cast<int>(s->tape->Uniform(20));
  if (s->tape->OneIn(3)) op->turn_after = static_cast<int>(s->tape->Uniform(op->steps + 1));
}

void FillCompact(LogState* s, DiffOp* op) {
  if (s->tape->OneIn(3)) return;  // the whole key space
  std::string a = DrawKey(s), b = DrawKey(s);
  if (b < a) std::swap(a, b);
  op->key = a;
  op->end = b;
}

}  // namespace

std::vector<DiffOp> GenerateDiffLog(sim::ChoiceTape* tape, int n) {
  assert(n >= 1 && n <= kMaxDiffOps);
  LogState s;
  s.tape = tape;
  s.key_space = 20 + tape->Uniform(400);
  std::vector<DiffOp> ops;
  for (s.op_index = 0; s.op_index < n; s.op_index++) {
    tape->MarkOperation();  // where this op's draws start, for `shale shrink`
    DiffOp op;
    op.kind = DrawKind(tape);
    switch (op.kind) {
      case Kind::kPut:
        op.key = DrawKey(&s);
        op.value = DrawValue(&s);
        break;
      case Kind::kDelete:
        op.key = DrawKey(&s);
        break;
      case Kind::kWrite:
        for (uint64_t i = 0, m = 1 + tape->Uniform(8); i < m; i++) {
          DiffOp::BatchEntry e{DrawKey(&s), tape->OneIn(3), ""};
          if (!e.is_delete) e.value = DrawValue(&s);
          op.batch.push_back(e);
        }
        break;
      case Kind::kSnapshot:
        op.snapshot = s.next_snapshot++;
        s.live.push_back(op.snapshot);
        break;
      case Kind::kRelease:
        if (s.live.empty()) continue;
        op.snapshot = s.live[tape->Uniform(s.live.size())];
        s.live.erase(std::find(s.live.begin(), s.live.end(), op.snapshot));
        break;
      case Kind::kGet:
        op.key = DrawKey(&s);
        op.snapshot = DrawLiveSnapshot(&s);
        break;
      case Kind::kIterate:
        FillIterate(&s, &op);
        break;
      case Kind::kCompact:
        FillCompact(&s, &op);
        break;
      case Kind::kReopen:
        s.live.clear();  // a reopen ends every snapshot
        break;
      case Kind::kFlush:
        break;
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

std::vector<DiffOp> ValidSubLog(const std::vector<DiffOp>& ops) {
  std::set<int> live;
  std::vector<DiffOp> out;
  for (const DiffOp& op : ops) {
    switch (op.kind) {
      case Kind::kSnapshot:
        live.insert(op.snapshot);
        break;
      case Kind::kRelease:
        if (live.erase(op.snapshot) == 0) continue;
        break;
      case Kind::kGet:
      case Kind::kIterate:
        if (op.snapshot >= 0 && live.count(op.snapshot) == 0) continue;
        break;
      case Kind::kReopen:
        live.clear();
        break;
      default:
        break;
    }
    out.push_back(op);
  }
  return out;
}

namespace {

std::string ShowValue(const std::string& v) {
  if (v.size() <= 24) return v;
  return absl::StrCat(v.substr(0, 16), "..(", v.size(), " bytes)");
}

// "5 x Next", or "2 x Next, 3 x Prev" for an iterator that turns back.
std::string Moves(const DiffOp& op) {
  const char* first = op.forward ? " x Next" : " x Prev";
  if (op.turn_after < 0) return absl::StrCat(op.steps, first);
  return absl::StrCat(op.turn_after, first, ", ", op.steps - op.turn_after,
                      op.forward ? " x Prev" : " x Next");
}

std::string AtSnapshot(int snapshot) {
  return snapshot < 0 ? "" : absl::StrCat(" at snapshot ", snapshot);
}

}  // namespace

std::string DescribeDiffOp(const DiffOp& op) {
  static const char* const kSeekNames[] = {"SeekToFirst", "SeekToLast", "Seek", "SeekForPrev"};
  switch (op.kind) {
    case Kind::kPut:
      return absl::StrCat("put ", op.key, " = ", ShowValue(op.value));
    case Kind::kDelete:
      return absl::StrCat("delete ", op.key);
    case Kind::kWrite: {
      std::string s = "write batch {";
      for (const DiffOp::BatchEntry& e : op.batch) {
        absl::StrAppend(
            &s, " ", e.is_delete ? "delete " + e.key : "put " + e.key + " = " + ShowValue(e.value),
            ";");
      }
      return s + " }";
    }
    case Kind::kSnapshot:
      return absl::StrCat("take snapshot ", op.snapshot);
    case Kind::kRelease:
      return absl::StrCat("release snapshot ", op.snapshot);
    case Kind::kGet:
      return absl::StrCat("get ", op.key, AtSnapshot(op.snapshot));
    case Kind::kIterate: {
      const bool keyed = op.seek == DiffOp::Seek::kSeek || op.seek == DiffOp::Seek::kSeekForPrev;
      return absl::StrCat("iterate", AtSnapshot(op.snapshot), ": ",
                          kSeekNames[static_cast<int>(op.seek)], keyed ? "(" + op.key + ")" : "",
                          " then ", Moves(op));
    }
    case Kind::kFlush:
      return "flush";
    case Kind::kCompact:
      return op.key.empty() && op.end.empty()
                 ? "compact everything"
                 : absl::StrCat("compact [", op.key, ", ", op.end, "]");
    case Kind::kReopen:
      return "close and reopen";
  }
  return "?";
}

}  // namespace shale::scenario
