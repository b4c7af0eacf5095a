// The hosting layer is not LevelDB's alone: ToyKv (toy_engine/toy_kv.h), a
// small engine written here as a shared library of its own with its own
// Env, std::mutex and std::condition_variable and a flusher thread, runs
// on the simulator through the same pieces (a registered library, the
// interposer, OS-thread tasks, an adapter over shale::Env). Checks each
// client's reads against its model, that the engine's locking reached the
// scheduler, that runs repeat exactly and depend on the seed, and that a
// sync write survives a power loss that abandons the flusher.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hosted/hosted_code.h"
#include "hosted/hosted_rig.h"
#include "hosted/toy_engine/toy_kv.h"
#include "shale/env.h"
#include "sim/foreign_sync.h"

namespace shale::hosted {
namespace {

class ToyFile final : public toykv::File {
 public:
  explicit ToyFile(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}
  bool Append(const std::string& data) override { return file_->Append(data).ok(); }
  bool Sync() override { return file_->Sync().ok(); }

 private:
  std::unique_ptr<WritableFile> file_;
};

// ToyKv's Env over Shale's: files on the simulated disk, threads as tasks.
// REQUIRES: Shutdown, from a task, before destruction.
class ToyEnv final : public toykv::Env {
 public:
  explicit ToyEnv(shale::Env* env) : env_(env) {}
  std::unique_ptr<toykv::File> NewFile(const std::string& path) override {
    std::unique_ptr<WritableFile> file;
    if (!env_->fs()->NewWritableFile(path, FileOptions(), &file).ok()) return nullptr;
    return std::make_unique<ToyFile>(std::move(file));
  }
  bool ReadFile(const std::string& path, std::string* data) override {
    return ReadFileToString(env_->fs(), path, data).ok();
  }
  bool Rename(const std::string& from, const std::string& to) override {
    return env_->fs()->RenameFile(from, to).ok();
  }
  bool SyncDir(const std::string& dir) override { return env_->fs()->SyncDir(dir).ok(); }
  void StartThread(std::function<void()> body) override {
    threads_.push_back(env_->runtime()->StartThread("toy.flusher", std::move(body)));
  }
  void Shutdown() {
    for (auto& thread : threads_) thread->Join();
    threads_.clear();
  }

 private:
  shale::Env* const env_;
  std::vector<std::unique_ptr<Thread>> threads_;
};

struct ToyRun : HostedRun {
  uint64_t flushes = 0;
  int errors = 0;
};

std::unique_ptr<toykv::Store> OpenToyKv(shale::Env* env, toykv::Env* toy_env) {
  REQUIRE(env->fs()->CreateDirIfMissing("/db").ok());
  std::string error;
  std::unique_ptr<toykv::Store> store = toykv::Store::Open(toy_env, "/db", &error);
  INFO(error);
  REQUIRE(store != nullptr);
  return store;
}

void ClientLoop(toykv::Store* store, sim::ChoiceTape* rng, int client, ToyRun* out) {
  std::map<std::string, std::string> model;
  for (int op = 0; op < 200; op++) {
    const std::string key = "c" + std::to_string(client) + "-k" + std::to_string(rng->Uniform(40));
    if (rng->Uniform(3) != 0) {
      const std::string value(20 + rng->Uniform(100), static_cast<char>('a' + op % 26));
      if (!store->Put(key, value, rng->OneIn(8))) out->errors++;
      model[key] = value;
      continue;
    }
    std::string value;
    const bool found = store->Get(key, &value);
    const auto it = model.find(key);
    if (found != (it != model.end()) || (found && value != it->second)) out->mismatches++;
  }
}

ToyRun RunToyKv(uint64_t seed) {
  RegisterHostedForTest("libshale_toy_kv.so");
  HostedRig rig(seed);
  ToyRun out;
  out.run_status = rig.sim.Run([&] {
    ToyEnv toy_env(&rig.env);
    std::unique_ptr<toykv::Store> store = OpenToyKv(&rig.env, &toy_env);
    std::vector<std::unique_ptr<Thread>> clients;
    for (int c = 0; c < 2; c++) {
      clients.push_back(rig.sim.runtime()->StartThread("client" + std::to_string(c), [&, c] {
        ClientLoop(store.get(), rig.sim.rng(), c, &out);
      }));
    }
    for (auto& client : clients) client->Join();
    out.flushes = store->flushes();
    store.reset();
    toy_env.Shutdown();
  });
  out.hash = rig.sim.trace()->value();
  out.foreign_calls = rig.sim.foreign_sync()->calls();
  return out;
}

TEST_CASE("a small engine written here runs hosted, one thread at a time", "[hosted][toy]") {
  const ToyRun run = RunToyKv(5);
  INFO(run.run_status.ToString());
  REQUIRE(run.run_status.ok());
  REQUIRE(run.errors == 0);
  REQUIRE(run.mismatches == 0);
  REQUIRE(run.flushes > 1);  // the flusher thread ran, woken by the clients
  // Every Put and Get locks the engine's std::mutex: those calls, and the
  // flusher's condition-variable waits, reached the scheduler.
  REQUIRE(run.foreign_calls > 400);
}

TEST_CASE("the hosted small engine repeats exactly and depends on the seed", "[hosted][toy]") {
  RequireRepeatsAndDependsOnSeed(
      &RunToyKv, 21, [](const ToyRun& a, const ToyRun& b) { return a.flushes == b.flushes; });
}

TEST_CASE("the hosted small engine keeps a sync write through a power loss", "[hosted][toy]") {
  RegisterHostedForTest("libshale_toy_kv.so");
  HostedRig rig(9);
  std::string recovered;
  const Status run = rig.sim.Run([&] {
    auto* first_env = new ToyEnv(&rig.env);                          // abandoned with the process
    toykv::Store* store = OpenToyKv(&rig.env, first_env).release();  // abandoned too
    REQUIRE(store->Put("durable", "yes", /*sync=*/true));
    for (int i = 0; i < 100; i++) (void)store->Put("k" + std::to_string(i), "v", false);
    rig.sim.Crash();
    rig.disk.PowerLoss(/*survive_one_in=*/2);
    ToyEnv second_env(&rig.env);
    std::unique_ptr<toykv::Store> reopened = OpenToyKv(&rig.env, &second_env);
    (void)reopened->Get("durable", &recovered);
    reopened.reset();
    second_env.Shutdown();
  });
  INFO(run.ToString());
  REQUIRE(run.ok());
  REQUIRE(recovered == "yes");
}

}  // namespace
}  // namespace shale::hosted
