// The crash-recovery scenario passes on the correct engine and is
// deterministic: the same seed gives the same trace hash and result. With
// transactions drawn on (half the seeds), both write policies pass, crashes
// leave prepared transactions to recover, and a lost sync commit is caught.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/escaping.h"
#include "common/scenario_checks.h"
#include "scenarios/crash_recovery/crash_recovery.h"
#include "scenarios/crash_recovery/workload.h"
#include "shale/options.h"

using namespace shale::scenario;
using shale::Status;

namespace {
RunResult RunSeed(uint64_t seed, int ops = 400, int crashes = 2, uint64_t bugs = 0) {
  RunConfig config;
  config.scenario = "crash-recovery";
  config.seed = seed;
  config.ops = ops;
  config.crashes = crashes;
  config.planted_bugs = bugs;
  return CrashRecoveryScenario()->Run(config);
}

std::string Describe(const RunResult& r) {
  return "seed " + std::to_string(r.seed) + " (" + r.options_drawn.at("transactions") +
         "): " + r.failure.property + " key " + r.failure.key + " expected " + r.failure.expected +
         " observed " + r.failure.observed + " -- " + r.failure.message;
}

uint64_t Observed(const RunResult& r, const std::string& event) {
  const auto it = r.observed.find(event);
  return it == r.observed.end() ? 0 : it->second;
}
}  // namespace

TEST_CASE("crash-recovery passes on the correct engine", "[scenario]") {
  for (uint64_t seed = 1; seed <= 20; seed++) {
    const RunResult r = RunSeed(seed);
    INFO("seed " << seed << ": " << r.failure.property << " key " << r.failure.key << " expected "
                 << r.failure.expected << " observed " << r.failure.observed << " -- "
                 << r.failure.message);
    REQUIRE(r.passed);
    REQUIRE(r.crashes >= 1);
    REQUIRE(r.ops > 0);
  }
}

TEST_CASE("crash-recovery is deterministic per seed", "[scenario]") {
  for (uint64_t seed : {3u, 17u}) {
    const RunResult a = RunSeed(seed);
    const RunResult b = RunSeed(seed);
    REQUIRE(a.trace_hash == b.trace_hash);
    REQUIRE(a.ops == b.ops);
    REQUIRE(a.steps == b.steps);
    REQUIRE(a.sim_time_ns == b.sim_time_ns);
  }
  REQUIRE(RunSeed(3).trace_hash != RunSeed(4).trace_hash);
}

TEST_CASE("crash-recovery passes with transactions under both write policies", "[scenario][txn]") {
  std::map<std::string, int> passed;  // write policy -> seeds passed
  constexpr int kPerPolicy = 15;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    if (passed["write-committed"] >= kPerPolicy && passed["write-prepared"] >= kPerPolicy) break;
    const RunResult r = RunSeed(seed);
    const std::string mode = r.options_drawn.at("transactions");
    if (mode == "off") continue;
    INFO(Describe(r));
    REQUIRE(r.passed);
    passed[mode]++;
  }
  REQUIRE(passed["write-committed"] >= kPerPolicy);
  REQUIRE(passed["write-prepared"] >= kPerPolicy);
}

// Seeds that draw transactions off run exactly as before they existed (the
// draw has a stream of its own): no transaction events, nothing recovered.
TEST_CASE("crash-recovery draws transactions for about half the seeds", "[scenario][txn]") {
  int on = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    const RunResult r = RunSeed(seed, 100, 1);
    const std::string mode = r.options_drawn.at("transactions");
    REQUIRE((mode == "off" || mode == "write-committed" || mode == "write-prepared"));
    if (mode == "off") {
      for (const auto& [event, count] : r.observed) {
        INFO(event);
        REQUIRE(event.find("transaction") == std::string::npos);
      }
    } else {
      on++;
    }
  }
  REQUIRE(on >= 10);
  REQUIRE(on <= 30);
}

// The recovery path is exercised: some crash leaves a transaction prepared,
// and the scenario checks, then commits or rolls it back.
TEST_CASE("crash-recovery recovers prepared transactions after crashes", "[scenario][txn]") {
  uint64_t found_at = 0;
  for (uint64_t seed = 1; seed <= 200 && found_at == 0; seed++) {
    const RunResult r = RunSeed(seed, 2000, 3);
    if (r.options_drawn.at("transactions") == "off") continue;
    INFO(Describe(r));
    REQUIRE(r.passed);
    if (Observed(r, "recovered prepared transactions") > 0) found_at = seed;
  }
  REQUIRE(found_at != 0);
}

// The checker bites on transactions: with sync writes acknowledged before
// their WAL sync, a power loss loses a sync-committed transaction, and the
// failure names it as such. The failing seed replays to the same failure.
TEST_CASE("crash-recovery finds a lost sync transaction commit", "[scenario][txn][bugs]") {
  uint64_t found_at = 0;
  RunResult failure;
  for (uint64_t seed = 1; seed <= 1500 && found_at == 0; seed++) {
    RunResult r = RunSeed(seed, 2000, 3, shale::kBugAckSyncWriteBeforeWalSync);
    if (r.passed || r.options_drawn.at("transactions") == "off") continue;
    if (r.failure.property == "durability" &&
        r.failure.message.find("transaction commit, sync") != std::string::npos) {
      found_at = seed;
      failure = r;
    }
  }
  REQUIRE(found_at != 0);
  const RunResult again = RunSeed(found_at, 2000, 3, shale::kBugAckSyncWriteBeforeWalSync);
  shale_test::RequireSameFailure(failure, again);
}

// The checker bites on recovered transactions: with recovery replaying a
// prepared section as committed data (and never reporting it prepared), a
// transaction that was prepared but never committed, or rolled back, shows
// up after a crash. It is caught under both write policies, and each
// failing seed replays to the same failure.
TEST_CASE("crash-recovery catches a prepared transaction recovered as committed",
          "[scenario][txn][bugs]") {
  const uint64_t bug = shale::kBugRecoveryCommitsPrepared;
  std::map<std::string, RunResult> failures;  // write policy -> first failure
  for (uint64_t seed = 1; seed <= 300 && failures.size() < 2; seed++) {
    RunResult r = RunSeed(seed, 2000, 3, bug);
    const std::string mode = r.options_drawn.at("transactions");
    if (mode == "off") {
      INFO(Describe(r));
      REQUIRE(r.passed);  // no prepared section: the bug is inert
      continue;
    }
    if (!r.passed && failures.count(mode) == 0) failures.emplace(mode, std::move(r));
  }
  REQUIRE(failures.count("write-committed") == 1);
  REQUIRE(failures.count("write-prepared") == 1);
  for (const auto& [mode, failure] : failures) {
    INFO(Describe(failure));
    // A recovered prepared Put shows a value no commit wrote (no phantoms);
    // a recovered prepared Delete hides an older committed value, which
    // reads as a lost write (durability) or a cut no prefix explains.
    const std::string& property = failure.failure.property;
    REQUIRE((property == "no phantoms" || property == "prefix recovery" ||
             property == "durability" || property == "transactions"));
    const RunResult again = RunSeed(failure.seed, 2000, 3, bug);
    shale_test::RequireSameFailure(failure, again);
  }
}

// The checker bites on rollback: a WritePrepared rollback that writes no old
// values but still commits the prepared range makes the rolled-back values
// visible, to the clients' reads or to the check after a crash. The failing
// seed drew the WritePrepared policy and replays.
TEST_CASE("crash-recovery catches a WritePrepared rollback that keeps its data",
          "[scenario][txn][bugs]") {
  const uint64_t bug = shale::kBugRollbackKeepsData;
  uint64_t found_at = 0;
  RunResult failure;
  for (uint64_t seed = 1; seed <= 300 && found_at == 0; seed++) {
    RunResult r = RunSeed(seed, 2000, 3, bug);
    if (r.options_drawn.at("transactions") != "write-prepared") {
      INFO(Describe(r));
      REQUIRE(r.passed);  // the bug is inert without WritePrepared
      continue;
    }
    if (r.passed) continue;
    found_at = seed;
    failure = r;
  }
  REQUIRE(found_at != 0);
  INFO(Describe(failure));
  const std::string& property = failure.failure.property;
  // A rolled-back Delete that stays visible hides a committed value: that
  // reads as a lost write after a crash (durability). A rolled-back Put
  // whose key an earlier write deleted reads, after a crash, as a deleted
  // value come back (resurrection).
  REQUIRE((property == "no phantoms" || property == "read consistency" ||
           property == "durability" || property == "resurrection"));
  const RunResult again = RunSeed(found_at, 2000, 3, bug);
  shale_test::RequireSameFailure(failure, again);
}

// The drawn sizes keep the LSM tree deep: many files and >= 3 levels (a file
// at level 2 or deeper) in at least a quarter of default-size runs.
TEST_CASE("crash-recovery runs form three or more levels", "[scenario]") {
  int deep = 0;
  constexpr int kSeeds = 40;
  for (uint64_t seed = 1; seed <= kSeeds; seed++) {
    const RunResult r = RunSeed(seed, 2000, 3);
    REQUIRE(r.passed);
    REQUIRE(r.options_drawn.count("deepest_level") == 1);
    if (std::stoi(r.options_drawn.at("deepest_level")) >= 2) deep++;
  }
  INFO(deep << " of " << kSeeds << " runs reached level 2");
  REQUIRE(deep * 4 >= kSeeds);
}

// Real-time order: a write that began after another was acknowledged must
// get a higher sequence; WorkloadState::EndWrite names the break.
TEST_CASE("crash-recovery workload: a sequence below an earlier acked write breaks real-time order",
          "[scenario]") {
  History history{State{}};
  WorkloadState state;
  state.history = &history;
  const uint64_t first = history.BeginWrite({KeyOp{"a", "1"}}, true, false);
  state.EndWrite(first, Status::OK(), 10);
  const uint64_t overlapping = history.BeginWrite({KeyOp{"b", "1"}}, true, false);
  const uint64_t later = history.BeginWrite({KeyOp{"c", "1"}}, true, false);
  state.EndWrite(overlapping, Status::OK(), 12);
  REQUIRE_FALSE(state.failed);
  state.EndWrite(later, Status::OK(), 11);  // began after "a" (10) was acked: 11 is fine
  REQUIRE_FALSE(state.failed);
  const uint64_t stale = history.BeginWrite({KeyOp{"d", "1"}}, true, false);
  state.EndWrite(stale, Status::OK(), 12);  // 12 was acked before it began
  REQUIRE(state.failed);
  REQUIRE(state.failure.property == "real-time order");
  REQUIRE(state.failure.key == "d");
}

// Detected damage narrows the checks instead of ending the run, until a
// check cannot read a quarter of the key space or the DB refuses writes
// after every reopen (damage a table holds is for good). Half the
// faults-on runs damage nothing, so most runs reach their last phase; some
// read a damaged DB key by key and still pass; a run that ends on damage
// names the file it ended on.
TEST_CASE("crash-recovery runs on past detected damage", "[scenario][faults]") {
  constexpr const char* kDamageable[] = {".log", ".sst", "/db/MANIFEST-", "/db/CURRENT"};
  int ended = 0;
  uint64_t narrowed = 0;
  constexpr int kSeeds = 60;
  for (uint64_t seed = 1; seed <= kSeeds; seed++) {
    RunConfig config;
    config.scenario = "crash-recovery";
    config.seed = seed;
    config.faults = "on";
    const RunResult r = CrashRecoveryScenario()->Run(config);
    INFO(Describe(r));
    REQUIRE(r.passed);
    auto it = r.observed.find("crash checks narrowed by detected damage");
    if (it != r.observed.end()) narrowed += it->second;
    if (r.ended_early.empty()) continue;
    ended++;
    if (r.ended_early != "damage detected") continue;
    const std::string& why = r.options_drawn.at("ended");
    const bool names_file =
        std::any_of(std::begin(kDamageable), std::end(kDamageable),
                    [&why](const char* kind) { return why.find(kind) != std::string::npos; });
    REQUIRE(names_file);
  }
  REQUIRE(narrowed >= 5);
  REQUIRE(ended * 5 <= kSeeds * 2);
}

// The engine's named fault points (Runtime::InjectedFault) span the WAL
// switch, flush, compaction, the MANIFEST and its roll, obsolete-file
// deletion and recovery; a fault campaign reaches at least 15 of them.
TEST_CASE("crash-recovery fault runs reach the engine's named fault points", "[scenario][faults]") {
  std::set<std::string> fired;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    RunConfig config;
    config.scenario = "crash-recovery";
    config.seed = seed;
    config.faults = "on";
    config.ops = 600;
    const RunResult r = CrashRecoveryScenario()->Run(config);
    INFO(Describe(r));
    REQUIRE(r.passed);
    for (const auto& [kind, n] : r.faults_by_kind) {
      if (kind.rfind("fault_point.", 0) == 0 && n > 0) fired.insert(kind);
    }
  }
  INFO(fired.size() << " fault points fired");
  REQUIRE(fired.size() >= 15);
  for (const char* area :
       {"wal.switch", "flush.", "compaction.", "manifest.roll", "obsolete.", "recovery."}) {
    INFO(area);
    REQUIRE(std::any_of(fired.begin(), fired.end(), [area](const std::string& k) {
      return k.find(area) != std::string::npos;
    }));
  }
}

// unordered_write meets crashes: its runs keep every recovery promise, and
// a sync write acknowledged before its WAL sync is still lost at a power
// loss there (durability).
TEST_CASE("crash-recovery crashes unordered writes", "[scenario]") {
  int passed = 0, caught = 0;
  for (uint64_t seed = 1; seed <= 120 && (passed < 10 || caught < 1); seed++) {
    const RunResult r = RunSeed(seed);
    if (r.options_drawn.at("write_mode") != "unordered") continue;
    INFO(Describe(r));
    REQUIRE(r.passed);
    REQUIRE(r.crashes >= 1);
    passed++;
    const RunResult bug = RunSeed(seed, 400, 2, shale::kBugAckSyncWriteBeforeWalSync);
    if (!bug.passed) {
      REQUIRE(bug.failure.property == "durability");
      caught++;
    }
  }
  REQUIRE(passed >= 10);
  REQUIRE(caught >= 1);
}

TEST_CASE("crash-recovery replays from the bytes of tape a seed read", "[scenario][tape]") {
  for (uint64_t seed : {5u, 6u}) {
    const RunResult by_seed = RunSeed(seed);
    REQUIRE(by_seed.tape_bytes > 0);
    RunConfig config;
    config.scenario = "crash-recovery";
    config.seed = 0;
    config.ops = 400;
    config.crashes = 2;
    config.tape = shale::sim::ChoiceTape(seed).Prefix(by_seed.tape_bytes);
    const RunResult by_tape = CrashRecoveryScenario()->Run(config);
    CHECK(by_tape.trace_hash == by_seed.trace_hash);
    CHECK(by_tape.ops == by_seed.ops);
    CHECK(by_tape.steps == by_seed.steps);
    CHECK(by_tape.tape_bytes == by_seed.tape_bytes);
  }
}

TEST_CASE("crash-recovery on a tape of zeros is a short default run", "[scenario][tape]") {
  RunConfig config;
  config.scenario = "crash-recovery";
  config.tape = std::string(1 << 20, '\0');
  const RunResult r = CrashRecoveryScenario()->Run(config);
  INFO(Describe(r));
  CHECK(r.passed);
  CHECK(r.ops == 0);      // every client's first "one more operation?" reads zero
  CHECK(r.crashes == 0);  // every "crash after this phase?" reads zero
  CHECK(r.options_drawn.at("faults") == "off");
  CHECK(r.options_drawn.at("transactions") == "off");
}

// A tape the simulation fuzzer found (fuzz_sim_crash_recovery): faults are
// drawn on but none fires before the clean Close; then the reopen, and an
// eio_write injected into the final Close failed it. That failure is
// injected damage, not a spurious error, and the run passes.
TEST_CASE("crash-recovery takes a final Close failed by an injected fault as damage",
          "[scenario][faults][tape]") {
  std::string tape;
  REQUIRE(absl::Base64Unescape(
      "AAAAEBAQEBAQEBAQ/////////////////9f///////////////////////////////////7///////////////8g"
      "ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgAAAAAAAAAAAAAAAAAAAAAAAA"
      "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
      "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAg////////////////////////////"
      "////////////////////////////////////////////////////////////////EBAQEBAQEBAQEP///////wX/"
      "/////////////////0H//////w==",
      &tape));
  REQUIRE(tape.size() == 349);
  RunConfig config;
  config.scenario = "crash-recovery";
  config.tape = tape;
  const RunResult r = CrashRecoveryScenario()->Run(config);
  INFO(Describe(r));
  CHECK(r.passed);
  CHECK(r.options_drawn.at("faults") == "on");
  CHECK(r.faults_by_kind.count("eio_write") == 1);
}

TEST_CASE("crash-recovery draws a swarm operation mix only where pinned", "[scenario]") {
  auto run = [](uint64_t seed, const char* mix) {
    RunConfig config;
    config.scenario = "crash-recovery";
    config.seed = seed;
    config.ops = 300;
    config.crashes = 1;
    if (mix != nullptr) config.pins["workload.mix"] = mix;
    return CrashRecoveryScenario()->Run(config);
  };
  int without_reads = 0;
  for (uint64_t seed = 1; seed <= 12; seed++) {
    const RunResult plain = run(seed, nullptr);
    const RunResult pinned_default = run(seed, "default");
    const RunResult swarm = run(seed, "swarm");
    INFO("seed " << seed << ": " << swarm.failure.property << " " << swarm.failure.message);
    REQUIRE(plain.passed);
    REQUIRE(swarm.passed);
    // The default mix draws what it always drew; the swarm draws its mix
    // from the tape and says which it drew.
    REQUIRE(plain.options_drawn.count("workload.mix") == 0);
    REQUIRE(pinned_default.trace_hash == plain.trace_hash);
    const std::string& mix = swarm.options_drawn.at("workload.mix");
    REQUIRE(mix.rfind("swarm", 0) == 0);
    REQUIRE((mix.find(" write=") != std::string::npos || mix.find(" batch=") != std::string::npos));
    REQUIRE(swarm.trace_hash != plain.trace_hash);
    REQUIRE(run(seed, "swarm").trace_hash == swarm.trace_hash);
    if (mix.find(" get=") == std::string::npos && mix.find(" iterate=") == std::string::npos) {
      without_reads++;
    }
  }
  // Each kind is left out of about half the runs: some runs read nothing.
  REQUIRE(without_reads > 0);
}

TEST_CASE("crash-recovery runs a pinned fixed operation mix and nothing else", "[scenario]") {
  for (uint64_t seed = 1; seed <= 4; seed++) {
    RunConfig config;
    config.scenario = "crash-recovery";
    config.seed = seed;
    config.ops = 200;
    config.crashes = 1;
    config.pins["workload.mix"] = "write:3+compact:1";
    config.trace = true;
    const RunResult r = CrashRecoveryScenario()->Run(config);
    INFO("seed " << seed << ": " << r.failure.property << " " << r.failure.message);
    REQUIRE(r.passed);
    REQUIRE(r.options_drawn.at("workload.mix") == "pinned write=3 compact=1");
    int writes = 0;
    int compactions = 0;
    for (const std::string& line : r.trace) {
      if (line.find(" op ") == std::string::npos) continue;
      INFO(line);
      const bool write = line.find(": write ") != std::string::npos ||
                         line.find(": transaction ") != std::string::npos;
      const bool compaction = line.find(": compact ") != std::string::npos;
      REQUIRE((write || compaction));
      writes += write;
      compactions += compaction;
    }
    // About three writes to each compaction.
    REQUIRE(compactions > 0);
    REQUIRE(writes > compactions);
  }
}
