#include "scenarios/real_backend/real_child.h"

#include <unistd.h>

#include <atomic>

#include <algorithm>
#include <thread>
#include <vector>

#include "scenarios/crash_recovery/crash_trigger.h"
#include "scenarios/crash_recovery/recovered_txns.h"
#include "scenarios/crash_recovery/workload.h"
#include "scenarios/real_backend/journal.h"
#include "scenarios/real_backend/power_loss_fs.h"
#include "scenarios/real_backend/turn_db.h"
#include "shale/env.h"
#include "util/check.h"

namespace shale::scenario {

namespace {

constexpr int kDefaultOps = 2000;

// Runs the clients on threads of their own, each taking its turn.
void RunClients(const RealDraw& draw, int phase, WorkloadState* state, ClientTurn* turn) {
  const int clients = draw.drawn.clients;
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; c++) {
    threads.emplace_back([&draw, phase, state, turn, clients, c] {
      sim::ChoiceTape tape(draw.client_seed + 16 * static_cast<uint64_t>(phase) +
                           static_cast<uint64_t>(c));
      turn->Take();
      RunClient(state, draw.drawn.workload, &tape, draw.ops_per_phase / clients + 1, c);
      turn->Give();
    });
  }
  for (std::thread& t : threads) t.join();
}

// The real runtime, except that the armed yield point, at its n-th hit,
// reports itself and parks its thread until the parent's SIGKILL arrives.
class KillPointRuntime final : public Runtime {
 public:
  KillPointRuntime(Runtime* target, const std::optional<KillPoint>& kill, JournalWriter* journal)
      : target_(target), journal_(journal) {
    if (kill && kill->kind == KillPoint::Kind::kAtEnginePoint) {
      point_ = kill->point;
      hit_ = kill->n;
    }
  }
  std::unique_ptr<Mutex> NewMutex() override { return target_->NewMutex(); }
  std::unique_ptr<CondVar> NewCondVar(Mutex* mu) override { return target_->NewCondVar(mu); }
  std::unique_ptr<Thread> StartThread(const std::string& name, std::function<void()> fn) override {
    return target_->StartThread(name, std::move(fn));
  }
  void SleepForMicroseconds(uint64_t micros) override { target_->SleepForMicroseconds(micros); }
  bool CanSpin() const override { return target_->CanSpin(); }
  bool SpinWhileEqual(const std::atomic<uint64_t>& word, uint64_t value,
                      uint64_t max_micros) override {
    return target_->SpinWhileEqual(word, value, max_micros);
  }
  void YieldPoint(const char* name) override {
    if (point_.empty() || point_ != name || hits_.fetch_add(1) + 1 != hit_) return;
    journal_->ReachedPoint(name);
    for (;;) ::pause();
  }

 private:
  Runtime* const target_;
  JournalWriter* const journal_;
  std::string point_;
  uint64_t hit_ = 0;
  std::atomic<uint64_t> hits_{0};
};

// The journal a failed SHALE_CHECK in this child reports to.
std::atomic<JournalWriter*> check_journal{nullptr};

// The child's CheckFailedHook: the parent learns which check failed (an
// "engine assertion" failure, as in simulation) rather than only that the
// child died; the child then exits at once.
void JournalFailedCheck(const char* message) {
  JournalWriter* const journal = check_journal.load();
  if (journal == nullptr) return;  // CheckFailed aborts: the parent sees a death
  journal->Failed(Failure{"engine assertion", "", "no failed check", message, 0,
                          std::string("engine assertion: ") + message});
  ::_exit(0);
}

}  // namespace

std::string KillPoint::Describe() const {
  switch (kind) {
    case Kind::kAfterWrites:
      return "as write " + std::to_string(n) + " begins";
    case Kind::kAfterMs:
      return std::to_string(n) + " ms after the DB opened";
    case Kind::kAtSync:
      return "as file sync " + std::to_string(n) + " starts";
    case Kind::kAtNameChange:
      return "as name change " + std::to_string(n) + " is made";
    case Kind::kAtEnginePoint:
      return "at engine point " + point + ", hit " + std::to_string(n);
  }
  return "";
}

RealDraw DrawRealRun(sim::ChoiceTape* tape, const RunConfig& config, int phases) {
  RealDraw r;
  r.drawn = DrawConfig(tape);
  DrawTransactions(tape, &r.drawn);
  DrawWriteQueues(tape, &r.drawn);
  // Real time: a transaction that met a deadlock a plain write closed
  // times out after 1 s; a plain write that waits 30 s met a lost
  // wakeup or a leaked lock (its TimedOut fails the run).
  r.drawn.txn_options.transaction_lock_timeout_ms = 1'000;
  r.drawn.txn_options.default_lock_timeout_ms = 30'000;
  r.drawn.options.planted_bugs = config.planted_bugs;
  for (auto it = r.drawn.described.begin(); it != r.drawn.described.end();) {
    it = it->first.rfind("disk", 0) == 0 ? r.drawn.described.erase(it) : std::next(it);
  }
  r.lossy = tape->OneIn(2);
  r.ops_per_phase = std::max(1, (config.ops > 0 ? config.ops : kDefaultOps) / phases);
  r.client_seed = tape->Next64();
  // Only the real file system maps, so only real runs draw mapped reads.
  r.drawn.options.allow_mmap_reads = tape->OneIn(2);
  if (r.drawn.options.allow_mmap_reads) r.drawn.described["allow_mmap_reads"] = "true";
  r.drawn.options.allow_mmap_writes = tape->OneIn(2);
  if (r.drawn.options.allow_mmap_writes) r.drawn.described["allow_mmap_writes"] = "true";
  return r;
}

KillPoint DrawKillPoint(sim::ChoiceTape* tape, const RealDraw& draw) {
  // About 60% of operations are writes: a kill point past them all lets
  // the child finish and close (about one kill in five of those).
  const uint64_t roll = tape->Uniform(4);
  const uint64_t writes = static_cast<uint64_t>(draw.ops_per_phase) * 3 / 4 + 1;
  if (roll == 1) {
    // Where the simulated scenario's crash points are.
    const auto& targets = CrashTrigger::WorkloadTargets();
    const char* name = targets[tape->Uniform(targets.size())];
    return {KillPoint::Kind::kAtEnginePoint, 1 + tape->Uniform(3), name};
  }
  if (roll == 2) return {KillPoint::Kind::kAfterMs, 1 + tape->Uniform(500), ""};
  if (roll == 3 && draw.lossy) {
    // Where a power loss can catch a name change not yet made durable.
    if (tape->OneIn(2)) return {KillPoint::Kind::kAtNameChange, 1 + tape->Uniform(128), ""};
    return {KillPoint::Kind::kAtSync, 1 + tape->Uniform(64), ""};
  }
  // Half the time early (small counts far likelier): a recovery's own
  // changes are what a kill soon after it can catch half-durable.
  const uint64_t n = tape->OneIn(2) ? tape->Skewed(9) % writes : tape->Uniform(writes);
  return {KillPoint::Kind::kAfterWrites, 1 + n, ""};
}

Status OpenRealDb(const Options& options, const Drawn& drawn, const std::string& path,
                  std::unique_ptr<DB>* db, TransactionDB** txn_db) {
  *txn_db = nullptr;
  if (!drawn.transactions) return DB::Open(options, path, db);
  std::unique_ptr<TransactionDB> t;
  const Status s = TransactionDB::Open(options, drawn.txn_options, path, &t);
  *txn_db = t.get();
  *db = std::move(t);
  return s;
}

void RunRealChild(const RealDraw& draw, const RealPaths& paths, int phase,
                  const std::optional<KillPoint>& kill, History* history, WorkloadState* state,
                  int fd) {
  JournalWriter journal(fd, draw.drawn.options.planted_bugs);
  check_journal.store(&journal);
  SetCheckFailedHook(&JournalFailedCheck);
  Env* const real = Env::Default();
  PowerLossFs lossy(real->fs(), &journal, paths.trash, "c" + std::to_string(phase));
  KillPointRuntime runtime(real->runtime(), kill, &journal);
  Env env(draw.lossy ? static_cast<FileSystem*>(&lossy) : real->fs(), real->clock(), &runtime);
  Options options = draw.drawn.options;
  options.env = &env;
  std::unique_ptr<DB> db;
  TransactionDB* txn_db = nullptr;
  const Status opened = OpenRealDb(options, draw.drawn, paths.db, &db, &txn_db);
  if (!opened.ok()) {
    journal.Failed(Failure{"recovery", "", "Open OK", opened.ToString(), 0,
                           "the child's DB::Open failed (the parent's had passed)"});
    ::_exit(0);
  }
  ClientTurn turn;
  TurnTakingDB turn_db(db.get(), txn_db, &turn);
  history->set_observer(&journal);
  state->db = &turn_db;
  state->txn_db = txn_db != nullptr ? &turn_db : nullptr;
  state->write_prepared =
      txn_db != nullptr && draw.drawn.txn_options.write_policy == TxnWritePolicy::kWritePrepared;
  state->history = history;
  state->phase = phase;
  state->runtime = real->runtime();
  state->txn_changed = [&](const std::string& name) {
    journal.TxnChanged(name, state->named_txns[name]);
  };
  state->commit_noted = [&](uint64_t id) { journal.CommitNoted(id); };
  state->failed_hook = [&] { journal.Failed(state->failure); };
  journal.Opened();
  turn.Take();
  if (txn_db != nullptr) {
    // The recovered prepared transactions the parent's check accepted.
    sim::ChoiceTape tape(draw.client_seed + 16 * static_cast<uint64_t>(phase) + 15);
    ResolvePrepared(state, turn_db.GetPreparedTransactionNames(), &tape, /*faults_enabled=*/false,
                    [](const std::string&) {});
  }
  turn.Give();
  if (!state->failed) RunClients(draw, phase, state, &turn);
  turn.Take();
  if (!state->failed) RequireNoPrepared(state, "at the end of the phase, before Close");
  if (!state->failed) {
    const uint64_t token = history->DurabilityBarrierStart();
    const Status closed = turn_db.Close();
    if (closed.ok()) history->CloseDone(token);
    journal.Closed(closed);
    if (!closed.ok())
      state->Fail("no spurious errors", "", "OK", closed.ToString(), "Close failed");
  }
  ::_exit(0);
}

}  // namespace shale::scenario
