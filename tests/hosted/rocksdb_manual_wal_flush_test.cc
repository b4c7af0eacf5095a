// What the oracle's buffered log (WalWrites::kByBarrier) assumes of
// RocksDB's manual_wal_flush, on Debian's library as shipped: a write
// acknowledged without sync waits in RocksDB's own buffer, so a crash of
// the process loses it, until FlushWAL writes the buffer to the file; a
// sync write writes it too, and SyncWAL does not. Without the option, a process crash keeps
// every acknowledged write (the control).
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>

#include "hosted/hosted_rig.h"
#include "hosted/rocksdb/rocksdb_db.h"
#include "hosted/rocksdb/rocksdb_engine.h"
#include "sim/choice_tape.h"

namespace shale::hosted {
namespace {

// The write before the barrier, the barrier, the write after it.
enum class Barrier { kNone, kFlushWal, kSyncWrite, kSyncWal };

struct Recovered {
  std::string before;  // "found", "absent" or the Get's error
  std::string after;
  scenario::WalWrites wal_writes = scenario::WalWrites::kAtAck;
};

std::string Found(DB* db, const std::string& key) {
  std::string value;
  const Status s = db->Get(ReadOptions(), key, &value);
  return s.ok() ? "found" : s.IsNotFound() ? "absent" : s.ToString();
}

// The steps below, in a task of rig's simulation: "<before> <after>", or
// what went wrong.
std::string WriteCrashReopenSteps(const scenario::HostedEngine& engine,
                                  const scenario::HostedOptions& options, Barrier barrier,
                                  HostedRig* rig) {
  std::unique_ptr<DB> db;
  Status s = engine.Open(options, &rig->env, "/db", &db);
  if (s.ok()) s = db->Put(WriteOptions(), "before", "1");
  if (s.ok() && barrier == Barrier::kFlushWal) s = db->FlushWAL(/*sync=*/false);
  if (s.ok() && barrier == Barrier::kSyncWal) s = db->SyncWAL();
  if (s.ok() && barrier == Barrier::kSyncWrite) {
    WriteOptions sync;
    sync.sync = true;
    s = db->Put(sync, "synced", "1");
  }
  if (s.ok()) s = db->Put(WriteOptions(), "after", "1");
  if (!s.ok()) return "writing: " + s.ToString();
  (void)db.release();  // abandoned, as a killed process leaves it
  rig->sim.Crash();
  rig->disk.ProcessCrash();  // handles and locks die; the page cache stays
  std::unique_ptr<DB> reopened;
  s = engine.Open(options, &rig->env, "/db", &reopened);
  if (!s.ok()) return "reopening: " + s.ToString();
  const std::string out = Found(reopened.get(), "before") + " " + Found(reopened.get(), "after");
  s = reopened->Close();
  return s.ok() ? out : "closing: " + s.ToString();
}

std::string WriteCrashReopenHere(const scenario::HostedEngine& engine,
                                 const scenario::HostedOptions& options, Barrier barrier) {
  HostedRig rig(17);
  std::string out;
  const Status run =
      rig.sim.Run([&] { out = WriteCrashReopenSteps(engine, options, barrier, &rig); });
  return run.ok() ? out : "the run: " + run.ToString();
}

// Opens a DB with manual_wal_flush as given, writes "before", the barrier,
// then "after" (neither synced), crashes the process (the DB abandoned, the
// page cache kept) and reports what the reopened DB holds. The run is made
// in a child process, which exits at once: the crash leaves the library's
// process-wide timer thread abandoned, perhaps mid-task, and its
// destructor would wait for that task at exit (OutputOfChild).
Recovered WriteCrashReopen(bool manual_wal_flush, Barrier barrier) {
  REQUIRE(PrepareRocksDbHosting().ok());
  const scenario::HostedEngine& engine = RocksDbEngine();
  sim::ChoiceTape tape(17);
  std::map<std::string, std::string> described;
  const std::unique_ptr<scenario::HostedOptions> options = engine.Draw(
      &tape, {{"rocksdb.manual_wal_flush", manual_wal_flush ? "true" : "false"}}, &described);
  REQUIRE(described["rocksdb.manual_wal_flush"] == (manual_wal_flush ? "true" : "false"));
  const std::string out =
      OutputOfChild([&] { return WriteCrashReopenHere(engine, *options, barrier); });
  const size_t space = out.find(' ');
  REQUIRE(space != std::string::npos);
  Recovered r;
  r.before = out.substr(0, space);
  r.after = out.substr(space + 1);
  r.wal_writes = engine.wal_writes(*options);
  return r;
}

}  // namespace

TEST_CASE("RocksDB's manual_wal_flush: a process crash takes what FlushWAL did not write",
          "[hosted][rocksdb]") {
  const Recovered none = WriteCrashReopen(/*manual_wal_flush=*/true, Barrier::kNone);
  CHECK(none.wal_writes == scenario::WalWrites::kByBarrier);
  CHECK(none.before == "absent");
  CHECK(none.after == "absent");

  const Recovered flushed = WriteCrashReopen(/*manual_wal_flush=*/true, Barrier::kFlushWal);
  CHECK(flushed.before == "found");
  CHECK(flushed.after == "absent");

  const Recovered synced = WriteCrashReopen(/*manual_wal_flush=*/true, Barrier::kSyncWrite);
  CHECK(synced.before == "found");
  CHECK(synced.after == "absent");

  // SyncWAL syncs what is in the file; it does not write the buffer.
  const Recovered sync_wal = WriteCrashReopen(/*manual_wal_flush=*/true, Barrier::kSyncWal);
  CHECK(sync_wal.before == "absent");
  CHECK(sync_wal.after == "absent");
}

TEST_CASE("RocksDB without manual_wal_flush: a process crash keeps every acknowledged write",
          "[hosted][rocksdb]") {
  const Recovered r = WriteCrashReopen(/*manual_wal_flush=*/false, Barrier::kNone);
  CHECK(r.wal_writes == scenario::WalWrites::kAtAck);
  CHECK(r.before == "found");
  CHECK(r.after == "found");
}

}  // namespace shale::hosted
