#include "scenarios/scenario_run.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "shale/cache.h"
#include "util/probes.h"

namespace shale::scenario {

namespace {

// The planted scheduler bug (kBugSchedulerTwoTasksRun) strikes at each
// thread task's this-many-th yield: early enough that most runs of a
// hosted engine reach it.
constexpr int kPlantedRunsOnAtSuspend = 64;

}  // namespace

sim::SimulationOptions WithPreemption(const RunConfig& config, sim::SimulationOptions o) {
  if (!IsShaleEngine(config.engine)) return o;
  o.preempt_one_in = 8;
  o.preempt_max_us = 64;
  return o;
}

sim::SimulationOptions SimOptionsFor(const RunConfig& config, const PctCalibration& pct) {
  sim::SimulationOptions o;
  const uint64_t ops = static_cast<uint64_t>(config.ops > 0 ? config.ops : pct.default_ops);
  o.pct_expected_steps = std::max<uint64_t>(1, pct.steps_per_op * ops);
  o.seed = config.seed;
  o.tape = config.tape;
  // An engine Shale did not write keeps its threads: each task gets one.
  o.os_thread_tasks = !IsShaleEngine(config.engine);
  if ((config.planted_bugs & kBugSchedulerTwoTasksRun) != 0) {
    o.planted_thread_runs_on_at_suspend = kPlantedRunsOnAtSuspend;
  }
  o.strategy = config.strategy == "pct"      ? sim::Strategy::kPct
               : config.strategy == "random" ? sim::Strategy::kRandom
                                             : sim::Strategy::kDrawn;
  return o;
}

void CaptureTrace(const RunConfig& config, sim::Simulation* sim, RunResult* result) {
  if (!config.trace) return;
  if (config.trace_line) {
    sim->set_trace_sink(
        [stream = config.trace_line, sent = size_t{0}](const std::string& line) mutable {
          if (sent++ < kMaxTraceLines) stream(line);
        });
    return;
  }
  sim->set_trace_sink([result](const std::string& line) {
    if (result->trace.size() < kMaxTraceLines) result->trace.push_back(line);
  });
}

void RecordSimulation(sim::Simulation* sim, RunResult* result) {
  result->trace_hash = sim->trace()->value();
  result->sim_time_ns = sim->now_ns();
  result->steps = sim->steps();
  result->tape_bytes = sim->rng()->consumed_bytes();
  result->operation_marks = sim->rng()->operation_marks();
  const bool pct = sim->strategy() == sim::Strategy::kPct;
  result->scheduler = pct ? "pct" : "random";
  result->pct_change_points = pct ? sim->pct_changes_fired() : 0;
  result->probes_counted = true;
  AddProbeHits(*sim, &result->probe_hits);
}

void AddProbeHits(const sim::Simulation& sim, std::map<std::string, uint64_t>* hits) {
  const std::vector<uint64_t>& counts = sim.probe_counts();
  for (size_t i = 0; i < counts.size(); i++) {
    if (counts[i] > 0) (*hits)[std::string(probes::kNames[i])] += counts[i];
  }
}

sim::LatencyProfile DrawDisk(sim::ChoiceTape* rng, std::map<std::string, std::string>* described) {
  const uint64_t disk = rng->Uniform(3);
  (*described)["disk"] = disk == 0 ? "nvme" : disk == 1 ? "sata-ssd" : "hdd";
  return disk == 0   ? sim::LatencyProfile::NVMe()
         : disk == 1 ? sim::LatencyProfile::SataSsd()
                     : sim::LatencyProfile::Hdd();
}

void DrawCompression(sim::ChoiceTape* rng, Options* o) {
  constexpr CompressionType kCodecs[] = {kNoCompression, kSnappyCompression, kLZ4Compression,
                                         kZSTD};
  o->compression = kCodecs[rng->Uniform(4)];
  o->bottommost_compression = rng->OneIn(3) ? kCodecs[rng->Uniform(4)] : kDisableCompressionOption;
}

void DrawOrderedWriteMode(sim::ChoiceTape* rng, Options* o,
                          std::map<std::string, std::string>* described) {
  o->enable_pipelined_write = rng->OneIn(3);
  o->allow_concurrent_memtable_write = !rng->OneIn(3);
  (*described)["write_mode"] = o->enable_pipelined_write ? "pipelined" : "vanilla";
  (*described)["allow_concurrent_memtable_write"] =
      o->allow_concurrent_memtable_write ? "true" : "false";
}

void DrawMemtableFilter(sim::ChoiceTape* rng, Options* o) {
  constexpr double kRatios[] = {0.0, 0.005, 0.02, 0.25};
  o->memtable_prefix_bloom_size_ratio = kRatios[rng->Uniform(4)];
  o->memtable_whole_key_filtering = o->memtable_prefix_bloom_size_ratio > 0;
}

void DrawCompactionTriggers(sim::ChoiceTape* rng, Options* o) {
  o->disable_seek_compaction = rng->OneIn(2);
  if (rng->OneIn(3)) {
    o->level0_slowdown_writes_trigger =
        o->level0_file_num_compaction_trigger + static_cast<int>(rng->Uniform(3));
    o->level0_stop_writes_trigger =
        o->level0_slowdown_writes_trigger + 1 + static_cast<int>(rng->Uniform(3));
  }
}

void DrawBlockCache(sim::ChoiceTape* rng, Runtime* runtime, Options* o,
                    std::map<std::string, std::string>* described) {
  const bool small = rng->OneIn(4);
  const size_t capacity_bytes = size_t{4096} << rng->Uniform(3);
  const int shard_bits = static_cast<int>(rng->Uniform(2));
  if (!small) {
    (*described)["block_cache_bytes"] = "default";
    return;
  }
  o->block_cache = NewLRUCache(capacity_bytes, shard_bits, runtime);
  (*described)["block_cache_bytes"] =
      std::to_string(capacity_bytes) + " (" + std::to_string(1 << shard_bits) + " shards)";
}

std::string MemtableFilterName(const Options& o) {
  if (!o.memtable_whole_key_filtering || o.memtable_prefix_bloom_size_ratio <= 0) return "off";
  return absl::StrFormat("%g", o.memtable_prefix_bloom_size_ratio);
}

void DescribeEngineSizes(const Options& o, std::map<std::string, std::string>* described) {
  auto& m = *described;
  m["memtable_bloom_size_ratio"] = MemtableFilterName(o);
  m["compression"] = CompressionTypeName(o.compression);
  m["bottommost_compression"] = CompressionTypeName(o.bottommost_compression);
  m["write_buffer_size"] = std::to_string(o.write_buffer_size);
  m["target_file_size_base"] = std::to_string(o.target_file_size_base);
  m["max_bytes_for_level_base"] = std::to_string(o.max_bytes_for_level_base);
  m["max_bytes_for_level_multiplier"] = std::to_string(o.max_bytes_for_level_multiplier);
  m["level0_file_num_compaction_trigger"] = std::to_string(o.level0_file_num_compaction_trigger);
  m["block_size"] = std::to_string(o.block_size);
  m["bloom_bits_per_key"] = std::to_string(o.bloom_bits_per_key);
  m["max_open_files"] = std::to_string(o.max_open_files);
  m["seek_compaction"] = o.disable_seek_compaction ? "off" : "on";
  m["level0_slowdown_writes_trigger"] = std::to_string(o.level0_slowdown_writes_trigger);
  m["level0_stop_writes_trigger"] = std::to_string(o.level0_stop_writes_trigger);
}

const char* SimulationFailureProperty(const Status& run_status) {
  const std::string message(run_status.message());
  if (message.rfind("deadlock", 0) == 0) return "deadlock";
  if (message.rfind("engine assertion", 0) == 0) return "engine assertion";
  return "simulation";
}

}  // namespace shale::scenario
