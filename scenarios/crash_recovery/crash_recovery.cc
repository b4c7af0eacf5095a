// Scenario `crash-recovery`.
//
// One seed: draw engine options and a disk from the seed (swarm), open a DB
// on a SimDisk inside a Simulation, run 2-4 concurrent client tasks, and
// crash `crashes` times at a random point (a process crash, or a power loss
// where a seeded subset of unsynced sector writes survives, whole, torn or
// garbage); a quarter of the time, recovery itself is crashed partway and
// restarted. After each crash, reopen and check the recovered state with
// CheckRecovery (durability, prefix recovery, atomicity, no phantoms); the
// recovered state becomes the model's new base. At the end, close cleanly,
// reopen, and require exactly the model's state.
//
// With I/O faults on, an error is accepted only with a proof that the
// plan caused it (FaultPlan::Prove): the tag of a fault of its kind
// injected during the call (for a write, flush or compaction: since the
// DB was opened, as a background error carries its cause), or damage to a
// file it names that still exists. Any other error fails the run (no
// spurious errors), on every Open and scan attempt too. A write that fails
// so may leave the DB refusing writes: the clients stop and the DB is
// crashed and reopened at once, so no client writes into a dead DB.
//
// Injected damage the engine detects narrows the checks: a read that fails
// naming a damaged file is accepted, and a crash check whose scan fails so
// reads the keys one by one and leaves out those it cannot read (they keep
// the values the check allowed them). A recovery-mode refusal of a torn or
// flipped WAL reopens point-in-time. The run ends early when an Open still
// fails on damage after its retries (a flipped live MANIFEST or CURRENT),
// when a check cannot read a quarter of the key space, or when the DB
// refuses writes after every reopen (damage a table holds is for good).
//
// Half the seeds run on a TransactionDB (write-committed or WritePrepared,
// one write queue: the model orders writes by sequence, which is WAL order
// only with one queue) and add transactions to the workload (workload.h).
// After each crash check, the recovered prepared transactions are checked
// and committed or rolled back (recovered_txns.h); at the end none may be
// left.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "scenarios/crash_recovery/crash_recovery.h"
#include "scenarios/crash_recovery/crash_trigger.h"
#include "scenarios/crash_recovery/disk_under_test.h"
#include "scenarios/crash_recovery/drawn_config.h"
#include "scenarios/crash_recovery/fault_figures.h"
#include "scenarios/crash_recovery/fault_plan.h"
#include "scenarios/crash_recovery/recovered_txns.h"
#include "scenarios/crash_recovery/skippable_writes.h"
#include "scenarios/crash_recovery/workload.h"
#include "scenarios/engine/run_engine.h"
#include "scenarios/oracle/recovery_check.h"
#include "scenarios/scenario_run.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::scenario {

namespace {

using namespace fault_figures;

constexpr const char* kDbPath = "/db";
constexpr int kDefaultOps = 2000;
constexpr const char* kAfterSetCurrent = "manifest.after_set_current";
// The point after the engine deleted a WAL file.
constexpr const char* kAfterWalDelete = "wal.after_delete";
// A crash drawn "soon after the Open" lands within this many operations.
constexpr uint64_t kEarlyCrashOps = 32;
// RunResult::observed counters: process-crash checks that held every
// acknowledged WAL write to survive, and those that could not (a fault that
// may drop page-cache data came first) and used power-loss rules.
constexpr const char* kStrictCheck = "process-crash checks, strict";
constexpr const char* kRelaxedCheck = "process-crash checks, power-loss rules";
// Power losses that kept some, but not all, of the uncommitted metadata
// operations (creates, renames, unlinks) in the disk's journal.
constexpr const char* kJournalPrefix = "power losses keeping part of the metadata journal";
// Recovery-mode refusals of a WAL a power loss tore, or that carries an
// injected flip; both reopen point-in-time.
constexpr const char* kRefusedTorn = "refusals of a torn WAL, reopened point-in-time";
constexpr const char* kRefusedDamaged = "refusals of a damaged WAL, reopened point-in-time";
// Crash checks that waived durability: the first after such a refusal.
constexpr const char* kDurabilityWaived = "crash checks waiving durability (refused damaged WAL)";
// A seed's tape ends the run at the next phase's end, instead of crashing,
// once in this many phases (a tape's zero ends it there).
constexpr uint64_t kCrashOneIn = 256;
// Median 31.6k scheduling points per default-size PCT run.
constexpr PctCalibration kPctCalibration{8, kDefaultOps};

class CrashRecoveryRun {
 public:
  CrashRecoveryRun(const RunConfig& config, RunResult* result, DiskModel model)
      : config_(config),
        result_(result),
        model_(model),
        sim_(WithPreemption(config, SimOptionsFor(config, kPctCalibration))) {}

  void Execute() {
    if (!PrepareRunEngine(config_, result_, &hosted_)) return;
    DrawEngineAndWorkload();
    drawn_.options.planted_bugs = config_.planted_bugs;
    result_->options_drawn = drawn_.described;
    result_->options_drawn["strategy"] = config_.strategy.empty() ? "drawn" : config_.strategy;
    disk_ = std::make_unique<DiskUnderTest>(model_, &sim_, drawn_.latency,
                                            drawn_.options.planted_bugs, &result_->options_drawn);
    // Swarm: half the runs inject I/O faults (each kind on or off, with its
    // own rate); the other half keep the stricter no-spurious-errors check.
    const bool draw = sim_.rng()->OneIn(2);  // drawn even when forced: same stream
    // Most runs hold the engine to POSIX (only SyncDir makes names durable);
    // a quarter run on ext4's or xfs's rule, where any fsync commits them.
    // (The Windows disk always does: FlushFileBuffers.)
    const bool fsync_commits_metadata =
        Pinned("disk.fsync_commits_metadata", sim_.rng()->OneIn(4) || disk_->windows() != nullptr);
    disk_->base()->set_fsync_commits_metadata(fsync_commits_metadata);
    result_->options_drawn["disk.fsync_commits_metadata"] =
        fsync_commits_metadata ? "true" : "false";
    // A hosted engine is held to detect damage only where its promise
    // table says it does.
    const bool detect = hosted_ == nullptr || hosted_->promises().Checks("damage detected");
    plan_ = std::make_unique<FaultPlan>(&sim_,
                                        config_.faults == "on"    ? true
                                        : config_.faults == "off" ? false
                                                                  : draw,
                                        detect, FaultKindsPinnedOff(config_.pins));
    plan_->set_wal_damage(WalDamageFor(drawn_.options.wal_recovery_mode));
    plan_->set_name_visible([this](const std::string& path) { return disk_->NameVisible(path); });
    disk_->set_fault_policy(plan_.get());
    WatchWindowsRules();
    WatchDeviceRules();
    drawn_.workload.faults_enabled = plan_->enabled();
    SetLockTimeouts(plan_->enabled(), &drawn_.txn_options);
    if (hosted_ != nullptr && drawn_.transactions &&
        !hosted_->UseTransactions(drawn_.txn_options, hosted_options_.get())) {
      std::abort();  // DrawHosted asks only where the engine offers them
    }
    for (const auto& [k, v] : plan_->Describe()) result_->options_drawn[k] = v;
    for (const auto& [k, v] : config_.pins) result_->options_drawn["pinned " + k] = v;
    result_->options_drawn["faults"] = plan_->enabled() ? "on" : "off";
    env_ = std::make_unique<Env>(disk_->fs(), sim_.clock(), sim_.runtime());
    trigger_ = std::make_unique<CrashTrigger>(&sim_);
    CaptureTrace(config_, &sim_, result_);
    drawn_.options.env = env_.get();
    const Status s = sim_.Run([this] { Main(); });
    // A run that ended early (deadlock, budget) left its tasks abandoned;
    // the DB they used is abandoned with them, never destroyed.
    (void)db_.release();
    if (!s.ok() && !state_.failed) {
      state_.Fail(SimulationFailureProperty(s), "", "", "", s.ToString());
    }
    for (const auto& [kind, n] : plan_->counts()) result_->faults_by_kind[kind] += n;
    if (plan_->enabled()) {
      result_->observed[kDamagedFiles] = plan_->damaged_paths().size();
      result_->observed[kWritesAcked] = state_.writes_acked;
      result_->observed[kWritesFailed] = state_.writes_failed;
    }
    for (const auto& [proof, n] : state_.accepted_errors) {
      result_->observed[std::string(kAcceptedErrorsPrefix) + proof] += n;
    }
    result_->options_drawn["deepest_level"] = std::to_string(deepest_level_);
    // Whether Gets started compactions (each incarnation's count, summed).
    if (!drawn_.options.disable_seek_compaction) {
      result_->observed["seek compactions"] = seek_compactions_;
    }
    if (detected()) {
      result_->ended_early = detected_reason_;
      result_->options_drawn["ended"] = detected_reason_ + ": " + detected_what_;
    }
    result_->passed = !state_.failed;
    result_->failure = state_.failure;
    if (state_.failed && state_.broke_unpromised) {
      // A property this engine does not promise: counted, not failed.
      result_->passed = true;
      result_->ended_early = "broke what the engine does not promise";
      result_->observed[state_.failure.property + " (not promised by " + config_.engine + ")"]++;
    }
    result_->ops = state_.ops_done;
    result_->engine_ops = state_.engine_ops;
    // Writes not acknowledged when a read proved they happened: from then
    // on the values they overwrote may not show again.
    const uint64_t observed = history_ == nullptr ? 0 : history_->observed_writes();
    if (observed > 0) result_->observed["indeterminate writes a read proved happened"] = observed;
    if (drawn_.transactions) {
      // Events, not failures (crash-recovery has no promise table).
      result_->observed["recovered prepared transactions"] = recovered_prepared_;
      result_->observed["transaction deadlocks (Busy)"] = state_.txn_lock_busy;
      result_->observed["transaction lock timeouts"] = state_.txn_lock_timeouts;
    }
    if (const FlashUnderTest* flash = disk_->flash()) flash->Describe(&result_->observed);
    if (const sim::WindowsDisk* windows = disk_->windows()) {
      result_->observed["windows: deletes left pending"] = windows->pending_deletes();
      result_->observed["windows: bytes zero-filled past valid data"] =
          windows->zero_filled_bytes();
    }
    RecordSimulation(&sim_, result_);
  }

 private:
  // On the Windows disk, the first call that breaks a Windows rule fails
  // the run (property "windows rule"), naming the rule, the call and who
  // held the file; the disk then fails the call as Windows would.
  void WatchWindowsRules() {
    sim::WindowsDisk* windows = disk_->windows();
    if (windows == nullptr) return;
    windows->set_violation_sink([this](const sim::WindowsRuleViolation& v) {
      sim_.TraceEvent("windows rule broken: " + v.ToString());
      state_.Fail("windows rule", "", "no Windows rule broken", v.ToString(),
                  "the engine broke the Windows rule '" + v.rule + "'");
    });
  }

  // On the open-channel SSD, the first call that breaks a device rule fails
  // the run (property "device rule"), naming the rule and the call; the
  // device then fails the call. With faults on, the device also fails
  // programs and erases, which the flash backend must write around. After
  // every mount, a flash file left shorter than the bytes synced to it
  // fails the run too (property "durability"; SyncedSizes).
  void WatchDeviceRules() {
    FlashUnderTest* flash = disk_->flash();
    if (flash == nullptr) return;
    if (plan_->enabled()) {
      flash->EnableMediaFaults(
          &result_->faults_by_kind, [this](const std::string& kind) { plan_->NoteInjected(kind); },
          [this](const std::string& path) { plan_->NoteDamaged(path); },
          [this] { return plan_->paused(); });
    }
    flash->set_violation_sink([this](const sim::FlashRuleViolation& v) {
      sim_.TraceEvent("device rule broken: " + v.ToString());
      state_.Fail("device rule", "", "no device rule broken", v.ToString(),
                  "the flash backend broke the device rule '" + v.rule + "'");
    });
    flash->set_delete_sink([this](const std::string& path) { plan_->NoteDeleted(path); });
    flash->set_loss_sink([this](const SyncedSizes::Loss& loss) {
      const std::string synced = std::to_string(loss.synced_bytes) + " bytes synced";
      sim_.TraceEvent("flash backend lost synced data: " + loss.path);
      state_.Fail(
          "durability", loss.path, synced, std::to_string(loss.size_bytes) + " bytes",
          "the flash backend's mount kept fewer bytes of " + loss.path + " than were synced");
    });
  }

  // drawn, or the value RunConfig::pins gives name ("true" or "false").
  bool Pinned(const std::string& name, bool drawn) const {
    const auto it = config_.pins.find(name);
    return it == config_.pins.end() ? drawn : it->second == "true";
  }

  // The engine's options and the workload's shape, from the tape.
  void DrawEngineAndWorkload() {
    drawn_ = DrawConfig(sim_.rng());
    if (hosted_ == nullptr) {
      DrawMemtablesAndValues(sim_.rng(), model_ != DiskModel::kOpenChannel, &drawn_);
      DrawTransactions(sim_.rng(), &drawn_);
      DrawWriteQueues(sim_.rng(), &drawn_);
      DrawFileOptions(model_, sim_.rng(), &drawn_.options, &drawn_.described);
    } else {
      DrawHosted();
    }
    KeepSkipAnyWhereCheckable(hosted_ == nullptr && !drawn_.transactions, &drawn_);
    const auto mix = config_.pins.find("workload.mix");
    // Every way into a run validates its pins (PinValueError) first.
    if (mix != config_.pins.end() && !SetMix(mix->second, sim_.rng(), &drawn_)) std::abort();
  }

  // A hosted engine's run: the workload's shape and the disk as drawn for
  // Shale's (DrawConfig), the engine's own options from its documented
  // list, what it does not offer left out of the workload, and
  // write-committed transactions where the engine offers them and its draw
  // asks for them. Values run larger, so LevelDB-sized buffers (64 KiB at
  // least) fill and flush within a run.
  void DrawHosted() {
    KeepDescribed({"key_space", "skewed_keys", "sync_one_in", "clients"}, &drawn_.described);
    hosted_options_ = DrawHostedOptions(*hosted_, config_, &sim_, &drawn_.described);
    drawn_.workload.offers = hosted_->offers();
    state_.promised = [table = &hosted_->promises()](const std::string& property) {
      return table->Checks(property);
    };
    drawn_.workload.value_bytes_max = 200 << sim_.rng()->Uniform(5);
    drawn_.described["value_bytes_max"] = std::to_string(drawn_.workload.value_bytes_max);
    if (drawn_.workload.offers.transactions && hosted_options_->transactions) {
      SetTransactions(true, TxnWritePolicy::kWriteCommitted, sim_.rng(), &drawn_);
    }
  }

  void Main() {
    state_.runtime = sim_.runtime();
    state_.step = [this] { return sim_.steps(); };
    state_.fold = [this](uint64_t hash) { sim_.Fold(hash); };
    state_.newest_wal = [this] { return NewestWal(); };
    if (config_.trace) state_.story = [this](const std::string& line) { sim_.TraceEvent(line); };
    if (plan_->enabled()) {
      state_.fault_mark = [this] { return plan_->Mark(); };
      state_.prove_error = [this](const Status& s, uint64_t mark) { return plan_->Prove(s, mark); };
    }
    const WalWrites wal_writes =
        hosted_ == nullptr ? WalWrites::kAtAck : hosted_->wal_writes(*hosted_options_);
    history_ = std::make_unique<History>(State{}, drawn_.read_visibility, wal_writes);
    if (!Open()) return;
    state_.history = history_.get();
    const int crashes = config_.crashes < 0 ? 3 : config_.crashes;
    const int ops_per_phase =
        std::max(1, (config_.ops > 0 ? config_.ops : kDefaultOps) / (crashes + 1));
    for (int phase = 0; phase <= crashes && !state_.failed && !detected(); phase++) {
      // "Crash after this phase?": zero on the tape makes it the last phase
      // (a phase is one incarnation: operation indices, and the values and
      // transaction names built from them, are unique within it).
      const bool crash = phase < crashes && sim_.rng()->Proceed(kCrashOneIn);
      RunPhase(ops_per_phase, /*crash_after=*/crash);
      NoteIncarnationEnd();
      if (state_.failed || detected() || !crash) break;
      CrashAndRecover();
    }
    if (!state_.failed && !detected() && db_ != nullptr) CloseAndVerify();
    if (db_ != nullptr) {
      // A failure left the DB open mid-run: abandon it as a crash would,
      // ending its background tasks (a DB is never destroyed outside Run).
      sim_.Crash();
      (void)db_.release();
      if (disk_->flash() != nullptr) disk_->flash()->Abandon();
    }
    // The flash backend's eraser is a task of its own: stop it.
    if (disk_->flash() != nullptr) disk_->flash()->Shutdown();
  }

  // One phase's clients (RunClients). A write that fails on a proven error
  // may leave the DB refusing writes (a background error), so the clients
  // stop, the DB is crashed and reopened soon (WorkloadState::RecoveryDue)
  // and checked, and the
  // phase goes on with the operations left, at most kMaxRecoveriesPerPhase
  // times; a crash phase then still ends in its own crash.
  void RunPhase(int ops, bool crash_after) {
    const uint64_t end = state_.ops_done + static_cast<uint64_t>(ops);
    for (int recoveries = 0;; recoveries++) {
      const int left = static_cast<int>(end - std::min(end, state_.ops_done));
      const bool stopped_for_recovery = RunClients(left, crash_after);
      if (!stopped_for_recovery || recoveries == kMaxRecoveriesPerPhase) return;
      if (EndIfDeadAfterReopens()) return;
      NoteIncarnationEnd();
      CrashAndRecover();
      if (state_.failed || detected() || db_ == nullptr) return;
    }
  }

  // Damage the engine reports on every reopen (a damaged table every
  // compaction reads, a recovered transaction whose commit reads it), or
  // faults drawn so dense that each incarnation meets one, kill the DB
  // again at once: after kMaxDeadReopens crashes for a dead DB with no
  // write acknowledged between them, the run ends early ("writes refused
  // after every reopen", with the last proven error).
  bool EndIfDeadAfterReopens() {
    if (state_.writes_acked != writes_acked_at_dead_crash_) dead_reopens_ = 0;
    writes_acked_at_dead_crash_ = state_.writes_acked;
    if (++dead_reopens_ <= kMaxDeadReopens) return false;
    detected_reason_ = "writes refused after every reopen";
    detected_what_ = "the DB refuses writes after every reopen (" + state_.recovery_cause + ")";
    sim_.TraceEvent("check: " + detected_what_ + "; the run ends here");
    return true;
  }

  // Figures from the DB about to be crashed or closed.
  void NoteIncarnationEnd() {
    // A task parked at a crash point may hold the DB's mutex.
    if (!state_.crash_point_reached) NoteDeepestLevel();
    if (db_ != nullptr) seek_compactions_ += db_->GetStats().seek_compactions;
  }

  // Records the deepest level holding a file: the report shows whether the
  // drawn sizes made the LSM tree deep (a test requires it often enough).
  void NoteDeepestLevel() {
    if (db_ == nullptr) return;
    std::string files;
    for (int level = deepest_level_ + 1;
         db_->GetProperty("shale.num-files-at-level" + std::to_string(level), &files); level++) {
      if (files != "0") deepest_level_ = level;
    }
  }

  // Opens (recovers) the DB. An attempt's error that the plan proves
  // (FaultPlan::Prove: injected during the attempt, or damage) is retried
  // (recovery writes new tables, so damage to one it wrote is gone on the
  // next try), the last attempt with injection paused
  // (PauseOnLastAttempt). If that one still fails naming a file the plan
  // damaged, the run ends as detected (returns false, no failure); any
  // other error, on any attempt, is a failure.
  bool Open() {
    Status s;
    for (int attempt = 0; attempt < kMaxOpenAttempts; attempt++) {
      std::unique_ptr<DB> db;
      TransactionDB* txn_db = nullptr;
      const uint64_t mark = plan_->Mark();
      {
        PauseOnLastAttempt paused(plan_.get(), attempt, kMaxOpenAttempts);
        trigger_->Count();
        s = OpenDb(&db, &txn_db);
        trigger_->Disarm();
      }
      if (s.ok()) {
        last_open_points_ = trigger_->points_seen();
        db_ = std::move(db);
        state_.db = db_.get();
        state_.txn_db = txn_db;
        state_.write_prepared =
            txn_db != nullptr && drawn_.txn_options.write_policy == TxnWritePolicy::kWritePrepared;
        state_.incarnation_mark = mark;
        return true;
      }
      // A refusal switches to point in time, which refuses nothing: the
      // reopen gets this attempt back (at most once a run). A hosted
      // engine's options relax as its own documentation says to.
      if (hosted_ != nullptr && RelaxedAfterRefusal(s)) {
        attempt--;
        continue;
      }
      if (hosted_ == nullptr && RefusedByRecoveryMode(s) != Refusal::kNone) {
        attempt--;
        continue;
      }
      if (!plan_->enabled() || !state_.AcceptError(s, mark)) break;
    }
    if (!detected() && !Detected(s)) {
      state_.Fail(UnprovenErrorProperty(s), "", "Open OK", s.ToString(),
                  plan_->enabled() ? "DB::Open failed with an error no fault injected during it "
                                     "and no damaged file explains"
                                   : "DB::Open failed");
    }
    return false;
  }

  // The property an unproven error of Open or of a crash check's scan
  // breaks: with faults off, or when the engine reports its own files
  // damaged or missing, recovery; else no spurious errors.
  const char* UnprovenErrorProperty(const Status& s) const {
    const bool own_files = s.IsCorruption() || s.IsNotFound() || s.IsPathNotFound();
    return !plan_->enabled() || own_files ? "recovery" : "no spurious errors";
  }

  // DB::Open, or TransactionDB::Open when transactions are on (*txn_db is
  // then the same object as *db).
  Status OpenDb(std::unique_ptr<DB>* db, TransactionDB** txn_db) {
    *txn_db = nullptr;
    if (hosted_ != nullptr) {
      const Status s = hosted_->Open(*hosted_options_, env_.get(), kDbPath, db);
      if (!s.ok() || !drawn_.transactions) return s;
      *txn_db = dynamic_cast<TransactionDB*>(db->get());
      if (*txn_db != nullptr) return s;
      db->reset();
      return Status::NotSupported("the hosted engine opened a DB without transactions");
    }
    if (FlashUnderTest* flash = disk_->flash()) {
      const Status s = flash->Mount(sim_.runtime());
      if (!s.ok()) return s;
    }
    if (!drawn_.transactions) return DB::Open(drawn_.options, kDbPath, db);
    std::unique_ptr<TransactionDB> t;
    const Status s = TransactionDB::Open(drawn_.options, drawn_.txn_options, kDbPath, &t);
    *txn_db = t.get();
    *db = std::move(t);
    return s;
  }

  // A power loss can leave a WAL's unsynced tail torn, garbled or behind a
  // hole: every log file with a sector that survived it in part, or with a
  // lost write inside the size it kept (zeros where records were, as when
  // a durable end-of-file outlives unsynced data), is damaged for the rest
  // of the run (its old records are replayed at every Open
  // until it is retired). So is every log a failed sync dropped or marked
  // clean pages of (FaultPlan::lossy_sync_logs). Table files are not: a
  // table is synced before it is installed, so one with unsynced data is
  // never read. Of these, the logs tolerate-tail recovery may refuse
  // (unclean_logs_) are those a failed sync damaged and those a power loss
  // left other than a clean prefix (LogsLeftUnclean). The flash device
  // loses only a suffix (its cache, or a dead process's buffer): a clean
  // prefix.
  void NoteTornLogs(bool power_loss) {
    for (const std::string& path : plan_->lossy_sync_logs()) {
      torn_logs_.insert(path);
      unclean_logs_.insert(path);
    }
    // On the open-channel SSD: logs whose chunks lost their device cache
    // at a power loss, or whose buffered tail died with the process.
    if (const FlashUnderTest* flash = disk_->flash()) {
      for (const std::string& path : flash->LastCrashLostPaths()) {
        if (IsLogFile(path)) torn_logs_.insert(path);
      }
    }
    if (!power_loss) return;
    const sim::SimDisk* base = disk_->base();
    unclean_logs_.merge(LogsLeftUnclean(base->last_power_loss(), base->last_power_loss_holes()));
    for (const sim::SimDisk::SurvivingSector& s : base->last_power_loss()) {
      for (const std::string& path : s.paths) {
        if (IsLogFile(path)) torn_logs_.insert(path);
      }
    }
    for (const std::string& path : base->last_power_loss_holes()) {
      if (IsLogFile(path)) torn_logs_.insert(path);
    }
  }

  // The logs absolute consistency may refuse now: torn_logs_, and those
  // that end in a record cut short (a process killed amid a record larger
  // than its writer's buffer), judged as the logs are now: a log the
  // engine went on appending to after such a fragment is not one.
  std::set<std::string> TornLogsNow() const {
    std::set<std::string> torn = torn_logs_;
    const sim::SimDisk* base = disk_->base();
    for (const std::string& path : base->VisibleChildren(kDbPath)) {
      std::string contents;
      if (IsLogFile(path) && base->ReadVisible(path, &contents).ok() &&
          EndsInPartialRecord(contents)) {
        torn.insert(path);
      }
    }
    return torn;
  }

  // Acts on a recovery-mode refusal (ClassifyRefusal): a refused torn or
  // damaged log switches the rest of the run to point-in-time recovery, as
  // an operator would. Point in time stops at an injected flip silently,
  // so the next check waives durability for what logs held from the
  // damage on (CheckScope::durability), not for what they held before it
  // nor for what a Flush put in tables.
  Refusal RefusedByRecoveryMode(const Status& s) {
    const WALRecoveryMode mode = drawn_.options.wal_recovery_mode;
    const std::set<std::string> refusable =
        mode == WALRecoveryMode::kTolerateCorruptedTailRecords ? unclean_logs_ : TornLogsNow();
    const Refusal refusal = ClassifyRefusal(s, mode, plan_->damaged_paths(), refusable);
    if (refusal == Refusal::kNone) return refusal;
    const bool injected = refusal == Refusal::kStopsAtInjectedDamage;
    sim_.TraceEvent(std::string("recovery mode refused a ") + (injected ? "damaged" : "torn") +
                    " WAL (" + s.ToString() + "): reopening in point-in-time mode");
    result_->observed[injected ? kRefusedDamaged : kRefusedTorn]++;
    if (injected) {
      refused_since_check_ = true;
      waiver_floor_ = std::min(waiver_floor_, DamagedLogFloor());
    }
    drawn_.options.wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;
    plan_->set_wal_damage(WalDamageFor(drawn_.options.wal_recovery_mode));
    return refusal;
  }

  // Where the damage in the logs now on disk may begin to cost writes
  // (FaultPlan::LogDamageFloor). Shale's engine only: the floor reads
  // sequences from its WAL records; for a hosted engine nothing is known.
  uint64_t DamagedLogFloor() const {
    if (hosted_ != nullptr) return 0;
    std::set<std::string> logs;
    for (const std::string& path : disk_->base()->VisibleChildren(kDbPath)) {
      if (IsLogFile(path)) logs.insert(path);
    }
    return plan_->LogDamageFloor(logs);
  }

  bool RelaxedAfterRefusal(const Status& s) {
    std::string why;
    const CrashedLogs logs{TornLogsNow(), unclean_logs_};
    if (!hosted_->RelaxAfterRefusal(s, logs, hosted_options_.get(), &why)) return false;
    sim_.TraceEvent("the engine refused a torn log (" + s.ToString() + "): " + why);
    result_->observed[kRefusedTorn]++;
    return true;
  }

  // True (and the run ends as detected) if s reports damage the plan
  // injected, naming a file it damaged: the engine kept its promise to
  // detect it. A log an injected failed sync lost pages of counts too, for
  // a Corruption: recovery synced it and relied on it (a sync after pages
  // were marked clean returns OK with nothing to write), and a later Open
  // may find it cut short where its writes are already in tables. An error
  // naming no such file proves nothing.
  bool Detected(const Status& s) {
    // Marked now: no tag can prove it, only damage.
    if (plan_->Prove(s, plan_->Mark()) != ErrorProof::kDamagedFile) return false;
    detected_reason_ = "damage detected";
    detected_what_ = s.ToString();
    return true;
  }

  // Returns true if the clients stopped because recovery is wanted
  // (WorkloadState::recovery_wanted) before the crash this call planned.
  bool RunClients(int ops, bool crash_after) {
    const int clients = drawn_.clients;
    state_.crash_point_reached = false;
    std::vector<std::unique_ptr<Thread>> threads;
    state_.clients_running = clients;
    for (int c = 0; c < clients; c++) {
      threads.push_back(
          sim_.runtime()->StartThread("client" + std::to_string(c), [this, ops, clients, c] {
            RunClient(&state_, drawn_.workload, sim_.rng(), ops / clients + 1, c);
            state_.clients_running--;
            state_.NoteProgress();
          }));
    }
    if (!crash_after) {
      state_.WaitForOps(kNoOpTarget);
      // A client may wait on a lock a stuck transaction holds: the crash
      // that comes next ends it.
      if (state_.recovery_wanted && !state_.failed) {
        for (auto& t : threads) (void)t.release();
        return true;
      }
      for (auto& t : threads) t->Join();
      return false;
    }
    // Where the crash lands: 2 in 8 once a random share of this phase's
    // operations is done (the clients, flush and compaction are wherever
    // the schedule left them); 2 in 8 soon after the Open (a crash
    // within its first kEarlyCrashOps operations, and before the first
    // directory sync after it: what the Open renamed or deleted may not
    // be durable yet while new writes already are); 3 in 8 at the 1st..3rd
    // time a task reaches a named engine point (or when the clients are
    // done, if none did); 1 in 8 at a random step of a Close after the
    // clients finish. After a process crash the random share is always
    // soon after the Open (4 in 8): the page cache kept what the crashed
    // process had not synced, the Open built on it, and a power loss in
    // that window is where the two meet.
    const uint64_t roll = sim_.rng()->Uniform(8);
    uint64_t crash_at_ops = kNoOpTarget;
    if (roll < 4) {
      // (A hosted engine keeps the placements its listed reproducers were
      // found with: its phases crash at a random share only.)
      crash_soon_after_open_ = (roll >= 2 || after_process_crash_) && hosted_ == nullptr;
      const uint64_t within =
          crash_soon_after_open_ ? kEarlyCrashOps : static_cast<uint64_t>(ops) + 1;
      crash_at_ops = state_.ops_done + sim_.rng()->Uniform(within);
      if (crash_soon_after_open_) ArmCrash("disk.sync_dir", 1, "crash_before_first_dir_sync");
      state_.WaitForOps(crash_at_ops);
      trigger_->Disarm();
    } else if (roll < 7) {
      ArmAtNamedPoint();
      state_.WaitForOps(kNoOpTarget);
      trigger_->Disarm();
    } else {
      state_.WaitForOps(kNoOpTarget);
      if (!state_.failed && !state_.recovery_wanted) CrashDuringClose();
    }
    // The crashed process's threads and DB are abandoned, never destroyed
    // (their stacks are gone); see Simulation::Crash.
    for (auto& t : threads) (void)t.release();
    return state_.recovery_wanted && !state_.failed && !state_.crash_point_reached &&
           state_.ops_done < crash_at_ops;
  }

  // The newest WAL file's name in the DB directory ("" if none).
  std::string NewestWal() const {
    std::string newest;
    for (const std::string& path : disk_->base()->VisibleChildren(kDbPath)) {
      if (IsLogFile(path)) newest = std::max(newest, path);
    }
    return newest;
  }

  // Arms the crash at the 1st..3rd time a task reaches a drawn engine
  // point (a disk call, for a hosted engine). In runs with transactions,
  // half of these crashes land instead at the first WAL deletion while a
  // prepared transaction's commit or rollback is acknowledged but not yet
  // synced: a two-phase engine must keep every log that holds a Prepare
  // whose finish marker a power loss can still take. After CURRENT's
  // rename the crash lands up to 8 points later: in the window before the
  // directory sync that makes it durable, or past it.
  void ArmAtNamedPoint() {
    const auto& targets =
        hosted_ == nullptr ? CrashTrigger::WorkloadTargets() : CrashTrigger::DiskTargets();
    std::string name = targets[sim_.rng()->Uniform(targets.size())];
    uint64_t hit = 1 + sim_.rng()->Uniform(3);
    const bool two_phase = drawn_.transactions && sim_.rng()->OneIn(2);
    if (two_phase) {
      // A hosted engine names no WAL deletion: its first file deletion
      // meanwhile, once done (one point on).
      name = hosted_ == nullptr ? kAfterWalDelete : "disk.delete";
      hit = 1;
    }
    uint64_t later = name == kAfterSetCurrent ? sim_.rng()->Uniform(9) : 0;
    if (two_phase && hosted_ != nullptr) later = 1;
    ArmCrash(name, hit, "crash_point." + name, later);
    two_phase_armed_ = two_phase;
    if (two_phase) trigger_->set_gate([this] { return state_.unsynced_finish_after_wal_switch; });
  }

  // Arms the trigger so that the hit-th point named name (any, if empty)
  // parks its task and wakes main; counted as fault `count_as` if it fires.
  void ArmCrash(const std::string& name, uint64_t hit, const std::string& count_as,
                uint64_t then_any = 0) {
    state_.crash_point_reached = false;
    armed_target_ = name;
    two_phase_armed_ = false;
    sim_.TraceEvent("crash armed at " + (name.empty() ? std::string("any point") : name) +
                    ", hit " + std::to_string(hit));
    trigger_->Arm(
        name, hit,
        [this, count_as] {
          result_->faults_by_kind[count_as]++;
          state_.crash_point_reached = true;
          state_.NoteProgress();
        },
        then_any);
  }

  // Runs fn in a task of the current process and returns once it is done
  // or the armed trigger parked a task (main then crashes).
  void RunUntilDoneOrCrashPoint(const char* task, std::function<void()> fn) {
    state_.clients_running = 1;
    std::unique_ptr<Thread> thread = sim_.runtime()->StartThread(task, [this, fn = std::move(fn)] {
      fn();
      state_.clients_running--;
      state_.NoteProgress();
    });
    state_.WaitForOps(kNoOpTarget);
    trigger_->Disarm();
    (void)thread.release();  // abandoned with the crashed process
  }

  // Starts Close and crashes at a random step of it (or just after it).
  void CrashDuringClose() {
    ArmCrash("", 1 + sim_.rng()->Uniform(last_close_points_ + 1), "crash_during_close");
    RunUntilDoneOrCrashPoint("close", [this] { (void)db_->Close(); });
    if (!trigger_->fired()) last_close_points_ = trigger_->points_seen();
  }

  // Crashes the process (the caller survives as the next incarnation) and
  // then the disk: a process crash or a power loss. Returns true for a
  // power loss.
  bool CrashOnce() {
    // A crash after CURRENT's rename or a WAL deletion, or soon after an
    // Open that followed a process crash, is always a power loss: a
    // process crash keeps every file's data and every name change, so
    // neither the window before the next directory sync nor what only the
    // deleted log held is at stake. Soon after any other Open it is either:
    // a process crash there (a crash loop) leaves two Opens' name changes
    // undurable, and the power loss soon after the next Open meets both.
    const bool at_name_change =
        state_.crash_point_reached && (armed_target_ == kAfterSetCurrent || two_phase_armed_);
    LearnLogsBeforeCrash();
    sim_.Crash();
    state_.crash_point_reached = false;
    const bool forced = at_name_change || (crash_soon_after_open_ && after_process_crash_);
    crash_soon_after_open_ = false;
    const bool power_loss = Pinned("crash.power_loss", sim_.rng()->OneIn(2) || forced);
    after_process_crash_ = !power_loss;
    sim_.TraceEvent(power_loss ? "disk: power loss" : "disk: process crash");
    if (power_loss) {
      disk_->PowerLoss(1 + sim_.rng()->Uniform(4));
      result_->faults_by_kind["power_loss"]++;
      const sim::SimDisk::MetadataKept meta = disk_->base()->last_power_loss_metadata();
      if (meta.kept > 0 && meta.kept < meta.uncommitted) result_->observed[kJournalPrefix]++;
    } else {
      disk_->ProcessCrash();
      result_->faults_by_kind["process_crash"]++;
    }
    NoteTornLogs(power_loss);
    // Crash-time damage comes at the run's own crashes (a rate per crash),
    // not at those a failed write brings forward.
    if (!state_.recovery_wanted) plan_->AfterCrash(disk_->media(), FlashDamageAtCrash());
    NoteSkippableWrites();
    return power_loss;
  }

  bool SkipAny() const {
    return drawn_.options.wal_recovery_mode == WALRecoveryMode::kSkipAnyCorruptedRecords;
  }

  // Skip-any only (SkippableWrites): each log's records as readers see
  // them before the crash damages any.
  void LearnLogsBeforeCrash() {
    if (!SkipAny()) return;
    const sim::SimDisk* base = disk_->base();
    for (const std::string& path : base->VisibleChildren(kDbPath)) {
      std::string contents;
      if (IsLogFile(path) && base->ReadVisible(path, &contents).ok())
        skippable_.Learn(path, contents);
    }
  }

  // Skip-any only: the writes the damage in the logs on disk now may cost
  // (the whole log's for what a power loss or a failed sync did there).
  void NoteSkippableWrites() {
    if (!SkipAny()) return;
    for (const std::string& path : disk_->base()->VisibleChildren(kDbPath)) {
      if (!IsLogFile(path)) continue;
      std::vector<uint64_t> flipped_at;
      const bool whole = unclean_logs_.count(path) != 0 || !plan_->FlipOffsets(path, &flipped_at);
      if (whole) skippable_.NoteDamagedWhole(path);
      if (!whole) skippable_.NoteDamaged(path, flipped_at);
    }
    if (!config_.trace) return;
    for (const SequenceRange& r : skippable_.noted()) {
      sim_.TraceEvent(
          absl::StrCat("skip-any may skip the writes of sequences [", r.begin, ", ", r.end, ")"));
    }
  }

  // On the open-channel SSD, crash-time damage goes to the device.
  FaultPlan::FlashDamage FlashDamageAtCrash() {
    FlashUnderTest* flash = disk_->flash();
    if (flash == nullptr) return nullptr;
    return [this, flash](std::string* path) { return flash->DamageAtCrash(sim_.rng(), path); };
  }

  // Story lines for the writes the crash cut short (a client's line comes
  // only when its call returns): each may or may not have happened.
  void TellCutShort() {
    if (!config_.trace) return;
    for (const WriteRecord& w : history_->writes()) {
      if (w.outcome != WriteRecord::Outcome::kPending) continue;
      sim_.TraceEvent(
          "cut short by the crash: " +
          (w.ops.empty() ? std::string("a transaction's prepare") : DescribeKeyOps(w.ops)) +
          (w.sync ? " (sync)" : "") + (w.wal ? "" : " (no WAL)"));
    }
  }

  // Starts recovery in a task and crashes partway through it (or just after
  // it finished): recovery itself must be crash safe.
  // The step is drawn among as many as the last successful recovery took;
  // 1 in 3 crashes come just after it finished, where what Open made
  // durable (a new CURRENT, a synced replayed log) meets a power loss.
  bool CrashDuringRecovery() {
    const bool after = hosted_ == nullptr && sim_.rng()->OneIn(3);  // as in RunClients
    const uint64_t hit = after ? 0 : 1 + sim_.rng()->Uniform(last_open_points_ + 1);
    ArmCrash("", hit, "crash_during_recovery");
    crash_soon_after_open_ = after;
    RunUntilDoneOrCrashPoint("recovery", [this] {
      std::unique_ptr<DB> db;
      TransactionDB* txn_db = nullptr;
      if (OpenDb(&db, &txn_db).ok()) (void)db.release();  // dies with the crash
    });
    if (!trigger_->fired()) result_->faults_by_kind["crash_after_recovery"]++;
    return CrashOnce();
  }

  void CrashAndRecover() {
    if (state_.recovery_wanted) {
      result_->observed[kDeadDbCrashes]++;
      sim_.TraceEvent("a write failed on an injected fault: crashing and reopening the DB");
    }
    bool power_loss = CrashOnce();
    state_.recovery_wanted = false;
    result_->crashes++;
    state_.phase++;
    (void)db_.release();  // abandoned with the crashed process
    state_.db = nullptr;
    state_.txn_db = nullptr;
    TellCutShort();
    history_->AbandonPending();
    // After any power loss in the chain, only what must survive one does.
    if (sim_.rng()->OneIn(4)) power_loss = CrashDuringRecovery() || power_loss;
    if (!Open()) return;
    State recovered;
    CheckScope scope;
    if (!Scan(&recovered, &scope.unreadable)) return;
    // A failed sync may have dropped unsynced pages: after such a fault,
    // only what must survive a power loss must survive. So it is where the
    // file system's own buffers die with the process (the flash backend's
    // write buffer held across Flush).
    const bool buffers_survive = disk_->flash() == nullptr || disk_->flash()->FlushSurvivesCrash();
    scope.process_crash =
        !power_loss && buffers_survive && plan_->page_loss_total() == page_loss_at_last_check_;
    if (!power_loss) result_->observed[scope.process_crash ? kStrictCheck : kRelaxedCheck]++;
    page_loss_at_last_check_ = plan_->page_loss_total();
    scope.durability = !refused_since_check_;
    scope.durable_below_sequence = scope.durability ? 0 : waiver_floor_;
    scope.skippable = skippable_.Take();
    if (!scope.durability) result_->observed[kDurabilityWaived]++;
    refused_since_check_ = false;
    waiver_floor_ = UINT64_MAX;
    const RecoveryVerdict v = CheckRecovery(*history_, scope, recovered);
    sim_.TraceEvent(std::string("check: recovery after ") +
                    (power_loss ? "power loss" : "process crash") + ", " +
                    std::to_string(recovered.size()) + " keys (" +
                    std::to_string(scope.unreadable.size()) + " unreadable), cut " +
                    std::to_string(v.cut) + (scope.durability ? "" : ", durability waived") +
                    (v.ok ? ", ok" : ", FAILED " + v.property));
    if (!v.ok) {
      state_.Fail(v.property, v.key, v.expected, v.observed,
                  std::string("after a ") + (power_loss ? "power loss" : "process crash") +
                      ", the recovered DB breaks " + v.property +
                      LostTxnCommitNote(state_, v, scope));
      return;
    }
    if (EndIfMostlyUnreadable(scope.unreadable)) return;
    std::vector<std::string> prepared;
    if (state_.txn_db != nullptr) {
      const bool ok = CheckRecoveredPrepared(&state_, scope, v, &prepared);
      recovered_prepared_ += prepared.size();
      if (!ok) return;
    }
    history_->Reset(std::move(recovered), v.unknown);
    state_.txn_commits.clear();
    if (state_.txn_db != nullptr) {
      ResolvePrepared(&state_, prepared, sim_.rng(), plan_->enabled(),
                      [this](const std::string& line) { sim_.TraceEvent(line); });
    }
  }

  // Reads the whole DB into *out. A read error injected during an
  // attempt is retried (the last attempt paused, as in Open). If a read
  // fails on damage the plan did (FaultPlan::Prove), the keys are read one
  // by one instead, and those whose reads fail on damage go to
  // *unreadable (the check is narrowed to the rest). Any other error, on
  // any attempt, is a failure (returns false).
  bool Scan(State* out, std::set<std::string>* unreadable) {
    Status s;
    for (int attempt = 0; attempt < kMaxOpenAttempts; attempt++) {
      const uint64_t mark = plan_->Mark();
      PauseOnLastAttempt paused(plan_.get(), attempt, kMaxOpenAttempts);
      std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
      s = ReadAll(it.get(), out);
      if (s.ok()) break;
      const ErrorProof proof = state_.ProveError(s, mark);
      if (proof == ErrorProof::kNone) break;
      if (proof == ErrorProof::kDamagedFile) {
        s = ScanKeyByKey(out, unreadable);
        break;
      }
    }
    if (!s.ok()) {
      state_.Fail(UnprovenErrorProperty(s), "", "a readable DB", s.ToString(),
                  "scanning the recovered DB failed");
      return false;
    }
    for (const auto& [key, value] : *out) sim_.Fold(HashKeyValue(key, Value(value)));
    for (const std::string& key : *unreadable) sim_.Fold(HashKeyValue(key, Value("<unreadable>")));
    if (plan_->enabled()) NoteCheckCoverage(unreadable->size());
    return true;
  }

  // What one crash check read of the key space (fault_figures.h).
  void NoteCheckCoverage(size_t unreadable) {
    const uint64_t key_space = static_cast<uint64_t>(drawn_.workload.key_space);
    const uint64_t left_out = std::min<uint64_t>(unreadable, key_space);
    result_->observed[kKeysAtChecks] += key_space;
    result_->observed[kKeysReadAtChecks] += key_space - left_out;
    // A check that leaves out a quarter or more ends the run
    // (EndIfMostlyUnreadable): it counts as an early end, not a check.
    if (left_out * 4 >= key_space && left_out > 0) return;
    uint64_t& worst = result_->observed[kWorstCheckPermille];
    worst = std::max(worst, left_out * 1000 / std::max<uint64_t>(key_space, 1));
  }

  // A narrowed check that could not read a quarter of the key space or
  // more checks too little: the run ends after it as detected ("damage
  // detected: K of N keys unreadable (the first error)"). True if so.
  bool EndIfMostlyUnreadable(const std::set<std::string>& unreadable) {
    const size_t key_space = static_cast<size_t>(drawn_.workload.key_space);
    if (unreadable.empty() || unreadable.size() * 4 < key_space) return false;
    detected_reason_ = "damage detected";
    detected_what_ = std::to_string(unreadable.size()) + " of " + std::to_string(key_space) +
                     " keys unreadable (" + first_unreadable_error_ + ")";
    sim_.TraceEvent("check: " + detected_what_ + "; the run ends here");
    return true;
  }

  // Scan's narrowed read: every key of the workload's key space by Get
  // (keys outside it stay as the failed scan found them: phantoms). A Get
  // that fails on a proven error is tried once more with injection paused;
  // if that fails on damage the plan did, the key is unreadable. Returns
  // the first other error.
  Status ScanKeyByKey(State* out, std::set<std::string>* unreadable) {
    sim_.TraceEvent("check: the recovered DB has detected damage; reading it key by key");
    for (int i = 0; i < drawn_.workload.key_space; i++) {
      const std::string key = KeyName(i);
      out->erase(key);
      std::string value;
      const uint64_t mark = plan_->Mark();
      Status s = db_->Get(ReadOptions(), key, &value);
      if (!s.ok() && !s.IsNotFound()) {
        if (!state_.AcceptError(s, mark)) return s;
        PauseOnLastAttempt paused(plan_.get(), 0, 1);
        s = db_->Get(ReadOptions(), key, &value);
      }
      if (s.ok()) {
        (*out)[key] = value;
      } else if (!s.IsNotFound()) {
        if (state_.ProveError(s, mark) != ErrorProof::kDamagedFile) return s;
        if (unreadable->empty()) first_unreadable_error_ = s.ToString();
        unreadable->insert(key);
      }
    }
    result_->observed[kNarrowedChecks]++;
    result_->observed[kUnreadableKeys] += unreadable->size();
    return Status::OK();
  }

  void CloseAndVerify() {
    // With faults, Close itself may fail; and after a proven error (flash
    // damage too) the DB wants recovery, and a transaction whose finish
    // that error failed is still prepared: end with one more crash check.
    if (plan_->total() > 0 || state_.recovery_wanted) return EndWithCrashCheck();
    // Clients finish their own transactions: none may be left prepared.
    RequireNoPrepared(&state_, "at the end of the run, before Close");
    if (state_.failed) return;
    const uint64_t close_token = history_->DurabilityBarrierStart();
    const State expected = history_->ExpectedState();
    const uint64_t close_mark = plan_->Mark();
    const Status s = db_->Close();
    if (!s.ok() && state_.AcceptError(s, close_mark)) {
      // A fault injected during Close failed it (the first of the run, or
      // the branch above would have run): its flush is indeterminate, so
      // check the DB as after a crash.
      sim_.TraceEvent("close failed on an injected fault: " + s.ToString());
      return EndWithCrashCheck();
    }
    if (!s.ok()) return state_.Fail("no spurious errors", "", "OK", s.ToString(), "Close failed");
    if (drawn_.workload.offers.close_flushes) {
      history_->FlushDone(close_token);  // Close flushed
    } else {
      history_->CloseDone(close_token);
    }
    db_.reset();
    state_.db = nullptr;
    state_.txn_db = nullptr;
    if (!Open()) return;
    RequireNoPrepared(&state_, "after a clean close and reopen");
    if (state_.failed) return;
    State recovered;
    CheckScope scope;
    scope.process_crash = true;
    if (!Scan(&recovered, &scope.unreadable)) return;
    const RecoveryVerdict v = CheckRecovery(*history_, scope, recovered);
    // Damage injected since Close (a read that made a sector unreadable)
    // leaves its keys out of the comparison too.
    State readable_expected = expected;
    for (const std::string& key : scope.unreadable) readable_expected.erase(key);
    if (!v.ok || recovered != readable_expected) {
      state_.Fail(v.ok ? "durability" : v.property, v.key, v.expected, v.observed,
                  "after a clean close, the reopened DB differs from the model");
      return;
    }
    if (EndIfMostlyUnreadable(scope.unreadable)) return;
    // Faults may have been injected since the first Close (the reopen, the
    // scan): one injected during this Close may fail it, and only that.
    const uint64_t final_close_mark = plan_->Mark();
    const Status closed = db_->Close();
    if (!closed.ok() && state_.AcceptError(closed, final_close_mark)) {
      sim_.TraceEvent("close failed on an injected fault (the final close): " + closed.ToString());
    } else if (!closed.ok()) {
      state_.Fail("no spurious errors", "", "OK", closed.ToString(), "final Close failed");
    }
    db_.reset();
  }

  // A Close that fails here may carry a background error from the
  // reopen: proven since it began (else it is spurious).
  void EndWithCrashCheck() {
    CrashAndRecover();
    if (db_ == nullptr || state_.failed) return;
    const Status closed = db_->Close();
    if (closed.ok()) return db_.reset();
    if (state_.AcceptError(closed, state_.incarnation_mark)) return;
    state_.Fail("no spurious errors", "", "OK", closed.ToString(),
                "Close after the last crash check failed with an error no injected fault "
                "or damaged file explains");
  }

  const RunConfig config_;
  RunResult* const result_;
  const DiskModel model_;
  const HostedEngine* hosted_ = nullptr;  // nullptr: Shale's own engine
  std::unique_ptr<HostedOptions> hosted_options_;
  sim::Simulation sim_;
  Drawn drawn_;
  std::unique_ptr<DiskUnderTest> disk_;
  std::unique_ptr<CrashTrigger> trigger_;
  uint64_t last_open_points_ = 0;    // points the last successful Open reached
  uint64_t last_close_points_ = 64;  // points the last uncrashed Close reached (a guess at first)
  std::unique_ptr<Env> env_;
  std::unique_ptr<DB> db_;
  std::unique_ptr<History> history_;
  WorkloadState state_;
  std::unique_ptr<FaultPlan> plan_;
  uint64_t page_loss_at_last_check_ = 0;  // FaultPlan::page_loss_total() then
  // True if recovery refused a log's injected damage since the last check:
  // point in time then stopped at it silently, dropping what followed.
  // Only that check waives durability. Recovery cuts the log back to the
  // prefix it replayed (and deletes the logs after it) before it retires
  // them, so later Opens read no damage and lose nothing more.
  bool refused_since_check_ = false;
  // The least DamagedLogFloor at a refusal since the last check.
  uint64_t waiver_floor_ = UINT64_MAX;
  std::string armed_target_;            // the point ArmCrash last armed ("" for any)
  bool two_phase_armed_ = false;        // ArmAtNamedPoint armed it at a WAL (file) deletion
  bool after_process_crash_ = false;    // the last crash kept the page cache (see RunClients)
  bool crash_soon_after_open_ = false;  // the next crash was drawn so (see CrashOnce)
  std::set<std::string> torn_logs_;     // see NoteTornLogs
  std::set<std::string> unclean_logs_;  // a subset of torn_logs_, see NoteTornLogs
  SkippableWrites skippable_;           // skip-any's loosening, see NoteSkippableWrites
  int deepest_level_ = 0;
  uint64_t seek_compactions_ = 0;
  uint64_t recovered_prepared_ = 0;  // prepared transactions found after crashes
  // Why the run ended early (RunResult::ended_early: injected damage
  // detected, or writes refused after every reopen); empty while it runs on.
  bool detected() const { return !detected_reason_.empty(); }
  std::string detected_reason_;
  std::string detected_what_;
  std::string first_unreadable_error_;  // of the last narrowed check
  static constexpr int kMaxRecoveriesPerPhase = 8;
  static constexpr int kMaxDeadReopens = 3;
  int dead_reopens_ = 0;                     // see EndIfDeadAfterReopens
  uint64_t writes_acked_at_dead_crash_ = 0;  // WorkloadState::writes_acked then
  static constexpr int kMaxOpenAttempts = 8;
  // A WaitForOps target no phase reaches: wait for the tasks or a crash point.
  static constexpr uint64_t kNoOpTarget = ~uint64_t{0};
};

class CrashRecovery final : public Scenario {
 public:
  const char* name() const override { return "crash-recovery"; }
  const char* summary() const override {
    return "concurrent clients write, read and iterate; the process crashes or loses power; "
           "recovery is checked against the model";
  }
  std::vector<std::string> properties() const override { return CrashRecoveryProperties(); }
  RunResult Run(const RunConfig& config) const override {
    return RunCrashRecovery(name(), config, DiskModel::kPosix);
  }
  // Shale's engine and every hosted one (on the POSIX disk).
  bool RunsOn(const std::string& engine) const override {
    return IsShaleEngine(engine) || FindHostedEngine(engine) != nullptr;
  }
  std::map<std::string, std::string> PinnableOptions(const std::string& engine) const override {
    std::map<std::string, std::string> pinnable = {{"crash.power_loss", "true|false"},
                                                   {"disk.fsync_commits_metadata", "true|false"},
                                                   {"workload.mix", kMixPinValues}};
    pinnable.merge(FaultKindPins());
    if (const HostedEngine* hosted = FindHostedEngine(engine)) {
      pinnable.merge(hosted->PinnableOptions());
    }
    return pinnable;
  }
  std::string PinValueError(const std::string& engine, const std::string& name,
                            const std::string& value) const override {
    if (name == "workload.mix") return MixPinError(value);
    return Scenario::PinValueError(engine, name, value);
  }

 private:
  static constexpr const char* kMixPinValues = "default|swarm|KIND:WEIGHT+...";
};

}  // namespace

RunResult RunCrashRecovery(const char* scenario_name, const RunConfig& config, DiskModel model) {
  return RunScenario<CrashRecoveryRun>(scenario_name, config, model);
}

std::vector<std::string> CrashRecoveryProperties() {
  return {"durability",
          "prefix recovery",
          "atomicity",
          "no phantoms",
          "resurrection",
          "read consistency",
          "immutable snapshots",
          "no spurious errors",
          "deadlock",
          "transactions",
          "real-time order",
          "fresh snapshots",
          "recovery",
          "engine assertion",
          "read-your-own-writes",
          "isolation",
          "simulation"};
}

namespace {

class CrashRecoveryOnDisk final : public Scenario {
 public:
  CrashRecoveryOnDisk(const char* name, const char* summary, DiskModel model,
                      const char* rule_property)
      : name_(name), summary_(summary), model_(model), rule_property_(rule_property) {}
  const char* name() const override { return name_; }
  const char* summary() const override { return summary_; }
  std::vector<std::string> properties() const override {
    std::vector<std::string> properties = CrashRecoveryProperties();
    properties.push_back(rule_property_);
    return properties;
  }
  RunResult Run(const RunConfig& config) const override {
    return RunCrashRecovery(name_, config, model_);
  }

 private:
  const char* const name_;
  const char* const summary_;
  const DiskModel model_;
  const char* const rule_property_;
};

}  // namespace

const Scenario* NewCrashRecoveryOnDisk(const char* name, const char* summary, DiskModel model,
                                       const char* rule_property) {
  return new CrashRecoveryOnDisk(name, summary, model, rule_property);
}

const Scenario* CrashRecoveryScenario() {
  static const auto* const scenario = new CrashRecovery();
  return scenario;
}

}  // namespace shale::scenario
