#include "scenarios/real_backend/real_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include "scenarios/crash_recovery/crash_recovery.h"
#include "scenarios/crash_recovery/fault_plan.h"
#include "scenarios/crash_recovery/recovered_txns.h"
#include "scenarios/oracle/recovery_check.h"
#include "scenarios/real_backend/journal.h"
#include "scenarios/real_backend/power_loss_ledger.h"
#include "scenarios/real_backend/real_child.h"
#include "scenarios/scenario_run.h"
#include "shale/env.h"

namespace shale::scenario {

namespace {

using SteadyClock = std::chrono::steady_clock;

// A child still running after this long is stuck (a run takes seconds).
constexpr int64_t kMaxChildMs = 60'000;
constexpr int kPollMs = 50;
constexpr int kMaxOpenAttempts = 3;
// A seed's tape ends the run after a phase, instead of killing its child,
// once in this many phases (a tape's zero ends it there), as in simulation.
constexpr uint64_t kCrashOneIn = 256;

int64_t MsSince(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - t).count();
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           ::strsignal(WTERMSIG(status)) + ")";
  }
  return "exit " + std::to_string(WEXITSTATUS(status));
}

class RealBackendRun {
 public:
  RealBackendRun(const RunConfig& config, RunResult* result)
      : config_(config),
        result_(result),
        tape_(config.tape ? sim::ChoiceTape(*config.tape) : sim::ChoiceTape(config.seed)) {}

  void Execute() {
    result_->deterministic = false;
    result_->scheduler = "real threads";
    const int crashes = config_.crashes < 0 ? 3 : config_.crashes;
    draw_ = DrawRealRun(&tape_, config_, crashes + 1);
    Describe();
    if (!MakeDirectories()) return Finish();
    history_ = std::make_unique<History>(State{}, draw_.drawn.read_visibility);
    state_.history = history_.get();
    std::string kills;
    for (int phase = 0; phase <= crashes && result_->passed; phase++) {
      if (!RunPhase(phase, crashes, &kills)) break;
    }
    result_->options_drawn["kills"] = kills;
    Finish();
  }

 private:
  // One child, killed or not, then the check. False if the run ends here.
  bool RunPhase(int phase, int crashes, std::string* kills) {
    // "Kill this child?": a tape's zero makes it the last (it closes).
    std::optional<KillPoint> kill;
    if (phase < crashes && tape_.Proceed(kCrashOneIn)) kill = DrawKillPoint(&tape_, draw_);
    // Half the kills of a lossy run are power losses; so is half its ends
    // after a clean close (the machine goes down after the process).
    const bool power_loss = draw_.lossy && tape_.OneIn(2);
    const std::string told =
        (kill ? kill->Describe() : "none, closes") + (power_loss ? ", power loss" : "");
    *kills += (kills->empty() ? "" : "; ") + std::to_string(phase) + ": " + told;
    phase_ = phase;
    replica_ = std::make_unique<JournalReplica>(history_.get(), &state_, &ledger_);
    ledger_.StartProcess();
    const bool ran = RunChild(phase, kill);
    result_->ops += replica_->writes_begun() + replica_->reads_begun();
    history_lines_.push_back("phase " + std::to_string(phase) + " (kill " + told + ")");
    for (std::string& line : replica_->Lines()) history_lines_.push_back(std::move(line));
    if (!ran) return false;
    Check(power_loss);
    return kill.has_value();
  }

  void Describe() {
    result_->options_drawn = draw_.drawn.described;
    auto& m = result_->options_drawn;
    m["backend"] = "posix, real threads";
    m["lossy_fs"] = draw_.lossy ? "on" : "off";
    m["ops_per_phase"] = std::to_string(draw_.ops_per_phase);
  }

  void Fail(const std::string& property, const std::string& key, const std::string& expected,
            const std::string& observed, const std::string& message) {
    if (!result_->passed) return;
    result_->passed = false;
    result_->failure = Failure{property, key, expected, observed, 0, message};
  }

  // The seed's directories, fresh; the DB's made durable in the run's.
  bool MakeDirectories() {
    std::string base = config_.work_dir;
    if (base.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    paths_.run = base + "/real-backend/seed-" + std::to_string(config_.seed) + "-" +
                 std::to_string(::getpid());
    paths_.db = paths_.run + "/db";
    paths_.trash = paths_.run + "/trash";
    std::error_code ec;
    std::filesystem::remove_all(paths_.run, ec);
    std::filesystem::create_directories(paths_.db, ec);
    if (!ec) std::filesystem::create_directories(paths_.trash, ec);
    const int dir_fd = ec ? -1 : ::open(paths_.run.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0 || ::fsync(dir_fd) != 0) {
      Fail("real backend", "", "a fresh directory", ec ? ec.message() : std::strerror(errno),
           "cannot make " + paths_.db);
      if (dir_fd >= 0) ::close(dir_fd);
      return false;
    }
    ::close(dir_fd);
    return true;
  }

  // Forks the phase's child and watches it until it exits or is killed at
  // kill. False if the run failed here (the child died on its own, hung,
  // or journaled nonsense).
  bool RunChild(int phase, const std::optional<KillPoint>& kill) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      Fail("real backend", "", "a pipe", std::strerror(errno), "pipe2 failed");
      return false;
    }
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      RunRealChild(draw_, paths_, phase, kill, history_.get(), &state_, fds[1]);
    }
    ::close(fds[1]);
    if (pid < 0) {
      ::close(fds[0]);
      Fail("real backend", "", "a child process", std::strerror(errno), "fork failed");
      return false;
    }
    killed_ = false;
    const bool watched = Watch(pid, fds[0], kill);
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!watched) return false;
    if (!killed_ && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      Fail("process died", "", "exit 0", DescribeExit(status),
           "the child of phase " + std::to_string(phase) + " died before its kill point");
      return false;
    }
    return true;
  }

  bool KillDue(const KillPoint& k, SteadyClock::time_point opened_at) const {
    switch (k.kind) {
      case KillPoint::Kind::kAfterWrites:
        return replica_->writes_begun() >= k.n;
      case KillPoint::Kind::kAtSync:
        return replica_->syncs_begun() >= k.n;
      case KillPoint::Kind::kAtNameChange:
        return replica_->name_changes() >= k.n;
      case KillPoint::Kind::kAtEnginePoint:
        return replica_->point_reached();
      case KillPoint::Kind::kAfterMs:
        return replica_->opened() && MsSince(opened_at) >= static_cast<int64_t>(k.n);
    }
    return false;
  }

  // Reads the journal to its end, killing the child at its kill point.
  bool Watch(pid_t pid, int fd, const std::optional<KillPoint>& kill) {
    const SteadyClock::time_point start = SteadyClock::now();
    SteadyClock::time_point opened_at = start;
    bool saw_open = false;
    char buf[1 << 16];
    std::string error;
    for (;;) {
      if (kill && !killed_ && KillDue(*kill, opened_at)) Kill(pid);
      if (!killed_ && MsSince(start) > kMaxChildMs) {
        Kill(pid);
        Fail("deadlock", "", "a run within " + std::to_string(kMaxChildMs / 1000) + " s",
             "still running", "the real-backend child made no end (killed)");
      }
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, kPollMs);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) continue;
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the child is gone and everything it wrote is read
      if (!replica_->Feed(buf, static_cast<size_t>(n), &error)) {
        Kill(pid);
        Fail("real backend", "", "a well-formed journal", error,
             "the child's journal is malformed");
        return false;
      }
      if (replica_->opened() && !saw_open) {
        saw_open = true;
        opened_at = SteadyClock::now();
      }
    }
    return result_->passed;
  }

  void Kill(pid_t pid) {
    ::kill(pid, SIGKILL);
    killed_ = true;
  }

  // The crash check of one phase (a clean close's, if the child was not
  // killed): on a copy of the DB's directory, so that the next child
  // recovers the original itself (a recovery whose name changes are not
  // yet durable is where a power loss bites). The recovered state becomes
  // the model's base; the next child resolves the recovered prepared
  // transactions (the copy's are dropped with it).
  void Check(bool power_loss) {
    if (replica_->failed()) {
      const Failure& f = replica_->failure();
      return Fail(f.property, f.key, f.expected, f.observed, f.message);
    }
    if (killed_) result_->crashes++;
    if (replica_->opened()) {
      chain_power_loss_ = false;
    } else if (unrecovered_ != nullptr) {
      // The child died in its Open: the recovery the last check accepted
      // never finished here, so this check is held to what that one was.
      *history_ = *unrecovered_;
      state_.named_txns = unrecovered_txns_;
    }
    chain_power_loss_ = chain_power_loss_ || power_loss;
    if (killed_) NoteKilledLogs();
    history_->AbandonPending();
    if (power_loss && !PowerLoss()) return;
    const std::string copy = paths_.run + "/check";
    std::error_code ec;
    std::filesystem::remove_all(copy, ec);
    std::filesystem::copy(paths_.db, copy, std::filesystem::copy_options::recursive, ec);
    if (ec)
      return Fail("real backend", "", "a copy of the DB", ec.message(), "copying the DB failed");
    CheckCopy(copy, power_loss);
    std::filesystem::remove_all(copy, ec);
  }

  void CheckCopy(const std::string& copy, bool power_loss) {
    std::unique_ptr<DB> db;
    TransactionDB* txn_db = nullptr;
    if (!Reopen(copy, &db, &txn_db)) return;
    State recovered;
    const Status read =
        ReadAll(std::unique_ptr<Iterator>(db->NewIterator(ReadOptions())).get(), &recovered);
    if (!read.ok()) {
      return Fail("recovery", "", "a readable DB", read.ToString(),
                  "scanning the recovered DB failed");
    }
    CheckScope scope;
    // A kill keeps the page cache; after a power loss anywhere in a chain
    // of unfinished recoveries, only what must survive one must survive.
    scope.process_crash = !chain_power_loss_;
    const RecoveryVerdict v = CheckRecovery(*history_, scope, recovered);
    const std::string after = killed_ ? "after a kill" : "after the child closed";
    if (!v.ok) {
      return Fail(v.property, v.key, v.expected, v.observed,
                  after + (power_loss ? " and a power loss" : "") + ", the recovered DB breaks " +
                      v.property + LostTxnCommitNote(state_, v, scope));
    }
    unrecovered_ = std::make_unique<History>(*history_);
    unrecovered_txns_ = state_.named_txns;
    if (txn_db != nullptr && !CheckTransactions(db.get(), txn_db, scope, v)) return;
    history_->Reset(std::move(recovered), v.unknown);
    state_.txn_commits.clear();
    const Status closed = db->Close();
    if (!closed.ok())
      Fail("no spurious errors", "", "OK", closed.ToString(), "Close after the check failed");
  }

  bool PowerLoss() {
    const Status s = ledger_.PowerLoss(paths_.db, &tape_);
    if (!s.ok()) {
      Fail("real backend", "", "a power loss carried out", s.ToString(),
           "cutting the files back failed");
      return false;
    }
    const PowerLossLedger::Figures& f = ledger_.figures();
    result_->faults_by_kind["power_loss"]++;
    result_->observed["power loss: name changes not yet durable"] += f.name_events_uncommitted;
    result_->observed["power loss: name changes undone"] += f.name_events_undone;
    result_->observed["power loss: files cut to their synced size"] += f.files_cut;
    result_->observed["power loss: files keeping part of their unsynced bytes"] +=
        f.files_kept_part;
    result_->observed["power loss: files with a torn last sector"] += f.files_torn;
    return true;
  }

  // Opens the DB at path with the plain POSIX Env. A recovery mode's
  // refusal of a log the power loss tore switches the rest of the run to
  // point-in-time recovery, as an operator would (the children inherit it).
  bool Reopen(const std::string& path, std::unique_ptr<DB>* db, TransactionDB** txn_db) {
    Status s;
    for (int attempt = 0; attempt < kMaxOpenAttempts; attempt++) {
      Options options = draw_.drawn.options;
      options.env = Env::Default();
      s = OpenRealDb(options, draw_.drawn, path, db, txn_db);
      if (s.ok()) return true;
      std::set<std::string> torn = ledger_.torn_logs();
      for (const std::string& log : LogsTornByKill(s, killed_logs_)) torn.insert(log);
      torn = InCopy(torn, path);
      if (ClassifyRefusal(s, options.wal_recovery_mode, {}, torn) == Refusal::kNone) break;
      result_->observed["refusals of a torn WAL, reopened point-in-time"]++;
      draw_.drawn.options.wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;
    }
    Fail("recovery", "", "Open OK", s.ToString(), "DB::Open failed after the kill");
    return false;
  }

  // The logs a killed child left (see LogsTornByKill).
  void NoteKilledLogs() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(paths_.db, ec)) {
      const std::string path = entry.path().string();
      if (IsLogFile(path)) killed_logs_.insert(path);
    }
  }

  // The torn logs' paths as the copy at copy names them.
  std::set<std::string> InCopy(const std::set<std::string>& paths, const std::string& copy) const {
    std::set<std::string> out;
    for (const std::string& p : paths) {
      if (p.rfind(paths_.db, 0) == 0) out.insert(copy + p.substr(paths_.db.size()));
    }
    return out;
  }

  // The recovered prepared transactions must be the clients' (see
  // recovered_txns.h). The next child commits or rolls them back.
  bool CheckTransactions(DB* db, TransactionDB* txn_db, const CheckScope& scope,
                         const RecoveryVerdict& v) {
    state_.db = db;
    state_.txn_db = txn_db;
    state_.phase = phase_ + 1;  // past the killed incarnation
    std::vector<std::string> prepared;
    const bool ok = CheckRecoveredPrepared(&state_, scope, v, &prepared);
    result_->observed["recovered prepared transactions"] += prepared.size();
    state_.db = nullptr;
    state_.txn_db = nullptr;
    if (ok) return true;
    const Failure& f = state_.failure;
    Fail(f.property, f.key, f.expected, f.observed, f.message);
    return false;
  }

  void Finish() {
    if (!result_->passed) result_->recorded_history = std::move(history_lines_);
    if (result_->passed) {
      std::error_code ec;
      std::filesystem::remove_all(paths_.run, ec);
    } else {
      result_->options_drawn["directory"] = paths_.run;
    }
  }

  const RunConfig config_;
  RunResult* const result_;
  sim::ChoiceTape tape_;
  RealDraw draw_;
  RealPaths paths_;
  std::unique_ptr<History> history_;
  WorkloadState state_;  // the parent's copy of the child's named transactions
  PowerLossLedger ledger_;
  std::unique_ptr<JournalReplica> replica_;  // the current phase's child's
  std::vector<std::string> history_lines_;   // every phase's journal, for a failure file
  // The model as the last check found it, before its Reset, and whether a
  // power loss came since the last recovery that finished (see Check).
  std::unique_ptr<History> unrecovered_;
  std::map<std::string, NamedTxn> unrecovered_txns_;
  bool chain_power_loss_ = false;
  std::set<std::string> killed_logs_;  // see NoteKilledLogs
  int phase_ = 0;
  bool killed_ = false;  // the current phase's child was killed
};

class RealBackend final : public Scenario {
 public:
  const char* name() const override { return "real-backend"; }
  const char* summary() const override {
    return "the crash-recovery workload on real files and threads in a child process, killed "
           "with SIGKILL (half the seeds then lose power); recovery is checked against the model";
  }
  std::vector<std::string> properties() const override {
    std::vector<std::string> p = CrashRecoveryProperties();
    // Real threads and files: no simulator to run out of steps or time
    // (a child that runs too long fails "deadlock").
    std::erase(p, std::string("simulation"));
    p.push_back("process died");  // the child died before its kill point (a crash)
    p.push_back("real backend");  // the harness could not do its part (a directory, a fork)
    return p;
  }
  bool simulated() const override { return false; }
  RunResult Run(const RunConfig& config) const override {
    return RunScenario<RealBackendRun>(name(), config);
  }
};

}  // namespace

const Scenario* RealBackendScenario() {
  static const auto* const scenario = new RealBackend();
  return scenario;
}

}  // namespace shale::scenario
