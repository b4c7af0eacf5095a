#include "scenarios/snapshot/snapshot_clients.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

#include "scenarios/oracle/recovery_check.h"

namespace shale::scenario {

namespace {

// Flush, where the engine has one (else CompactRange does its flushing).
Status FlushIfOffered(DB* db, const SnapshotWorkloadOptions& o) {
  return o.offers.flush ? db->Flush(FlushOptions()) : Status::OK();
}

int PickKey(sim::ChoiceTape* rng, const SnapshotWorkloadOptions& o) {
  const uint64_t n = static_cast<uint64_t>(o.key_space);
  if (!o.skewed_keys) return static_cast<int>(rng->Uniform(n));
  return static_cast<int>(rng->Skewed(10) % n);
}

class Writer {
 public:
  Writer(SnapshotState* state, const SnapshotWorkloadOptions& options, sim::ChoiceTape* tape,
         int id)
      : s_(state), o_(options), rng_(tape), id_(id) {}

  void Run(int ops) {
    for (int i = 0; i < ops && !s_->failed() && MoreOps(rng_); i++) {
      op_index_ = i;
      Step(i);
      s_->NoteWriterOp();
      s_->DrainDeferred();
    }
  }

 private:
  // The mix, per mille: mostly writes; client flushes and compactions now
  // and then, on top of the background ones the tiny buffers cause.
  void Step(int i) {
    const uint64_t pick = rng_->Uniform(1000);
    if (pick < 570) return Write(i, 1, /*deletes=*/false);
    if (pick < 710) return Write(i, 1, /*deletes=*/true);
    if (pick < 988) {
      const int n = 2 + static_cast<int>(rng_->Uniform(static_cast<uint64_t>(o_.max_batch - 1)));
      return Write(i, n, rng_->OneIn(2));
    }
    if (pick < 996) return Flush();
    return Compact(/*everything=*/pick >= 999);
  }

  void Write(int i, int n, bool deletes) {
    std::vector<KeyOp> ops;
    WriteBatch wb;
    for (int j = 0; j < n; j++) {
      const std::string key = SnapshotKeyName(PickKey(rng_, o_));
      if (deletes && (n == 1 || rng_->OneIn(4))) {
        wb.Delete(key);
        ops.push_back(KeyOp{key, std::nullopt});
      } else {
        std::string v = absl::StrCat("w", id_, ".", i, ".", j, ".");
        v.resize(v.size() + rng_->Uniform(static_cast<uint64_t>(o_.value_bytes_max) + 1),
                 static_cast<char>('a' + (i + j) % 26));
        wb.Put(key, v);
        ops.push_back(KeyOp{key, std::move(v)});
      }
    }
    WriteOptions wo;
    wo.sync = rng_->OneIn(static_cast<uint64_t>(o_.sync_one_in));
    // Drawn whether or not the engine can skip its log, so the tape stays.
    wo.disable_wal =
        !wo.sync && rng_->OneIn(static_cast<uint64_t>(o_.no_wal_one_in)) && o_.offers.skip_wal;
    SnapshotModel* model = s_->model();
    const uint64_t id = model->BeginWrite();
    const Status st = s_->db()->Write(wo, &wb);
    model->EndWrite(id, st, ops, wb.Sequence());
    s_->counters()->engine_ops += static_cast<uint64_t>(n);
    if (s_->telling()) {
      Tell(absl::StrCat(n > 1 ? "batch " : "write ", DescribeKeyOps(ops), wo.sync ? " (sync)" : "",
                        wo.disable_wal ? " (no WAL)" : "", " -> ", st.ToString()));
    }
    s_->CheckStatus(st, "Write");
  }

  void Flush() {
    s_->counters()->engine_ops++;
    const Status st = FlushIfOffered(s_->db(), o_);
    if (s_->telling()) Tell("flush -> " + st.ToString());
    s_->CheckStatus(st, "Flush");
  }

  void Compact(bool everything) {
    std::string a = SnapshotKeyName(PickKey(rng_, o_));
    std::string b = SnapshotKeyName(PickKey(rng_, o_));
    if (b < a) std::swap(a, b);
    const Slice lo(a), hi(b);
    s_->counters()->engine_ops++;
    const Status st = everything ? s_->db()->CompactRange(CompactRangeOptions(), nullptr, nullptr)
                                 : s_->db()->CompactRange(CompactRangeOptions(), &lo, &hi);
    if (s_->telling()) {
      Tell(everything ? "compact all -> " + st.ToString()
                      : absl::StrCat("compact [", a, ", ", b, "] -> ", st.ToString()));
    }
    s_->CheckStatus(st, "CompactRange");
  }

  void Tell(const std::string& what) {
    s_->Tell(absl::StrCat("writer", id_, " op ", op_index_, ": ", what));
  }

  SnapshotState* const s_;
  const SnapshotWorkloadOptions o_;
  sim::ChoiceTape* const rng_;
  const int id_;
  int op_index_ = 0;  // of the operation running (story lines)
};

class Reader {
 public:
  static constexpr int kBurst = 4;

  Reader(SnapshotState* state, const SnapshotWorkloadOptions& options, sim::ChoiceTape* tape,
         int id)
      : s_(state), o_(options), rng_(tape), id_(id) {}

  void Run(int ops, std::vector<HeldSnapshot>* survivors) {
    for (int i = 0; i < ops && !s_->failed() && MoreOps(rng_); i++) {
      // Paced in bursts of kBurst operations: a wait costs scheduling points.
      if (i % kBurst == 0) {
        s_->WaitForWriterOps(
            id_, o_.writer_ops_total * static_cast<uint64_t>(i) / static_cast<uint64_t>(ops));
      }
      op_index_ = i;
      Step();
      s_->counters()->reader_ops++;
      s_->DrainDeferred();
    }
    for (HeldSnapshot& h : held_) survivors->push_back(std::move(h));
    held_.clear();
  }

 private:
  void Step() {
    if (held_.empty() || (held_.size() < static_cast<size_t>(o_.max_held) && rng_->OneIn(5))) {
      return TakeAndRead();
    }
    const size_t index = rng_->Uniform(held_.size());
    HeldSnapshot* h = &held_[index];
    const uint64_t pick = rng_->Uniform(100);
    if (pick < 50 || h->reads.empty()) return ReadNew(h, DrawPlan());
    if (pick < 85) return Repeat(h, rng_->Uniform(h->reads.size()));
    if (pick < 86) return CompactUnder(h);
    if (h->long_lived) return Repeat(h, rng_->Uniform(h->reads.size()));
    Tell(absl::StrCat("release snapshot #", h->id));
    s_->Release(h);
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  // Reads at once after taking the snapshot: writes may still be in flight
  // below its sequence, so this is where the model's comparison waits.
  void TakeAndRead() {
    held_.push_back(s_->Take());
    // Held to the end: a third of them, never one of the empty DB (taken
    // before any write, it would only ever read nothing).
    held_.back().long_lived = rng_->OneIn(3) && held_.back().sequence > 0;
    ReadNew(&held_.back(), DrawPlan());
  }

  void ReadNew(HeldSnapshot* h, const ReadPlan& plan) {
    if (s_->telling()) {
      Tell(absl::StrCat("read at snapshot #", h->id, ": ", DescribePlan(plan)));
    }
    s_->ReadNew(h, plan, o_.max_kept_reads);
  }

  void Repeat(HeldSnapshot* h, size_t i) {
    if (s_->telling()) {
      Tell(absl::StrCat("repeat read ", i, " at snapshot #", h->id, ": ",
                        DescribePlan(h->reads[i].plan)));
    }
    s_->Repeat(h, i);
  }

  static std::string DescribePlan(const ReadPlan& plan) {
    using Kind = ReadPlan::Kind;
    const char* kind = plan.kind == Kind::kGet     ? "get "
                       : plan.kind == Kind::kFirst ? "scan from first"
                       : plan.kind == Kind::kLast  ? "scan from last"
                       : plan.kind == Kind::kSeek  ? "seek "
                                                   : "seek-for-prev ";
    return absl::StrCat(kind, plan.key, plan.moves.empty() ? "" : ", ", plan.moves.size(),
                        plan.moves.empty() ? "" : " moves");
  }

  void Tell(const std::string& what) {
    s_->Tell(absl::StrCat("reader", id_, " op ", op_index_, ": ", what));
  }

  ReadPlan DrawPlan() {
    using Kind = ReadPlan::Kind;
    ReadPlan plan;
    const uint64_t pick = rng_->Uniform(100);
    plan.kind = pick < 65   ? Kind::kGet
                : pick < 66 ? Kind::kFirst
                : pick < 67 ? Kind::kLast
                : pick < 84 ? Kind::kSeek
                            : Kind::kSeekForPrev;
    if (plan.kind != Kind::kFirst && plan.kind != Kind::kLast) {
      plan.key = SnapshotKeyName(PickKey(rng_, o_));
      // Sometimes a target between two keys.
      if (plan.kind != Kind::kGet && rng_->OneIn(4)) plan.key += "~";
    }
    if (plan.kind == Kind::kGet) return plan;
    const bool forward = plan.kind == Kind::kFirst || plan.kind == Kind::kSeek;
    // Full iterations from either end; bounded ones elsewhere, a third of
    // them switching direction partway.
    const size_t n = plan.kind == Kind::kFirst || plan.kind == Kind::kLast
                         ? static_cast<size_t>(o_.key_space) + 1
                         : 1 + rng_->Uniform(static_cast<uint64_t>(o_.scan_moves_max));
    const size_t turn = rng_->OneIn(3) ? rng_->Uniform(n) : n;
    for (size_t i = 0; i < n; i++) plan.moves.push_back(i < turn ? forward : !forward);
    return plan;
  }

  // Flushes and compacts exactly the range a kept read covered (the
  // versions it needs are what a compaction could wrongly drop), then
  // repeats the read.
  void CompactUnder(HeldSnapshot* h) {
    const size_t i = rng_->Uniform(h->reads.size());
    const HeldSnapshot::Read& read = h->reads[i];
    std::string lo = read.plan.key, hi = read.plan.key;
    for (const Position& p : read.first) {
      if (!p.valid) continue;
      if (lo.empty() || p.key < lo) lo = p.key;
      if (p.key > hi) hi = p.key;
    }
    const Slice lo_key(lo), hi_key(hi);
    Status st = FlushIfOffered(s_->db(), o_);
    if (st.ok()) {
      st = lo.empty() ? s_->db()->CompactRange(CompactRangeOptions(), nullptr, nullptr)
                      : s_->db()->CompactRange(CompactRangeOptions(), &lo_key, &hi_key);
    }
    s_->counters()->engine_ops += 2;
    if (s_->telling()) {
      Tell(absl::StrCat("flush and compact under snapshot #", h->id, " -> ", st.ToString()));
    }
    if (!st.ok()) return s_->CheckStatus(st, "Flush/CompactRange under a snapshot");
    Repeat(h, i);
  }

  SnapshotState* const s_;
  const SnapshotWorkloadOptions o_;
  sim::ChoiceTape* const rng_;
  const int id_;
  int op_index_ = 0;  // of the operation running (story lines)
  std::vector<HeldSnapshot> held_;
};

}  // namespace

void RunSnapshotWriter(SnapshotState* state, const SnapshotWorkloadOptions& options,
                       sim::ChoiceTape* tape, int ops, int writer_id) {
  Writer writer(state, options, tape, writer_id);
  writer.Run(ops);
}

void RunSnapshotReader(SnapshotState* state, const SnapshotWorkloadOptions& options,
                       sim::ChoiceTape* tape, int ops, int reader_id,
                       std::vector<HeldSnapshot>* survivors) {
  Reader reader(state, options, tape, reader_id);
  reader.Run(ops, survivors);
}

void FinishSnapshotChecks(SnapshotState* state, const SnapshotWorkloadOptions& options,
                          std::vector<HeldSnapshot>* survivors) {
  DB* db = state->db();
  if (!state->failed()) {
    // Everything to the bottom level while the survivors are held: the
    // compaction that most wants to drop their versions.
    Status st = FlushIfOffered(db, options);
    if (st.ok()) st = db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
    state->counters()->engine_ops += 2;
    state->CheckStatus(st, "final Flush/CompactRange");
  }
  for (HeldSnapshot& h : *survivors) {
    for (size_t i = 0; i < h.reads.size() && !state->failed(); i++) state->Repeat(&h, i);
  }
  // Every write has ended: the model is exact for every snapshot.
  state->DrainDeferred();
  if (!state->failed() && !state->nothing_deferred()) {
    state->Fail("snapshot reads", "", "every read compared", "reads left unchecked",
                "the model never became exact for some snapshot (checker bug)", state->step());
  }
  // The final state, both ways in full, at a fresh snapshot.
  HeldSnapshot last = state->Take();
  const size_t n = static_cast<size_t>(options.key_space) + 1;
  ReadPlan forward{ReadPlan::Kind::kFirst, "", std::vector<bool>(n, true)};
  ReadPlan backward{ReadPlan::Kind::kLast, "", std::vector<bool>(n, false)};
  if (!state->failed()) state->ReadNew(&last, forward, 0);
  if (!state->failed()) state->ReadNew(&last, backward, 0);
  state->DrainDeferred();
  state->Release(&last);
  for (HeldSnapshot& h : *survivors) state->Release(&h);
  survivors->clear();
}

std::string SnapshotKeyName(int index) {
  std::string name = "key000000";
  for (size_t i = name.size(); index > 0 && i > 3; i--, index /= 10) {
    name[i - 1] = static_cast<char>('0' + index % 10);
  }
  return name;
}

}  // namespace shale::scenario
