// HostedRig: a simulation set up to host an engine, as every hosted test
// needs it: tasks on OS threads of their own (os_thread_tasks), a SimDisk
// with NVMe latency, and a shale::Env over both. The rig outlives the run.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "hosted/hosted_code.h"
#include "shale/env.h"
#include "shale/status.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::hosted {

inline sim::SimulationOptions HostedSimOptions(uint64_t seed) {
  sim::SimulationOptions options;
  options.seed = seed;
  options.os_thread_tasks = true;
  return options;
}

// Checks the interposer is in effect and registers engine_library (a name
// fragment, e.g. "librocksdb.so") with libstdc++ as its runtime.
inline void RegisterHostedForTest(const char* engine_library) {
  REQUIRE(InterposerInEffect().ok());
  REQUIRE(RegisterHostedLibrary(engine_library).ok());
  REQUIRE(RegisterHostedLibrary("libstdc++.so", CodeRole::kRuntime).ok());
}

struct HostedRig {
  explicit HostedRig(uint64_t seed)
      : sim(HostedSimOptions(seed)),
        disk(&sim, sim::LatencyProfile::NVMe()),
        env(&disk, sim.clock(), sim.runtime()) {}
  sim::Simulation sim;
  sim::SimDisk disk;
  Env env;
};

// What every hosted test's run reports; each adds what its engine shows.
struct HostedRun {
  Status run_status;
  uint64_t hash = 0;           // the simulation's trace hash
  uint64_t foreign_calls = 0;  // pthread calls the simulation answered
  int mismatches = 0;          // reads that disagreed with the client's model
};

// Runs run(seed) twice and run(seed + 1) once: the first two must agree on
// their trace hash, their count of simulated pthread calls and what
// same(a, b) compares; the third must differ in its hash. Run is a
// HostedRun.
template <typename Run, typename Same>
void RequireRepeatsAndDependsOnSeed(Run (*run)(uint64_t), uint64_t seed, Same same) {
  const Run a = run(seed);
  const Run b = run(seed);
  const Run c = run(seed + 1);
  REQUIRE(a.run_status.ok());
  REQUIRE(a.hash == b.hash);
  REQUIRE(a.foreign_calls == b.foreign_calls);
  REQUIRE(same(a, b));
  REQUIRE(a.hash != c.hash);
}

// Runs run() in a child process and returns what it returned; the child
// exits at once after. A run that crashes a hosted engine needs this: the
// crash leaves the engine's process-wide threads (RocksDB's timer) abandoned,
// perhaps mid-task, and their destructors would wait for them at exit.
// REQUIRES (checked): the child exits 0 having written all its output.
inline std::string OutputOfChild(const std::function<std::string()>& run) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(fds[0]);
    const std::string out = run();
    const bool written = write(fds[1], out.data(), out.size()) == static_cast<ssize_t>(out.size());
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  std::string out;
  char buffer[512];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) out.append(buffer, n);
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  INFO(out);
  REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return out;
}

}  // namespace shale::hosted
