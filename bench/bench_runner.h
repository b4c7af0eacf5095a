// RunBench: the driver behind `shale bench`. For each engine asked for (one,
// or all in turn, each on its own fresh directory <db>/<engine>), opens the
// DB, runs the benchmarks in order, prints db_bench-style lines, and with
// several engines ends with a side-by-side ops/sec table.
//
// fillseq and fillrandom start from an empty DB (destroyed first) unless
// use_existing; the other benchmarks run on what the previous ones left.
//
// Returns a process exit code: 0 all benchmarks ran; 1 an engine operation
// failed mid-run; 2 bad input (an engine not built in, a DB directory that
// cannot be created or opened). Errors are one line on err.
// Thread safety: call from one thread.
#pragma once

#include <ostream>

#include "bench_config.h"

namespace shale::bench {

int RunBench(const BenchConfig& config, std::ostream& out, std::ostream& err);

}  // namespace shale::bench
