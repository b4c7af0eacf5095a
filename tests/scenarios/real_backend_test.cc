// The real-backend scenario's parts: the power loss its ledger carries out
// on real files, the journal that rebuilds the child's History in the
// parent, and whole seeds on the correct engine (the planted bugs it must
// find are rows of tests/bugs/planted_bugs_test.cc).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <set>
#include <string>

#include "common/temp_dir.h"
#include "scenarios/crash_recovery/fault_plan.h"
#include "scenarios/oracle/recovery_check.h"
#include "scenarios/real_backend/journal.h"
#include "scenarios/real_backend/power_loss_fs.h"
#include "scenarios/real_backend/power_loss_ledger.h"
#include "scenarios/real_backend/real_backend.h"
#include "shale/env.h"
#include "shale/options.h"

using namespace shale;
using namespace shale::scenario;

namespace {

// PowerLossFs's reports, straight into a ledger (one process plays both).
class LedgerSink final : public PowerLossEvents {
 public:
  explicit LedgerSink(PowerLossLedger* ledger) : ledger_(ledger) { ledger_->StartProcess(); }
  void WillCreate(const std::string& path) override { Count(), ledger_->WillCreate(path); }
  void WillDelete(const std::string& path, const std::string& trash) override {
    Count(), ledger_->WillDelete(path, trash);
  }
  void WillRename(const std::string& src, const std::string& dst, const std::string& t) override {
    Count(), ledger_->WillRename(src, dst, t);
  }
  uint64_t NameEventsSoFar() override { return events_; }
  void DirSynced(const std::string& dir, uint64_t n) override { ledger_->DirSynced(dir, n); }
  void FileCreated(uint64_t inode) override { created_++, ledger_->FileCreated(inode); }
  void WillSync(uint64_t) override {}
  void FileSynced(uint64_t inode, uint64_t size) override { ledger_->FileSynced(inode, size); }
  uint64_t files_created() const { return created_; }

 private:
  void Count() { events_++; }
  PowerLossLedger* const ledger_;
  uint64_t events_ = 0;
  uint64_t created_ = 0;
};

std::string Read(const std::string& path) {
  std::string data;
  return ReadFileToString(Env::Default()->fs(), path, &data).ok() ? data : "<missing>";
}

void Write(FileSystem* fs, const std::string& path, const std::string& data, bool sync) {
  std::unique_ptr<WritableFile> f;
  REQUIRE(fs->NewWritableFile(path, FileOptions(), &f).ok());
  REQUIRE(f->Append(data).ok());
  if (sync) REQUIRE(f->Sync().ok());
  REQUIRE(f->Close().ok());
}

void Append(FileSystem* fs, const std::string& path, const std::string& data, bool sync) {
  std::unique_ptr<WritableFile> f;
  REQUIRE(fs->ReopenWritableFile(path, FileOptions(), &f).ok());
  REQUIRE(f->Append(data).ok());
  if (sync) REQUIRE(f->Sync().ok());
  REQUIRE(f->Close().ok());
}

struct LossyDir {
  shale_test::TempDir tmp;
  std::string db = tmp.Child("db"), trash = tmp.Child("trash");
  PowerLossLedger ledger;
  LedgerSink sink{&ledger};
  PowerLossFs fs{Env::Default()->fs(), &sink, trash, "t"};
  LossyDir() {
    std::filesystem::create_directories(db);
    std::filesystem::create_directories(trash);
  }
  std::string P(const std::string& name) const { return db + "/" + name; }
};

}  // namespace

TEST_CASE("a power loss undoes the name changes no directory sync covered, and unsynced data") {
  LossyDir d;
  Write(&d.fs, d.P("kept"), "synced", /*sync=*/true);
  Write(&d.fs, d.P("CURRENT"), "old", true);
  Write(&d.fs, d.P("gone"), "doomed", true);
  REQUIRE(d.fs.SyncDir(d.db).ok());
  Append(&d.fs, d.P("kept"), "+unsynced", false);
  Write(&d.fs, d.P("new"), "fresh", true);  // data durable, name not
  Write(&d.fs, d.P("tmp"), "newer", true);
  REQUIRE(d.fs.RenameFile(d.P("tmp"), d.P("CURRENT")).ok());
  REQUIRE(d.fs.DeleteFile(d.P("gone")).ok());
  REQUIRE(Read(d.P("CURRENT")) == "newer");
  // A tape of zeros: no uncommitted name change survives, nor any unsynced byte.
  sim::ChoiceTape zeros(std::string(64, '\0'));
  REQUIRE(d.ledger.PowerLoss(d.db, &zeros).ok());
  CHECK(Read(d.P("kept")) == "synced");
  CHECK(Read(d.P("CURRENT")) == "old");
  CHECK(Read(d.P("gone")) == "doomed");
  CHECK(Read(d.P("new")) == "<missing>");
  CHECK(Read(d.P("tmp")) == "<missing>");
  CHECK(d.ledger.figures().name_events_uncommitted == 4);
  CHECK(d.ledger.figures().name_events_undone == 4);
  CHECK(d.ledger.figures().files_cut == 1);
}

TEST_CASE("a power loss keeps a prefix of the name changes, in order, and synced data always") {
  LossyDir d;
  REQUIRE(d.fs.SyncDir(d.db).ok());
  Write(&d.fs, d.P("000001.log"), "abc", true);
  Append(&d.fs, d.P("000001.log"), std::string(2000, 'x'), false);
  Write(&d.fs, d.P("a"), "1", true);
  Write(&d.fs, d.P("b"), "2", true);
  // The top of every draw: every name change survives, and each file keeps
  // all its unsynced bytes, the last sector torn.
  sim::ChoiceTape top(std::string(64, '\xff'));
  REQUIRE(d.ledger.PowerLoss(d.db, &top).ok());
  CHECK(Read(d.P("a")) == "1");
  CHECK(Read(d.P("b")) == "2");
  const std::string log = Read(d.P("000001.log"));
  REQUIRE(log.size() == 2003);
  CHECK(log.substr(0, 3) == "abc");
  CHECK(d.ledger.torn_logs() == std::set<std::string>{d.P("000001.log")});
  CHECK(d.ledger.figures().files_torn == 1);
  // Afterwards everything is durable: a second power loss changes nothing.
  sim::ChoiceTape zeros(std::string(64, '\0'));
  REQUIRE(d.ledger.PowerLoss(d.db, &zeros).ok());
  CHECK(Read(d.P("000001.log")) == log);
  CHECK(Read(d.P("b")) == "2");
}

TEST_CASE("a directory sync makes the name changes before it durable, not those after it") {
  LossyDir d;
  Write(&d.fs, d.P("before"), "x", true);
  REQUIRE(d.fs.SyncDir(d.db).ok());
  Write(&d.fs, d.P("after"), "y", true);
  sim::ChoiceTape zeros(std::string(64, '\0'));
  REQUIRE(d.ledger.PowerLoss(d.db, &zeros).ok());
  CHECK(Read(d.P("before")) == "x");
  CHECK(Read(d.P("after")) == "<missing>");
}

TEST_CASE("a file on a reused inode keeps none of the durable bytes its inode's former file had") {
  LossyDir d;
  Write(&d.fs, d.P("fresh"), std::string(300, 'n'), /*sync=*/false);
  CHECK(d.sink.files_created() == 1);
  Append(&d.fs, d.P("fresh"), "more", false);  // a reopen creates nothing
  CHECK(d.sink.files_created() == 1);
  // As if a file the power loss unlinked (an undone create) had synced
  // 1000 bytes on the inode the file system now gave "fresh".
  const uint64_t inode = InodeOf(d.P("fresh"));
  d.ledger.FileSynced(inode, 1000);
  d.ledger.FileCreated(inode);
  REQUIRE(d.fs.SyncDir(d.db).ok());
  sim::ChoiceTape zeros(std::string(64, '\0'));
  REQUIRE(d.ledger.PowerLoss(d.db, &zeros).ok());
  CHECK(Read(d.P("fresh")).empty());
  CHECK(d.ledger.figures().files_cut == 1);
}

TEST_CASE("the journal rebuilds the child's History exactly, dropping a frame cut short") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  JournalWriter writer(fds[1], /*planted_bugs=*/0);
  History child(State{{"k0", "base"}});
  child.set_observer(&writer);
  const uint64_t a = child.BeginWrite({KeyOp{"k1", "v1"}}, /*wal=*/true, /*sync=*/false);
  const uint64_t b = child.BeginWrite({KeyOp{"k2", std::nullopt}, KeyOp{"k0", "v0"}}, true, true);
  const ReadStart start = child.BeginRead();
  child.EndWrite(b, Status::OK(), 7);
  (void)child.Observe("k1", start, Value("v1"));  // only the pending write explains it
  const uint64_t token = child.DurabilityBarrierStart();
  child.EndWrite(a, Status::IOError("disk"), 0);
  child.SyncWalDone(token);
  const uint64_t c = child.BeginWrite({KeyOp{"k3", "v3"}}, false, false);
  child.EndWrite(c, Status::OK(), 9);
  child.CloseDone(child.DurabilityBarrierStart());
  ::close(fds[1]);
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof(buf))) > 0;)
    bytes.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);

  History parent(State{{"k0", "base"}});
  WorkloadState state;
  PowerLossLedger ledger;
  JournalReplica replica(&parent, &state, &ledger);
  std::string error;
  REQUIRE(replica.Feed(bytes.data(), bytes.size() - 3, &error));  // the last frame cut short
  CHECK(replica.unfinished_bytes() > 0);
  CHECK(parent.writes().size() == 3);
  CHECK_FALSE(parent.writes()[c].must_survive);  // the cut frame is the Close
  REQUIRE(replica.Feed(bytes.data() + bytes.size() - 3, 3, &error));
  REQUIRE(parent.writes().size() == child.writes().size());
  for (size_t i = 0; i < child.writes().size(); i++) {
    const WriteRecord& x = child.writes()[i];
    const WriteRecord& y = parent.writes()[i];
    CHECK(x.outcome == y.outcome);
    CHECK(x.sequence == y.sequence);
    CHECK(x.must_survive == y.must_survive);
    CHECK(x.begin_event == y.begin_event);
    CHECK(x.end_event == y.end_event);
    CHECK(x.observed_event == y.observed_event);
    CHECK(x.ack_index == y.ack_index);
  }
  CHECK(parent.writes()[c].must_survive);
  CHECK(parent.ExpectedState() == child.ExpectedState());
  CHECK(parent.observed_writes() == 1);
  CHECK(replica.writes_begun() == 3);
  CHECK(replica.reads_begun() == 1);
}

TEST_CASE("a clean Close makes durable only the writes that skipped the WAL") {
  History h{State{}};
  const uint64_t logged = h.BeginWrite({KeyOp{"k1", "v1"}}, /*wal=*/true, /*sync=*/false);
  h.EndWrite(logged, Status::OK(), 1);
  const uint64_t unlogged = h.BeginWrite({KeyOp{"k2", "v2"}}, /*wal=*/false, /*sync=*/false);
  h.EndWrite(unlogged, Status::OK(), 2);
  h.CloseDone(h.DurabilityBarrierStart());
  CHECK_FALSE(h.writes()[logged].must_survive);
  CHECK(h.writes()[unlogged].must_survive);
  // After a power loss: the unlogged write must be there, and with it
  // (prefix recovery) the logged one before it; losing both is not allowed.
  CHECK(CheckRecovery(h, /*process_crash=*/false, State{{"k1", "v1"}, {"k2", "v2"}}).ok);
  CHECK_FALSE(CheckRecovery(h, false, State{}).ok);
  CHECK_FALSE(CheckRecovery(h, false, State{{"k1", "v1"}}).ok);
}

TEST_CASE("only a truncated tail in a log a kill left is refused as the kill's") {
  const std::set<std::string> killed = {"/db/000007.log"};
  const Status truncated = Status::Corruption(
      "/db/000007.log", "Corruption: truncated record at end of log: log 7 offset 96");
  const Status corrupt =
      Status::Corruption("/db/000007.log", "Corruption: corrupt record: log 7 offset 96");
  const Status other_log = Status::Corruption(
      "/db/000009.log", "Corruption: truncated record at end of log: log 9 offset 96");
  const WALRecoveryMode absolute = WALRecoveryMode::kAbsoluteConsistency;
  CHECK(ClassifyRefusal(truncated, absolute, {}, LogsTornByKill(truncated, killed)) ==
        Refusal::kReopenPointInTime);
  // The strict side: damage of another kind, or in a log the kill did not
  // leave, stays a recovery failure.
  CHECK(LogsTornByKill(corrupt, killed).empty());
  CHECK(ClassifyRefusal(corrupt, absolute, {}, LogsTornByKill(corrupt, killed)) == Refusal::kNone);
  CHECK(ClassifyRefusal(other_log, absolute, {}, LogsTornByKill(other_log, killed)) ==
        Refusal::kNone);
}

TEST_CASE("real-backend seeds pass on the correct engine, with kills and power losses") {
  const Scenario* s = RealBackendScenario();
  uint64_t crashes = 0, power_losses = 0;
  for (uint64_t seed = 1; seed <= 12; seed++) {
    RunConfig config;
    config.scenario = s->name();
    config.seed = seed;
    const RunResult r = s->Run(config);
    INFO("seed " << seed << ": " << r.failure.property << ": " << r.failure.message);
    REQUIRE(r.passed);
    CHECK_FALSE(r.deterministic);
    CHECK(r.ops > 0);
    crashes += r.crashes;
    power_losses += r.faults_by_kind.count("power_loss") ? r.faults_by_kind.at("power_loss") : 0;
  }
  CHECK(crashes >= 12);
  CHECK(power_losses >= 3);
}
