// With two write queues, the WAL holds writes in sequence order: each
// queue's leader allocates its sequences and appends its record as one
// step, as RocksDB's log_write_mutex_ makes it. Recovery replays a prefix
// of the WAL, so a WAL out of sequence order recovers a state that is no
// prefix in sequence order (a later write without an earlier one).
//
// Plain writers (the main queue) and WritePrepared transactions (whose
// prepared sections and commit markers take the second queue) run as
// simulated tasks under several schedules; then every record of every WAL
// is read back in file order.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "db/write_batch_internal.h"
#include "shale/env.h"
#include "shale/transaction_db.h"
#include "shale/write_batch.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"
#include "wal/log_reader.h"

namespace {

using shale::Status;

constexpr int kOpsPerTask = 40;

void PlainWrites(shale::TransactionDB* db, int task, std::vector<std::string>* errors) {
  for (int i = 0; i < kOpsPerTask; i++) {
    const std::string key = "p" + std::to_string(task) + "." + std::to_string(i % 7);
    const Status s = db->Put(shale::WriteOptions(), key, std::string(40, 'v'));
    if (!s.ok()) errors->push_back("Put: " + s.ToString());
  }
}

void Transactions(shale::TransactionDB* db, int task, std::vector<std::string>* errors) {
  for (int i = 0; i < kOpsPerTask / 2; i++) {
    std::unique_ptr<shale::Transaction> t = db->BeginTransaction(shale::WriteOptions());
    const std::string name = "t" + std::to_string(task) + "." + std::to_string(i);
    Status s = t->SetName(name);
    if (s.ok()) s = t->Put("t" + std::to_string(task) + "." + std::to_string(i % 5), "x");
    if (s.ok()) s = t->Prepare();
    if (s.ok()) s = t->Commit();
    if (!s.ok()) errors->push_back(name + ": " + s.ToString());
  }
}

// The first sequence of each WAL record, in file order, per log.
std::vector<std::vector<uint64_t>> WalSequences(shale::Env* env, std::vector<std::string>* errors) {
  std::vector<std::string> names;
  if (!env->fs()->GetChildren("/db", &names).ok()) errors->push_back("GetChildren");
  std::vector<std::vector<uint64_t>> logs;
  for (const std::string& name : names) {
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".log") != 0) continue;
    std::unique_ptr<shale::SequentialFile> file;
    if (!env->fs()->NewSequentialFile("/db/" + name, shale::FileOptions(), &file).ok()) {
      errors->push_back("open " + name);
      continue;
    }
    shale::log::Reader reader(std::move(file), 0);
    shale::Slice record;
    std::string scratch;
    logs.emplace_back();
    while (reader.ReadRecord(&record, &scratch) == shale::log::ReadResult::kRecord) {
      shale::WriteBatch batch;
      if (!shale::WriteBatchInternal::SetContents(&batch, record).ok()) continue;
      logs.back().push_back(shale::WriteBatchInternal::Sequence(&batch));
    }
  }
  return logs;
}

}  // namespace

TEST_CASE("two write queues append to the WAL in sequence order", "[txn][wal]") {
  for (uint64_t seed = 1; seed <= 12; seed++) {
    INFO("seed " << seed);
    shale::sim::SimulationOptions sim_options;
    sim_options.seed = seed;
    shale::sim::Simulation sim(sim_options);
    shale::sim::SimDisk disk(&sim, shale::sim::LatencyProfile::NVMe());
    shale::Env env(&disk, sim.clock(), sim.runtime());
    shale::Options options;
    options.env = &env;
    options.create_if_missing = true;
    options.two_write_queues = true;
    options.write_buffer_size = 64 << 10;  // one WAL holds the whole run
    shale::TransactionDBOptions txn_options;
    txn_options.write_policy = shale::TxnWritePolicy::kWritePrepared;
    std::vector<std::string> errors;
    std::vector<std::vector<uint64_t>> logs;
    const Status run = sim.Run([&] {
      std::unique_ptr<shale::TransactionDB> db;
      const Status open = shale::TransactionDB::Open(options, txn_options, "/db", &db);
      if (!open.ok()) return errors.push_back("Open: " + open.ToString());
      std::vector<std::unique_ptr<shale::Thread>> tasks;
      for (int task = 0; task < 4; task++) {
        tasks.push_back(sim.runtime()->StartThread("w" + std::to_string(task), [&, task] {
          task % 2 == 0 ? PlainWrites(db.get(), task, &errors)
                        : Transactions(db.get(), task, &errors);
        }));
      }
      for (auto& t : tasks) t->Join();
      logs = WalSequences(&env, &errors);
      if (!db->Close().ok()) errors.push_back("Close");
    });
    REQUIRE(run.ok());
    INFO((errors.empty() ? "" : errors.front()));
    REQUIRE(errors.empty());
    size_t records = 0;
    for (const std::vector<uint64_t>& seqs : logs) {
      records += seqs.size();
      for (size_t i = 1; i < seqs.size(); i++) {
        INFO("record " << i << ": sequence " << seqs[i] << " after " << seqs[i - 1]);
        REQUIRE(seqs[i] >= seqs[i - 1]);
      }
    }
    REQUIRE(records >= kOpsPerTask);
  }
}
