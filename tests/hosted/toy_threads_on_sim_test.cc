// The thread primitives an engine may use past its Env (toy_engine/
// toy_threads.h: std::thread, std::shared_mutex, try_lock, call_once,
// usleep, time, the steady clock), called from a registered library on the
// simulator: each answered by the simulation, one thread at a time, with
// simulated ids and clocks, and runs that repeat exactly; and a thread
// started past the simulation (a planted interposer gap) fails the run.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "hosted/hosted_code.h"
#include "hosted/hosted_rig.h"
#include "hosted/toy_engine/toy_threads.h"
#include "sim/foreign_sync.h"
#include "sim/foreign_threads.h"

namespace shale::hosted {
namespace {

struct ThreadsRun : HostedRun {
  toythreads::Report report;
};

ThreadsRun RunToyThreads(uint64_t seed) {
  RegisterHostedForTest("libshale_toy_kv.so");
  HostedRig rig(seed);
  ThreadsRun out;
  out.run_status = rig.sim.Run([&] { out.report = toythreads::Run(/*rounds=*/30); });
  out.hash = rig.sim.trace()->value();
  out.foreign_calls = rig.sim.foreign_sync()->calls();
  return out;
}

TEST_CASE("hosted threads, rwlocks, try_lock and call_once run under the scheduler",
          "[hosted][toy]") {
  const ThreadsRun run = RunToyThreads(3);
  INFO(run.run_status.ToString());
  REQUIRE(run.run_status.ok());
  const toythreads::Report& r = run.report;
  CHECK(r.reads == 60);
  CHECK(r.writes == 60);
  CHECK(r.torn_reads == 0);  // a writer yields between its halves
  CHECK(r.once_runs == 1);
  CHECK(r.try_lock_refused);
  CHECK(r.detached_finished);
  // Every thread id is a simulated task's, as pthread_self and std::thread
  // both see it: the caller (task 0) and its four threads.
  REQUIRE(r.thread_ids.size() == 5);
  CHECK(r.ids_match_std);
  CHECK(r.thread_ids[0] == sim::ForeignThreads::kThreadIdTag);
  for (const uint64_t id : r.thread_ids) CHECK(sim::ForeignThreads::IsSimulatedThreadId(id));
  // The clocks are simulated: a 1 ms sleep is 1 ms and a little (clock
  // reads take scheduling points), and realtime starts at the epoch.
  CHECK(r.steady_slept_ns >= 1'000'000);
  CHECK(r.steady_slept_ns < 2'000'000);
  const int64_t epoch_s = sim::ForeignSync::kRealtimeEpochNanos / 1'000'000'000;
  CHECK(r.time_seconds >= epoch_s);
  CHECK(r.time_seconds < epoch_s + 60);
  // The machine is the simulation's: one core, number 0.
  CHECK(r.cpu == 0);
  CHECK(r.hardware_threads == 1);
  CHECK(r.online_processors == 1);
  CHECK(r.pid == 4242);
}

TEST_CASE("a hosted static another thread is constructing is a simulated wait", "[hosted][toy]") {
  RegisterHostedForTest("libshale_toy_kv.so");
  HostedRig rig(5);
  int constructions = 0;
  bool shared = false;
  const Status run = rig.sim.Run([&] { constructions = toythreads::StaticFromTwo(&shared); });
  // With the C library's guard the second thread would wait on a futex
  // while the first, asleep in the simulation, never ran again: a hang.
  INFO(run.ToString());
  REQUIRE(run.ok());
  CHECK(constructions == 1);
  CHECK(shared);
}

TEST_CASE("hosted thread primitives repeat exactly and depend on the seed", "[hosted][toy]") {
  RequireRepeatsAndDependsOnSeed(&RunToyThreads, 11, [](const ThreadsRun& a, const ThreadsRun& b) {
    return a.report.thread_ids == b.report.thread_ids &&
           a.report.steady_slept_ns == b.report.steady_slept_ns &&
           a.report.time_seconds == b.report.time_seconds;
  });
}

TEST_CASE("a hosted read lock upgraded to a write lock is a simulated deadlock", "[hosted][toy]") {
  RegisterHostedForTest("libshale_toy_kv.so");
  HostedRig rig(4);
  const Status run = rig.sim.Run([] { toythreads::RunReadThenWrite(); });
  INFO(run.ToString());
  REQUIRE(!run.ok());
  CHECK(std::string(run.message()).rfind("deadlock", 0) == 0);
  CHECK(std::string(run.message()).find("rwlock#") != std::string::npos);
}

// A crash abandons the process's threads: what they held or were running
// is the dead process's, and the next one starts afresh.
TEST_CASE("a hosted lock and call_once a crash cut short start afresh", "[hosted][toy]") {
  RegisterHostedForTest("libshale_toy_kv.so");
  HostedRig rig(6);
  auto* leftovers = new toythreads::Leftovers();  // abandoned with the process
  bool took_lock = false;
  const Status run = rig.sim.Run([&] {
    toythreads::StartLeftovers(leftovers);
    REQUIRE(!toythreads::TakeLeftLock(leftovers));  // held by a live thread
    rig.sim.Crash();
    took_lock = toythreads::TakeLeftLock(leftovers);
    toythreads::CallLeftOnce(leftovers);
  });
  INFO(run.ToString());
  REQUIRE(run.ok());
  CHECK(took_lock);
  CHECK(leftovers->once_runs == 2);  // cut short once, then run whole
}

TEST_CASE("joining a hosted thread a crash abandoned fails the run", "[hosted][toy]") {
  RegisterHostedForTest("libshale_toy_kv.so");
  HostedRig rig(7);
  auto* leftovers = new toythreads::Leftovers();
  const Status run = rig.sim.Run([&] {
    toythreads::StartLeftovers(leftovers);
    rig.sim.Crash();
    toythreads::JoinLeftThread(leftovers);
  });
  INFO(run.ToString());
  REQUIRE(!run.ok());
  CHECK(std::string(run.message()).rfind("simulation: hosted code joined thread", 0) == 0);
}

// The planted bug: an interposer that lets a hosted pthread_create through
// to the C library. The control run is the first test case above.
TEST_CASE("a hosted thread started past the simulation fails the run", "[hosted][toy]") {
  SetPlantedCreateReachesCLibrary(true);
  const ThreadsRun run = RunToyThreads(3);
  SetPlantedCreateReachesCLibrary(false);
  INFO(run.run_status.ToString());
  REQUIRE(!run.run_status.ok());
  CHECK(std::string(run.run_status.message())
            .rfind("simulation: a hosted caller's pthread_create reached the C library", 0) == 0);
}

}  // namespace
}  // namespace shale::hosted
