// LevelDbDb: LevelDB behind Shale's DB interface, on the simulator. The
// sequence numbers it reports (for writes, from LevelDB's own log; for
// snapshots, from LevelDB's snapshot object) must be LevelDB's: replaying
// every acknowledged write in that order gives exactly what a snapshot at
// each sequence reads, and the last state.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hosted/hosted_rig.h"
#include "hosted/leveldb/leveldb_db.h"
#include "shale/env.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::hosted {
namespace {

using Ops = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct Acked {
  uint64_t sequence;
  Ops ops;
};

struct SnapshotRead {
  uint64_t sequence;
  std::map<std::string, std::string> contents;
};

struct Outcome {
  Status run;
  std::vector<std::string> errors;
  std::vector<Acked> acked;
  std::vector<SnapshotRead> snapshots;
  std::map<std::string, std::string> final_contents;
  uint64_t latest_sequence = 0;
  uint64_t hash = 0;
};

std::map<std::string, std::string> ReadAt(DB* db, const Snapshot* snapshot) {
  ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<Iterator> it(db->NewIterator(ro));
  std::map<std::string, std::string> out;
  for (it->SeekToFirst(); it->Valid(); it->Next())
    out[it->key().ToString()] = it->value().ToString();
  return out;
}

void Client(DB* db, sim::ChoiceTape* rng, int client, Outcome* out) {
  for (int op = 0; op < 150; op++) {
    if (rng->OneIn(10)) {
      const Snapshot* snapshot = db->GetSnapshot();
      out->snapshots.push_back({snapshot->GetSequenceNumber(), ReadAt(db, snapshot)});
      db->ReleaseSnapshot(snapshot);
      continue;
    }
    WriteBatch batch;
    Ops ops;
    const int n = 1 + static_cast<int>(rng->Uniform(4));
    for (int i = 0; i < n; i++) {
      const std::string key = "k" + std::to_string(rng->Uniform(40));
      if (rng->OneIn(4)) {
        batch.Delete(key);
        ops.emplace_back(key, std::nullopt);
      } else {
        const std::string value = "c" + std::to_string(client) + "." + std::to_string(op) + "." +
                                  std::to_string(i) + std::string(rng->Uniform(300), 'x');
        batch.Put(key, value);
        ops.emplace_back(key, value);
      }
    }
    WriteOptions wo;
    wo.sync = rng->OneIn(5);
    const Status s = db->Write(wo, &batch);
    if (!s.ok()) {
      out->errors.push_back(s.ToString());
      continue;
    }
    out->acked.push_back({batch.Sequence(), std::move(ops)});
  }
}

Outcome Run(uint64_t seed) {
  REQUIRE(PrepareLevelDbHosting().ok());
  HostedRig rig(seed);
  sim::Simulation& sim = rig.sim;
  Env& env = rig.env;
  Outcome out;
  out.run = sim.Run([&] {
    LevelDbOptions lo;
    lo.write_buffer_size = 8 << 10;
    lo.max_file_size = 8 << 10;
    lo.bloom_bits_per_key = 10;
    std::unique_ptr<DB> db;
    const Status s = LevelDbDb::Open(lo, &env, "/db", &db);
    if (!s.ok()) {
      out.errors.push_back("open: " + s.ToString());
      return;
    }
    std::vector<std::unique_ptr<Thread>> clients;
    for (int c = 0; c < 3; c++) {
      clients.push_back(sim.runtime()->StartThread(
          "client" + std::to_string(c), [&, c] { Client(db.get(), sim.rng(), c, &out); }));
    }
    for (auto& client : clients) client->Join();
    out.final_contents = ReadAt(db.get(), nullptr);
    out.latest_sequence = db->GetLatestSequenceNumber();
    if (!db->Close().ok()) out.errors.push_back("close failed");
  });
  out.hash = sim.trace()->value();
  return out;
}

// The state after every acknowledged write with a sequence up to `upto`.
std::map<std::string, std::string> Replay(std::vector<Acked> acked, uint64_t upto) {
  std::sort(acked.begin(), acked.end(),
            [](const Acked& a, const Acked& b) { return a.sequence < b.sequence; });
  std::map<std::string, std::string> state;
  for (const Acked& w : acked) {
    if (w.sequence > upto) break;
    for (const auto& [key, value] : w.ops) {
      if (value) {
        state[key] = *value;
      } else {
        state.erase(key);
      }
    }
  }
  return state;
}

TEST_CASE("LevelDbDb reports LevelDB's own sequence numbers", "[hosted][leveldb]") {
  for (uint64_t seed = 1; seed <= 4; seed++) {
    const Outcome out = Run(seed);
    INFO("seed " << seed << ": " << out.run.ToString());
    REQUIRE(out.run.ok());
    REQUIRE(out.errors.empty());
    REQUIRE(out.acked.size() > 300);
    // Every write's records took their own sequences, with no gaps.
    std::vector<Acked> sorted = out.acked;
    std::sort(sorted.begin(), sorted.end(),
              [](const Acked& a, const Acked& b) { return a.sequence < b.sequence; });
    uint64_t next = 1;
    for (const Acked& w : sorted) {
      REQUIRE(w.sequence == next);
      next += w.ops.size();
    }
    REQUIRE(out.latest_sequence == next - 1);
    REQUIRE(out.final_contents == Replay(out.acked, out.latest_sequence));
    REQUIRE(out.snapshots.size() > 10);
    for (const SnapshotRead& read : out.snapshots) {
      INFO("snapshot at " << read.sequence);
      REQUIRE(read.contents == Replay(out.acked, read.sequence));
    }
  }
}

TEST_CASE("LevelDbDb runs repeat exactly", "[hosted][leveldb]") {
  const Outcome a = Run(9);
  const Outcome b = Run(9);
  REQUIRE(a.hash == b.hash);
  REQUIRE(a.latest_sequence == b.latest_sequence);
  REQUIRE(a.final_contents == b.final_contents);
}

}  // namespace
}  // namespace shale::hosted
