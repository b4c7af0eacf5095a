// A campaign report: DIR/report.json written by `shale run`, joined across
// shards by `shale report merge` (BRIEF section 7).
//
// Format (JSON, "format": "shale-report", "version": 1):
//   campaign: how the seeds were run (scenarios, seeds "A..B", shard "K/N"
//             or "", ops, crashes, strategy, planted_bugs, jobs, wall_ms,
//             merged_from: input files when merged)
//   totals:   recomputed from the entries on every write (ComputeTotals)
//   entries:  one per (scenario, seed), sorted by (scenario, seed): the
//             run_json.h object plus wall_ms and, when failed, replay (the
//             exact command that replays it).
//
// Thread safety: stateless functions. No exceptions escape; decoders return
// false with one line in *error.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"

namespace shale::report {

struct SeedEntry {
  scenario::RunResult result;     // trace is never stored
  bool trace_hash_known = true;   // false: the worker died before reporting
  uint64_t wall_ms = 0;           // wall time of this seed's worker
  std::string replay;             // replay command, when !result.passed
};

struct CampaignInfo {
  std::vector<std::string> scenarios;
  std::string seeds;              // "A..B"
  std::string shard;              // "K/N", or "" for all seeds
  int64_t ops = 0;
  int64_t crashes = 0;
  std::string strategy;
  std::string faults;
  uint64_t planted_bugs = 0;
  int64_t jobs = 0;
  uint64_t wall_ms = 0;           // merged: the slowest input (shards run in parallel)
  std::vector<std::string> merged_from;
};

struct Totals {
  uint64_t seeds = 0;
  uint64_t passed = 0;
  uint64_t failed = 0;
  uint64_t ops = 0;
  uint64_t engine_ops = 0;
  uint64_t crashes = 0;
  uint64_t steps = 0;
  uint64_t sim_time_ns = 0;
  std::map<std::string, uint64_t> faults_by_kind;
  std::map<std::string, uint64_t> failures_by_property;
};

struct Report {
  CampaignInfo campaign;
  std::vector<SeedEntry> entries;
};

// Adds one entry to *totals (what ComputeTotals does for each entry).
void AddToTotals(const SeedEntry& entry, Totals* totals);
Totals ComputeTotals(const std::vector<SeedEntry>& entries);
// Sorts by (scenario, seed).
void SortEntries(std::vector<SeedEntry>* entries);

// Pretty-printed JSON with totals recomputed from the entries.
std::string EncodeReport(const Report& report);
[[nodiscard]] bool DecodeReport(std::string_view text, Report* report, std::string* error);

// Joins shard reports: entries concatenated and sorted, campaign taken from
// the first input with seeds/shard describing the union. A (scenario, seed)
// present in two inputs is an error (overlapping shards). names label the
// inputs in merged_from and in errors. REQUIRES: names.size() == inputs.size().
[[nodiscard]] bool MergeReports(const std::vector<Report>& inputs,
                                const std::vector<std::string>& names, Report* merged,
                                std::string* error);

}  // namespace shale::report
