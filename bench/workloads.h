// Workloads: db_bench's benchmarks run against an open KvStore with real
// threads (std::thread; bench/ sits outside the engine's seam).
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
#include <string>

#include "bench_config.h"
#include "kv_store.h"

namespace shale::bench {

struct BenchResult {
  std::string name;
  int64_t ops = 0;           // operations done (reads or writes)
  int64_t bytes = 0;         // key+value bytes moved
  int64_t found = 0;         // reads that found their key
  bool reports_found = false;
  double wall_seconds = 0;   // first thread start to last thread finish
  double thread_seconds = 0; // summed over the reporting threads
  Status status;             // the first error any thread met
};

// REQUIRES: name is one of KnownBenchmarks(); store is open.
BenchResult RunWorkload(const std::string& name, KvStore* store, const BenchConfig& config,
                        uint64_t seed);

// True for the benchmarks that start from a fresh DB unless --use_existing.
bool WantsFreshDb(const std::string& name);

}  // namespace shale::bench
