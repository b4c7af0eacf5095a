// Bench output in db_bench's format: a header describing the run, one line
// per benchmark, and (when several engines ran) a side-by-side table.
//
//   fillrandom   :       4.567 micros/op 218978 ops/sec;   24.2 MB/s
//   readrandom   :       2.100 micros/op 476190 ops/sec;   33.1 MB/s (632120 of 1000000 found)
//
// micros/op is per-thread latency (thread time summed / ops); ops/sec and
// MB/s are throughput over the wall time of the whole benchmark.
//
// Thread safety: stateless functions.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "bench_config.h"
#include "shale/flash_file_system.h"
#include "workloads.h"

namespace shale::bench {

void PrintHeader(const BenchConfig& config, std::ostream& out);
// The flash backend's figures after a run: what the engine wrote, what the
// backend programmed (write amplification), resets, maximum wear, and the
// read cache's hit rate. report: the device's chunk report.
std::string FormatFlashLine(const FlashFsStats& stats, const std::vector<ChunkDescriptor>& report,
                            uint32_t sector_bytes);
std::string FormatResultLine(const BenchResult& result);
double OpsPerSecond(const BenchResult& result);

// One engine's results in benchmark order, for the comparison table.
struct EngineResults {
  std::string engine;  // display name
  std::vector<BenchResult> results;
};

// Rows = benchmarks, columns = each engine's ops/sec, then Shale/LevelDB
// when both ran. notes are printed under the table, one per line.
void PrintComparison(const std::vector<EngineResults>& engines,
                     const std::vector<std::string>& notes, std::ostream& out);

}  // namespace shale::bench
