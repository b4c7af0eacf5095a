// A commit is not final while its marker may still be lost with the live
// WAL. Two cases, each in simulated time on a SimDisk, ending in a power
// loss that keeps no unsynced sector:
//
// A prepared transaction's WAL must outlive the live WAL that holds its
// commit marker:
//   1. T is prepared (WAL A);
//   2. a flush switches to WAL B (A is synced as it closes) and builds its
//      table, held just before it installs;
//   3. a plain write and then T's Commit land, unsynced, in WAL B;
//   4. the flush installs; a power loss takes B's unsynced tail.
// The crash took the plain write, so it must also take the commit after it
// (prefix recovery): T comes back prepared, its data invisible. Had the
// flush retired WAL A because T had finished, recovery would not know T:
// WritePrepared would show T's flushed data as committed, and
// write-committed would lose a prepared transaction.
//
// A Flush that finds the memtable empty must still sync the WAL: a
// WritePrepared commit of flushed data is a WAL-only marker.
//
// A prepared transaction's WAL must also outlive a closed, synced WAL that
// holds its rollback marker until that WAL's memtable is flushed: damage
// to the marker's WAL can still take the marker, and recovery must then
// find T prepared, not its flushed data committed.
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/db_read.h"
#include "common/forwarding_runtime.h"
#include "shale/env.h"
#include "shale/transaction_db.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"
#include "txn/txn_test_support.h"

namespace shale_test {
namespace {

using shale::Status;

// The simulation's runtime, except that a task reaching YieldPoint(gate)
// waits there (sleeping in simulated time) until Open() is called.
class GateRuntime final : public ForwardingRuntime {
 public:
  GateRuntime(shale::Runtime* base, std::string gate)
      : ForwardingRuntime(base), gate_(std::move(gate)) {}
  void YieldPoint(const char* name) override {
    if (gate_ != name) return base()->YieldPoint(name);
    reached_ = true;
    while (closed_ && passes_ == 0) base()->SleepForMicroseconds(100);
    if (closed_) passes_--;
  }

  bool reached() const { return reached_; }
  void Open() { closed_ = false; }
  void Close() { closed_ = true; }
  // Lets one task through the closed gate.
  void PassOne() { passes_++; }

 private:
  const std::string gate_;
  bool reached_ = false;  // the simulation runs one task at a time: no lock
  bool closed_ = true;
  int passes_ = 0;
};

struct Outcome {
  std::vector<std::string> prepared;  // after recovery
  std::string t_key;                  // Read() of T's key
  std::string plain_key;              // Read() of the plain write's key
  std::string base_key;               // Read() of the write synced by the flush
  std::vector<std::string> errors;
};

// Waits (in simulated time) until done() or ~1 simulated second passed.
template <typename Fn>
bool WaitFor(shale::Runtime* rt, const Fn& done) {
  for (int i = 0; i < 10'000 && !done(); i++) rt->SleepForMicroseconds(100);
  return done();
}

void Check(const Status& s, const char* what, Outcome* out) {
  if (!s.ok()) out->errors.push_back(std::string(what) + ": " + s.ToString());
}

// Flips a bit in the first record's payload of the highest-numbered WAL
// that has durable bytes.
void FlipNewestWrittenLog(shale::sim::SimDisk* disk, Outcome* out) {
  std::string newest;
  for (const auto& file : disk->DurableFiles()) {
    if (file.path.size() < 4 || file.path.substr(file.path.size() - 4) != ".log") continue;
    if (file.size_bytes == 0) continue;
    if (newest.empty() || file.path > newest) newest = file.path;  // fixed-width numbers
  }
  if (newest.empty()) return out->errors.push_back("no WAL to flip");
  Check(disk->CorruptDurable(newest, 12, 3), "flip", out);
}

// One TransactionDB on a SimDisk in a Simulation: Run opens it, lets steps
// act, then crashes the process, loses power (no unsynced sector
// survives), reopens and reads back.
struct World {
  World(shale::TxnWritePolicy policy, uint64_t planted_bugs)
      : sim(SimOptions()),
        disk(&sim, shale::sim::LatencyProfile::Zero()),
        runtime(sim.runtime(), "flush.after_build"),
        env(&disk, sim.clock(), &runtime) {
    options.env = &env;
    options.create_if_missing = true;
    options.planted_bugs = planted_bugs;
    txn_options.write_policy = policy;
    runtime.Open();  // steps that want the gate close it
  }
  static shale::sim::SimulationOptions SimOptions() {
    shale::sim::SimulationOptions o;
    o.seed = 7;
    return o;
  }

  using Steps = std::function<void(shale::TransactionDB* db, Outcome* out)>;
  // damage acts on the disk after the power loss, before the reopen.
  Outcome Run(
      const Steps& steps, const std::function<void(Outcome*)>& damage = [](Outcome*) {}) {
    Outcome out;
    const Status run = sim.Run([&] {
      std::unique_ptr<shale::TransactionDB> db;
      Check(shale::TransactionDB::Open(options, txn_options, "/db", &db), "Open", &out);
      if (db == nullptr) return;
      Check(db->Put(shale::WriteOptions(), "base", "0"), "Put base", &out);
      steps(db.get(), &out);
      (void)db.release();  // abandoned with the crashed process
      sim.Crash();
      disk.PowerLoss(uint64_t{1} << 62);
      damage(&out);
      Check(shale::TransactionDB::Open(options, txn_options, "/db", &db), "reopen", &out);
      if (db == nullptr) return;
      out.prepared = db->GetPreparedTransactionNames();
      out.t_key = Read(db.get(), "k");
      out.plain_key = Read(db.get(), "x");
      out.base_key = Read(db.get(), "base");
      (void)db.release();
      sim.Crash();
    });
    Check(run, "simulation", &out);
    return out;
  }

  shale::sim::Simulation sim;
  shale::sim::SimDisk disk;
  GateRuntime runtime;
  shale::Env env;
  shale::Options options;
  shale::TransactionDBOptions txn_options;
};

// T (key "k") is prepared; a Flush starts and holds at the closed gate,
// before installing its table.
std::unique_ptr<shale::Transaction> PrepareAndHoldFlush(World* w, shale::TransactionDB* db,
                                                        Outcome* out) {
  std::unique_ptr<shale::Transaction> t =
      db->BeginTransaction(shale::WriteOptions(), shale::TransactionOptions());
  Check(t->Put("k", "t-value"), "T Put", out);
  Check(t->SetName("T"), "SetName", out);
  Check(t->Prepare(), "Prepare", out);
  w->runtime.Close();
  shale::FlushOptions no_wait;
  no_wait.wait = false;
  Check(db->Flush(no_wait), "Flush", out);
  if (!WaitFor(&w->runtime, [&] { return w->runtime.reached(); }))
    out->errors.push_back("no flush");
  return t;
}

// Waits until the held flush's table is installed (the only table).
void AwaitOneTable(World* w, shale::TransactionDB* db, Outcome* out) {
  std::string files;
  if (!WaitFor(&w->runtime, [&] {
        return db->GetProperty("shale.num-files-at-level0", &files) && files == "1";
      })) {
    out->errors.push_back("the flush did not install");
  }
}

// T is prepared, a flush holds before installing, then a plain write and
// T's Commit land in the live WAL; the flush installs (file comment).
Outcome CommitDuringFlush(shale::TxnWritePolicy policy, uint64_t planted_bugs) {
  World w(policy, planted_bugs);
  return w.Run([&w](shale::TransactionDB* db, Outcome* out) {
    std::unique_ptr<shale::Transaction> t = PrepareAndHoldFlush(&w, db, out);
    Check(db->Put(shale::WriteOptions(), "x", "plain"), "Put x", out);
    Check(t->Commit(), "Commit", out);
    w.runtime.Open();
    AwaitOneTable(&w, db, out);
    (void)t.release();  // abandoned with the crashed process
  });
}

// T is prepared (WAL A) and its data flushed from A's memtable, held
// before installing; T's Rollback and a plain write land in WAL B; a
// second Flush closes (and syncs) B and waits behind the first. The first
// installs; then a power loss, and a flip inside B's first record. With
// compacted, k held "v1" in a table first, and once the held flush
// installs, L0's two tables are compacted (trigger 2) while B's memtable
// is still unflushed.
Outcome RollbackInWalFlippedAfterClose(shale::TxnWritePolicy policy, bool compacted) {
  World w(policy, shale::kBugNone);
  w.options.max_write_buffer_number = 3;
  if (compacted) w.options.level0_file_num_compaction_trigger = 2;
  return w.Run(
      [&w, compacted](shale::TransactionDB* db, Outcome* out) {
        if (compacted) {
          Check(db->Put(shale::WriteOptions(), "k", "v1"), "Put k", out);
          Check(db->Flush(shale::FlushOptions()), "Flush v1", out);
        }
        std::unique_ptr<shale::Transaction> t = PrepareAndHoldFlush(&w, db, out);
        Check(t->Rollback(), "Rollback", out);
        // WAL B's memtable must hold something, or the Flush only syncs B
        // (write-committed's rollback is a WAL-only marker).
        Check(db->Put(shale::WriteOptions(), "x", "plain"), "Put x", out);
        shale::FlushOptions no_wait;
        no_wait.wait = false;
        Check(db->Flush(no_wait), "second Flush", out);
        w.runtime.PassOne();
        std::string files;
        const char* property =
            compacted ? "shale.num-files-at-level1" : "shale.num-files-at-level0";
        if (!WaitFor(&w.runtime,
                     [&] { return db->GetProperty(property, &files) && files == "1"; })) {
          out->errors.push_back(std::string("no table in ") + property);
        }
        (void)t.release();  // abandoned with the crashed process
      },
      [&w](Outcome* out) { FlipNewestWrittenLog(&w.disk, out); });
}

}  // namespace

TEST_CASE("a rollback marker's WAL flipped after it closed leaves its transaction prepared",
          "[txn][recovery][power-loss]") {
  const shale::TxnWritePolicy policy =
      GENERATE(shale::TxnWritePolicy::kWriteCommitted, shale::TxnWritePolicy::kWritePrepared);
  INFO(PolicyName(policy));
  const Outcome out = RollbackInWalFlippedAfterClose(policy, /*compacted=*/false);
  for (const std::string& e : out.errors) INFO(e);
  REQUIRE(out.errors.empty());
  REQUIRE(out.base_key == "0");
  // Point-in-time recovery stops at the flip, before the rollback marker:
  // T is prepared again and its flushed data stays invisible.
  REQUIRE(out.prepared == std::vector<std::string>{"T"});
  REQUIRE(out.t_key == "NOT_FOUND");
}

TEST_CASE("a commit lost with the live WAL leaves its transaction prepared after a flush",
          "[txn][recovery][power-loss]") {
  const shale::TxnWritePolicy policy =
      GENERATE(shale::TxnWritePolicy::kWriteCommitted, shale::TxnWritePolicy::kWritePrepared);
  INFO(PolicyName(policy));
  const Outcome out = CommitDuringFlush(policy, shale::kBugNone);
  for (const std::string& e : out.errors) INFO(e);
  REQUIRE(out.errors.empty());
  // The power loss took WAL B's tail: the plain write and the commit after it.
  REQUIRE(out.base_key == "0");
  REQUIRE(out.plain_key == "NOT_FOUND");
  REQUIRE(out.t_key == "NOT_FOUND");
  REQUIRE(out.prepared == std::vector<std::string>{"T"});
}

TEST_CASE("the planted early WAL retirement loses the prepared transaction",
          "[txn][recovery][power-loss][bugs]") {
  const shale::TxnWritePolicy policy =
      GENERATE(shale::TxnWritePolicy::kWriteCommitted, shale::TxnWritePolicy::kWritePrepared);
  INFO(PolicyName(policy));
  const Outcome out = CommitDuringFlush(policy, shale::kBugRetireSectionWalAtFinish);
  for (const std::string& e : out.errors) INFO(e);
  REQUIRE(out.errors.empty());
  REQUIRE(out.plain_key == "NOT_FOUND");
  REQUIRE(out.prepared.empty());
  // WritePrepared: T's flushed data reads as committed though its commit
  // was lost with the plain write before it (prefix recovery broken).
  REQUIRE(out.t_key == (policy == shale::TxnWritePolicy::kWritePrepared ? "t-value" : "NOT_FOUND"));
}

TEST_CASE("a Flush with nothing in the memtable still makes a commit marker durable",
          "[txn][recovery][power-loss]") {
  // WritePrepared: T's data is flushed while prepared, so its Commit is a
  // WAL-only marker and the memtable stays empty for the Flush after it.
  World w(shale::TxnWritePolicy::kWritePrepared, shale::kBugNone);
  const Outcome out = w.Run([](shale::TransactionDB* db, Outcome* out) {
    std::unique_ptr<shale::Transaction> t =
        db->BeginTransaction(shale::WriteOptions(), shale::TransactionOptions());
    Check(t->Put("k", "t-value"), "T Put", out);
    Check(t->SetName("T"), "SetName", out);
    Check(t->Prepare(), "Prepare", out);
    Check(db->Flush(shale::FlushOptions()), "Flush", out);
    Check(t->Commit(), "Commit", out);
    Check(db->Flush(shale::FlushOptions()), "Flush after Commit", out);
    (void)t.release();
  });
  for (const std::string& e : out.errors) INFO(e);
  REQUIRE(out.errors.empty());
  REQUIRE(out.prepared.empty());
  REQUIRE(out.t_key == "t-value");
}

TEST_CASE("compaction keeps the version under a rollback whose WAL is closed but not flushed",
          "[txn][recovery][power-loss]") {
  const Outcome out =
      RollbackInWalFlippedAfterClose(shale::TxnWritePolicy::kWritePrepared, /*compacted=*/true);
  for (const std::string& e : out.errors) INFO(e);
  REQUIRE(out.errors.empty());
  // The flip takes the rollback: T is prepared again, and k reads the
  // value under T's, which the compaction must not have dropped.
  REQUIRE(out.prepared == std::vector<std::string>{"T"});
  REQUIRE(out.t_key == "v1");
}

}  // namespace shale_test
