// Workloads: db_bench's benchmarks run against an open KvStore, on real
// threads (std::thread; bench/ sits outside the engine's seam) timed by the
// steady clock, or on the tasks of a simulation timed in simulated time
// (WorkloadThreads).
//
//   fillseq          num writes per thread, keys 0..num-1 in order
//   fillrandom       num writes per thread, keys uniform in [0, num)
//   overwrite        as fillrandom, over the existing DB
//   readrandom       reads per thread, keys uniform in [0, num); counts found
//   readseq          one forward scan per thread of up to `reads` entries
//   readwhilewriting max(1, threads-1) readrandom threads plus one writer
//                    doing random Puts until the readers finish; only the
//                    readers' operations are reported
//
// Threads: db_bench's meaning. Every workload starts `threads` threads
// together (released by one latch) and each does the whole count: with
// --threads=N, fillrandom runs N concurrent writers, each writing num keys
// (N*num writes in all, reported as N*num ops) drawn from [0, num).
// Writes go through KvStore::Write in batches of batch_size pairs per
// thread (the last batch of a thread may be shorter), so N writers contend
// in the engine's write path at once.
// Every thread draws keys from its own shale::Random seeded from
// (seed, thread index), so a run's key sequence is reproducible.
//
// Thread safety: RunWorkload may be called from one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bench_config.h"
#include "kv_store.h"

namespace shale::bench {

struct BenchResult {
  std::string name;
  int64_t ops = 0;    // operations done (reads or writes)
  int64_t bytes = 0;  // key+value bytes moved
  int64_t found = 0;  // reads that found their key
  bool reports_found = false;
  double wall_seconds = 0;    // first thread start to last thread finish
  double thread_seconds = 0;  // summed over the reporting threads
  Status status;              // the first error any thread met
};

// How a workload's threads run and what times them.
// Thread safety: RunAll is called from one thread; ChargeOp from the
// workload's threads.
class WorkloadThreads {
 public:
  virtual ~WorkloadThreads() = default;
  // Runs fn(0) .. fn(n-1) on n threads started together; returns once all
  // have finished.
  virtual void RunAll(int n, const std::function<void(int thread_index)>& fn) = 0;
  // Seconds on the clock that times the workload (any origin).
  virtual double NowSeconds() = 0;
  // Called by a workload thread after each operation: where host CPU time
  // is not measured (a simulation), the thread may spend some here.
  virtual void ChargeOp() {}
};

// std::thread and the steady clock. Never destroyed.
WorkloadThreads* RealThreads();

// REQUIRES: name is one of KnownBenchmarks(); store is open.
BenchResult RunWorkload(const std::string& name, KvStore* store, const BenchConfig& config,
                        uint64_t seed, WorkloadThreads* threads = RealThreads());

// The seed a workload's key sequence comes from: a fixed, distinct one per
// name (FNV-1a), not per position, so readrandom never replays fillrandom's
// sequence (it would find every key).
uint64_t BenchSeed(const std::string& name);

// True for the benchmarks that start from a fresh DB unless --use_existing.
bool WantsFreshDb(const std::string& name);

}  // namespace shale::bench
