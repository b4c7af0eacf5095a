// What every simulated scenario run does the same way: the Simulation's
// options from a RunConfig, the event trace captured for `shale replay
// --trace`, the simulation's figures copied into the RunResult, and the
// Scenario::Run wrapper around a per-run class.
//
// Thread safety: as Simulation (one thread).
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "scenarios/scenario.h"
#include "shale/options.h"
#include "sim/choice_tape.h"
#include "sim/disk/sim_disk.h"
#include "sim/simulation.h"

namespace shale::scenario {

// Every workload task asks its tape "one more operation?" before each
// operation: Proceed(kMoreOpsOneIn), so a tape's zero stops it there, and
// an endless tape stops it once in this many operations.
inline constexpr uint64_t kMoreOpsOneIn = 65536;

// "One more operation?": marks where the operation's draws start (for the
// shrinker's whole-operation edits), then asks Proceed(kMoreOpsOneIn).
inline bool MoreOps(sim::ChoiceTape* tape) {
  tape->MarkOperation();
  return tape->Proceed(kMoreOpsOneIn);
}

// At most this many trace lines are kept (the hash covers every event).
inline constexpr size_t kMaxTraceLines = 2'000'000;

// Where PCT draws its change points: over the first pct_steps_per_op *
// ops scheduling points, ops being config.ops or default_ops. PCT's change
// points only matter if the run reaches them; each scenario's constant is
// about half its median steps per configured operation (measured over 300
// PCT seeds each), so that most change points land inside most runs.
struct PctCalibration {
  uint64_t steps_per_op = 0;
  int default_ops = 0;
};

// The seed or the tape, and the strategy: config.strategy if set, else
// drawn from the tape (uniform random or PCT, half each); PCT's horizon
// per pct.
sim::SimulationOptions SimOptionsFor(const RunConfig& config, const PctCalibration& pct);

// Preemption at the engine's named yield points (SimulationOptions::
// preempt_one_in): one point in 8 descheduled for up to 64 us of simulated
// time, as a thread the OS preempts between two steps, so a reader can be
// stopped between the steps that pin what it reads while a flush or
// compaction installs. For Shale's engine (config.engine "" or "shale");
// a hosted engine keeps the schedule its listed reproducers were found
// with. Returns o.
sim::SimulationOptions WithPreemption(const RunConfig& config, sim::SimulationOptions o);

// With config.trace, sends sim's event trace (capped) to result->trace.
// REQUIRES: result outlives sim's run.
void CaptureTrace(const RunConfig& config, sim::Simulation* sim, RunResult* result);

// Copies the trace hash, simulated time, steps and coverage probes'
// hits into result.
void RecordSimulation(sim::Simulation* sim, RunResult* result);

// Adds the coverage probes sim's runtime counted (util/probes.h) to *hits,
// by name; probes not reached are left out.
void AddProbeHits(const sim::Simulation& sim, std::map<std::string, uint64_t>* hits);

// A disk drawn from rng: NVMe, SATA SSD or HDD, a third each (one draw);
// (*described)["disk"] names it.
sim::LatencyProfile DrawDisk(sim::ChoiceTape* rng, std::map<std::string, std::string>* described);

// Block compression drawn from rng: each of the four codecs a quarter of the
// time, and in a third of the runs a bottommost_compression of its own.
void DrawCompression(sim::ChoiceTape* rng, Options* o);

// A write mode that keeps reads in commit order, drawn from rng: vanilla
// or pipelined (1 in 3), memtable inserts one by one or concurrent (2 in
// 3). Names both in described as options_drawn shows them.
void DrawOrderedWriteMode(sim::ChoiceTape* rng, Options* o,
                          std::map<std::string, std::string>* described);

// The memtable bloom filter drawn from rng: off, or 0.5%, 2% or 25% of the
// write buffer (a quarter each), so runs meet Gets the filter answers, ones
// it passes on false positives, and ones without it.
void DrawMemtableFilter(sim::ChoiceTape* rng, Options* o);
// "off", or the filter's share of the write buffer.
std::string MemtableFilterName(const Options& o);

// What starts compactions and stalls writes. Seek compaction is on or off,
// half the time each, so runs meet compactions that Gets start as well as
// those that sizes start. A third of runs put the level-0 slowdown and stop
// triggers just above the compaction trigger (RocksDB's defaults, 20 and 36
// files, are seldom reached by the small trees the scenarios build), so
// writes meet slowdowns and stops that wait for a compaction.
// REQUIRES: o->level0_file_num_compaction_trigger is drawn.
void DrawCompactionTriggers(sim::ChoiceTape* rng, Options* o);

// The block cache drawn from rng: in a quarter of the runs a small one
// (4, 8 or 16 KiB over one or two shards), so Gets and scans meet blocks
// the cache evicted and must read again; else the engine's default (no
// draw is left unmade either way). Names it in described.
// REQUIRES: runtime outlives every DB opened with *o.
void DrawBlockCache(sim::ChoiceTape* rng, Runtime* runtime, Options* o,
                    std::map<std::string, std::string>* described);

// Writes the engine options the scenarios draw (buffers, files, levels,
// blocks, compression, bloom bits, open files, seek compaction, level-0
// stall triggers) into described, as options_drawn shows them.
void DescribeEngineSizes(const Options& o, std::map<std::string, std::string>* described);

// "deadlock" or "simulation": the property of a failed Simulation::Run.
const char* SimulationFailureProperty(const Status& run_status);

// Scenario::Run for a per-run class RunT(const RunConfig&, RunResult*,
// extra...) with an Execute() that fills the result.
template <typename RunT, typename... Extra>
RunResult RunScenario(const char* name, const RunConfig& config, const Extra&... extra) {
  RunResult result;
  result.scenario = name;
  result.seed = config.seed;
  RunT run(config, &result, extra...);
  run.Execute();
  return result;
}

}  // namespace shale::scenario
