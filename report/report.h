// A campaign report: DIR/report.json written by `shale run`, joined across
// shards by `shale report merge`.
//
// Format (JSON, "format": "shale-report", "version": 2), laid out so a
// campaign can append to it in place (report_stream.h) and readers can take
// it one entry at a time (report_reader.h):
//
//   {"format": "shale-report", "version": 2, "campaign": {...}, "entries": [
//   {...entry...},
//   {...entry...}
//   ], "totals": {...}, "promises": [...], "complete": true}
//
// The head is exactly the first line; each entry is one line of compact
// JSON; the line after the last entry starts with "]" and holds the rest.
// Blanks may follow the final "}".
//   campaign: how the seeds were run (scenarios, seeds "A..B", shard "K/N"
//             or "", ops, crashes, strategy, faults, planted_bugs, jobs,
//             max_failures: the --max_failures limit, 0 for none (with
//             one, the entries may not cover all of "seeds"),
//             merged_from: input files when merged, and last wall_ms, a
//             blank-padded fixed-width number so it can be set in place
//             when the campaign ends; 0 until then)
//   entries:  one per (scenario, seed): the run_json.h object plus wall_ms
//             and, when failed, replay (the exact command that replays it),
//             rechecked: true for a seed re-run in another worker, and
//             finished_ms: when the campaign wrote it (from its start).
//             A campaign writes them in completion order; a merged report
//             has them sorted by (scenario, seed). Readers must not assume
//             an order.
//   totals:   over the entries present (ComputeTotals)
//   promises: promises.h, over the entries present
//   complete: false while the campaign runs (or if it was killed)
// Version 1 (pretty-printed, sorted, no "complete") is still read.
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

struct PromiseVerdict;  // promises.h

struct SeedEntry {
  scenario::RunResult result;    // trace is never stored
  bool trace_hash_known = true;  // false: the worker died before reporting
  uint64_t wall_ms = 0;          // wall time of this seed's worker
  std::string replay;            // replay command, when !result.passed
  bool rechecked = false;        // re-run in another worker (cli/recheck.h)
  uint64_t finished_ms = 0;      // when its outputs were written, from the campaign's start
};

struct CampaignInfo {
  std::vector<std::string> scenarios;
  std::string seeds;  // "A..B"
  std::string shard;  // "K/N", or "" for all seeds
  int64_t ops = 0;
  int64_t crashes = 0;
  std::string strategy;
  std::string faults;
  std::string engine = "shale";  // the engine every seed drove
  // The hosted engine's library as loaded, e.g. "1.23 (libleveldb.so.1.23.0)";
  // "" for Shale's own engine.
  std::string engine_version;
  uint64_t planted_bugs = 0;
  std::map<std::string, std::string> pins;  // RunConfig::pins
  int64_t jobs = 0;
  uint64_t max_failures = 0;  // 0: every seed of the range was to run
  uint64_t wall_ms = 0;       // merged: the slowest input (shards run in parallel)
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
  // Runs that stopped short of their phases, by reason (RunResult::ended_early).
  std::map<std::string, uint64_t> ended_early;
  uint64_t pct_runs = 0;           // runs scheduled by PCT
  uint64_t pct_change_points = 0;  // change points that fired in them
  // Open-channel runs (those reporting flash figures): sums, and the
  // largest wear any chunk reached.
  struct Flash {
    uint64_t seeds = 0;
    uint64_t bytes_written = 0;     // by the engine
    uint64_t bytes_programmed = 0;  // by the device
    uint64_t resets = 0;
    uint64_t chunks = 0;
    uint64_t chunks_offline = 0;
    uint64_t max_wear = 0;
  } flash;
  // Runs with I/O faults on (those reporting fault_figures::kWritesAcked):
  // what their checks covered. Sums, but for the largest share one check
  // left out, and seeds by their share of failed writes (per mille), for
  // the median.
  struct FaultsOn {
    uint64_t seeds = 0;
    uint64_t writes_acked = 0;
    uint64_t writes_failed = 0;
    std::map<uint64_t, uint64_t> seeds_by_failed_write_permille;
    uint64_t keys_at_checks = 0;
    uint64_t keys_read_at_checks = 0;
    uint64_t narrowed_checks = 0;
    uint64_t worst_check_permille = 0;
    uint64_t dead_db_crashes = 0;
    // Accepted errors by proof; "none" is always listed (an error without
    // one fails its run, so it stays 0).
    std::map<std::string, uint64_t> accepted_errors = {{"none", 0}};
  } faults_on;
  // Table-cache runs' figures (RunResult::observed names starting
  // "table-cache: "), summed; report/table_cache_study.h reads them.
  std::map<std::string, uint64_t> table_cache;
  // Coverage probes: the seeds that count them (simulated ones), and per
  // probe the seeds that reached it. Every probe of util/probes.h is
  // listed, at zero until a seed reaches it (ProbesNeverHit).
  uint64_t rechecked = 0;  // seeds re-run in another worker (cli/recheck.h)
  uint64_t probe_counted_seeds = 0;
  std::map<std::string, uint64_t> probe_seeds;
};

// The median of FaultsOn::seeds_by_failed_write_permille (0 without seeds).
uint64_t MedianFailedWritePermille(const Totals::FaultsOn& f);

// Every probe no seed that counts probes reached, sorted; empty when no
// seed counted them.
std::vector<std::string> ProbesNeverHit(const Totals& totals);

// The engine as reports name it: "shale", or "leveldb 1.23
// (libleveldb.so.1.23.0)".
std::string EngineDescription(const CampaignInfo& c);

struct Report {
  CampaignInfo campaign;
  std::vector<SeedEntry> entries;
  bool complete = true;  // false: written by a campaign still running, or killed
};

// Adds one entry to *totals (what ComputeTotals does for each entry).
void AddToTotals(const SeedEntry& entry, Totals* totals);
Totals ComputeTotals(const std::vector<SeedEntry>& entries);
// Sorts by (scenario, seed).
void SortEntries(std::vector<SeedEntry>* entries);

// The whole report in the format above, entries in the given order, totals
// and promises recomputed from them.
std::string EncodeReport(const Report& report);
// The pieces of that format, for writers that stream it: the head line
// (ends with "["; *wall_ms_offset, if given, is where the campaign's
// wall_ms field starts in it), one entry (one line, no newline), and the
// tail (starts with "\n]", ends with "}\n").
std::string EncodeReportHead(const CampaignInfo& campaign, size_t* wall_ms_offset = nullptr);
std::string EncodeEntryLine(const SeedEntry& entry);
std::string EncodeReportTail(const Totals& totals, const std::vector<PromiseVerdict>& promises,
                             bool complete);
// The wall_ms field's text, the width it always has in the head.
std::string EncodeWallMsField(uint64_t wall_ms);
// One entry line as EncodeEntryLine writes it.
[[nodiscard]] bool DecodeEntryLine(std::string_view line, SeedEntry* entry, std::string* error);
// The whole text of a report of either version.
[[nodiscard]] bool DecodeReport(std::string_view text, Report* report, std::string* error);

// The campaign of a merge: the first input's, with seeds describing the
// union, scenarios the sorted union, no shard, wall_ms the slowest input's
// (shards run in parallel) and merged_from the names.
// REQUIRES: !inputs.empty(), names.size() == inputs.size().
CampaignInfo MergeCampaigns(const std::vector<CampaignInfo>& inputs,
                            const std::vector<std::string>& names);
// "seed S of scenario 'X' appears in two inputs (overlapping shards?)".
std::string OverlapError(const std::string& scenario, uint64_t seed);

// Joins shard reports in memory: entries concatenated and sorted, campaign
// as MergeCampaigns, complete if every input is. A (scenario, seed)
// present in two inputs is an error (overlapping shards). names label the
// inputs in merged_from and in errors. REQUIRES: names.size() == inputs.size().
[[nodiscard]] bool MergeReports(const std::vector<Report>& inputs,
                                const std::vector<std::string>& names, Report* merged,
                                std::string* error);

}  // namespace shale::report
