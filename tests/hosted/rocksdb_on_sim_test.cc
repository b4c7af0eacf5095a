// RocksDB 7.8.3, as Debian ships it, on the simulator through its own
// interfaces (hosted/rocksdb/: a FileSystem over the simulated disk, a
// SystemClock on simulated time, an Env whose thread pools are tasks) and
// the interposer for what it does past them (its timer thread, locks,
// clocks): it opens, writes, flushes, reads, closes with every thread
// joined, keeps a synced write through a power loss, and takes its
// session id from the seed.
#include <catch2/catch.hpp>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "db/write_batch_internal.h"
#include "hosted/hosted_code.h"
#include "hosted/hosted_rig.h"
#include "hosted/rocksdb/rocksdb_db.h"
#include "hosted/rocksdb/rocksdb_env.h"
#include "hosted/rocksdb/rocksdb_open.h"
#include "sim/foreign_sync.h"

namespace shale::hosted {
namespace {

rocksdb::Options SmallOptions(rocksdb::Env* env) {
  rocksdb::Options o;
  o.env = env;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;
  o.max_file_opening_threads = 1;
  return o;
}

std::string Key(int i) { return "key" + std::to_string(i); }

struct RocksDbRun : HostedRun {
  std::string open_status;
  std::vector<std::string> files;
};

RocksDbRun WriteFlushRead(uint64_t seed) {
  RegisterHostedForTest("librocksdb.so");
  HostedRig rig(seed);
  RocksDbRun out;
  int& mismatches = out.mismatches;
  std::string& open_status = out.open_status;
  std::vector<std::string>& files = out.files;
  out.run_status = rig.sim.Run([&] {
    RocksDbEnv env(&rig.env, seed);
    rocksdb::DB* db = nullptr;
    const rocksdb::Status opened = OpenRocksDb(SmallOptions(&env), "/db", &env, &db);
    open_status = opened.ToString();
    if (opened.ok()) {
      for (int i = 0; i < 3000; i++) {
        (void)db->Put(rocksdb::WriteOptions(), Key(i), std::string(100, 'a' + i % 26));
      }
      (void)db->Flush(rocksdb::FlushOptions());
      for (int i = 0; i < 3000; i += 7) {
        std::string value;
        const rocksdb::Status s = db->Get(rocksdb::ReadOptions(), Key(i), &value);
        if (!s.ok() || value != std::string(100, 'a' + i % 26)) mismatches++;
      }
      (void)db->Close();
      delete db;
    }
    env.Shutdown();
    (void)rig.disk.GetChildren("/db", &files);
  });
  out.hash = rig.sim.trace()->value();
  out.foreign_calls = rig.sim.foreign_sync()->calls();
  return out;
}

TEST_CASE("RocksDB opens, writes, flushes, reads and closes on the simulator",
          "[hosted][rocksdb]") {
  const RocksDbRun run = WriteFlushRead(3);
  INFO(run.open_status);
  INFO(run.run_status.ToString());
  REQUIRE(run.open_status == "OK");
  REQUIRE(run.run_status.ok());
  CHECK(run.mismatches == 0);
  const std::vector<std::string>& files = run.files;
  CHECK(std::count_if(files.begin(), files.end(), [](const std::string& f) {
          return f.size() > 4 && f.substr(f.size() - 4) == ".sst";
        }) > 0);
}

TEST_CASE("RocksDB on the simulator keeps a synced write through a power loss",
          "[hosted][rocksdb]") {
  RegisterHostedForTest("librocksdb.so");
  HostedRig rig(9);
  std::string recovered;
  std::string reopen_status;
  const Status run = rig.sim.Run([&] {
    auto* first_env = new RocksDbEnv(&rig.env, 9);  // abandoned with the process
    rocksdb::DB* db = nullptr;
    REQUIRE(OpenRocksDb(SmallOptions(first_env), "/db", first_env, &db).ok());
    rocksdb::WriteOptions sync;
    sync.sync = true;
    REQUIRE(db->Put(sync, "durable", "yes").ok());
    for (int i = 0; i < 200; i++) (void)db->Put(rocksdb::WriteOptions(), Key(i), "v");
    rig.sim.Crash();
    rig.disk.PowerLoss(/*survive_one_in=*/2);
    RocksDbEnv second_env(&rig.env, 9);
    rocksdb::DB* reopened = nullptr;
    const rocksdb::Status s = OpenRocksDb(SmallOptions(&second_env), "/db", &second_env, &reopened);
    reopen_status = s.ToString();
    if (s.ok()) {
      (void)reopened->Get(rocksdb::ReadOptions(), "durable", &recovered);
      (void)reopened->Close();
      delete reopened;
    }
    second_env.Shutdown();
  });
  INFO(reopen_status);
  INFO(run.ToString());
  REQUIRE(run.ok());
  CHECK(reopen_status == "OK");
  CHECK(recovered == "yes");
}

// The session id is the seed's, through the library's own hook, and the
// info log carries no addresses: two runs of a seed write the same bytes
// there, where the library alone would draw a new id each time.
std::string SessionIdOfRun(uint64_t seed) {
  RegisterHostedForTest("librocksdb.so");
  HostedRig rig(seed);
  std::string id;
  std::string log;
  const Status run = rig.sim.Run([&] {
    RocksDbEnv env(&rig.env, seed);
    rocksdb::DB* db = nullptr;
    REQUIRE(OpenRocksDb(SmallOptions(&env), "/db", &env, &db).ok());
    REQUIRE(db->GetDbSessionId(id).ok());
    (void)db->Close();
    delete db;
    env.Shutdown();
    REQUIRE(ReadFileToString(&rig.disk, "/db/LOG", &log).ok());
  });
  REQUIRE(run.ok());
  CHECK(log.find("0x7f") == std::string::npos);
  CHECK(log.find("0x????") != std::string::npos);
  return id;
}

TEST_CASE("RocksDB's session id on the simulator is the seed's", "[hosted][rocksdb]") {
  const std::string first = SessionIdOfRun(12);
  CHECK(first.size() == 20);
  CHECK(SessionIdOfRun(12) == first);
  CHECK(SessionIdOfRun(13) != first);
}

// RocksDbDb, as the scenarios drive it: a write's sequence is the one
// RocksDB stamped on its batch, a snapshot's the library's own, and reads
// in both directions agree with what was written.
TEST_CASE("RocksDbDb numbers writes and snapshots as RocksDB does", "[hosted][rocksdb]") {
  REQUIRE(PrepareRocksDbHosting().ok());
  HostedRig rig(21);
  uint64_t batch_sequence = 0, put_sequence = 0, latest = 0, snapshot_sequence = 0;
  std::string value, before_b, after_close;
  const Status run = rig.sim.Run([&] {
    RocksDbOptions options;
    options.identity_seed = 21;
    std::unique_ptr<DB> db;
    REQUIRE(RocksDbDb::Open(options, &rig.env, "/db", &db).ok());
    WriteBatch three;
    three.Put("a", "1");
    three.Delete("b");
    three.Put("c", "3");
    REQUIRE(db->Write(WriteOptions(), &three).ok());
    batch_sequence = WriteBatchInternal::Sequence(&three);
    WriteBatch one;
    one.Put("b", "2");
    WriteOptions sync;
    sync.sync = true;
    REQUIRE(db->Write(sync, &one).ok());
    put_sequence = WriteBatchInternal::Sequence(&one);
    latest = db->GetLatestSequenceNumber();
    const Snapshot* snapshot = db->GetSnapshot();
    snapshot_sequence = snapshot->GetSequenceNumber();
    db->ReleaseSnapshot(snapshot);
    REQUIRE(db->Get(ReadOptions(), "b", &value).ok());
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    it->SeekForPrev("bb");
    if (it->Valid()) before_b = it->key().ToString();
    it.reset();
    REQUIRE(db->Close().ok());
    after_close = db->Put(WriteOptions(), "d", "4").ToString();
  });
  INFO(run.ToString());
  REQUIRE(run.ok());
  CHECK(batch_sequence == 1);
  CHECK(put_sequence == 4);
  CHECK(latest == 4);
  CHECK(snapshot_sequence == 4);
  CHECK(value == "2");
  CHECK(before_b == "b");
  CHECK(after_close != "OK");
}

TEST_CASE("RocksDbDb ties a sticky writer error to its cause only when there is one",
          "[hosted][rocksdb]") {
  const std::string cause = "IO error: /db/000004.log: injected EIO on write";
  const rocksdb::Status sticky = rocksdb::Status::IOError("Writer has previous error.");
  const rocksdb::Status skipped = rocksdb::Status::IOError("Seen error. Skip writing buffer.");
  const std::string proven = WithWriterErrorCause(sticky, cause).ToString();
  CHECK(proven.find("Writer has previous error.") != std::string::npos);
  CHECK(proven.find("a file this process writes failed before: " + cause) != std::string::npos);
  CHECK(WithWriterErrorCause(skipped, cause).IsIOError());
  CHECK(WithWriterErrorCause(skipped, cause).ToString().find(cause) != std::string::npos);
  // No earlier error: the status stays as RocksDB gave it, unproven.
  CHECK(WithWriterErrorCause(sticky, "").ToString() == FromRocksDb(sticky).ToString());
  // Not a sticky error: nothing is added, whatever failed before.
  const rocksdb::Status other = rocksdb::Status::IOError("/db/CURRENT: No such file");
  CHECK(WithWriterErrorCause(other, cause).ToString() == FromRocksDb(other).ToString());
  CHECK(WithWriterErrorCause(rocksdb::Status::OK(), cause).ok());
}

}  // namespace
}  // namespace shale::hosted
