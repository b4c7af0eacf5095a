// report.html: a campaign's report as one self-contained page (no network,
// no external script, style or font), written next to report.json and by
// `shale report html`.
//
// The page shows the summary, failures by property, a table per scenario,
// the promise table, faults by kind (with a bar chart), throughput, the
// coverage probes never reached and the determinism recheck. Each of the
// first kMaxTimelines failures has a section, one click from the failure
// table, with its failing check (expected and observed), the replay and
// shrink commands, and, when its trace is given, a timeline: a lane per
// task with its disk calls (syncs marked), injected faults, crashes with
// what each power loss kept and lost, checks, and the failing check at
// the end; and the trace as plain text. The data is embedded as JSON
// (<script id="shale-data" type="application/json">) and the page's own
// script draws the timelines from it.
//
// Thread safety: stateless functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/campaign_tally.h"
#include "report/report.h"
#include "report/report_reader.h"

namespace shale::report {

inline constexpr size_t kMaxTimelines = 10;
// Failed seeds listed in the page's failure table (the first by scenario
// and seed).
inline constexpr size_t kMaxListedFailedSeeds = 1000;
// Finish times kept for the seeds-per-second plot: past this many, every
// other one is dropped (the plot's shape stays; its scale is restored).
inline constexpr size_t kMaxFinishTimes = size_t{1} << 20;
// Trace lines embedded per failure; the timeline shows the last ones when
// a trace is longer (the failing check is at its end).
inline constexpr size_t kMaxTimelineEvents = 20000;

// A failed seed's event trace (`shale replay --trace`), one line per event.
struct FailureTrace {
  std::string scenario;
  uint64_t seed = 0;
  std::vector<std::string> lines;
};

// One timeline event, from one trace line. kind: "io", "sync" (an I/O
// call that syncs), "fault", "crash", "disk" (what a crash did), "check",
// "task" (spawned or finished), "op" (a workload task's operation,
// "client0 op 12: ...") or "other". Lines without a time take the
// time of the last line that had one; task is "" when the line names none.
struct TimelineEvent {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  std::string task;
  std::string kind;
  std::string text;
};

std::vector<TimelineEvent> ParseTimeline(const std::vector<std::string>& trace);

// The seeds of one scenario, for the page's table.
struct ScenarioFigures {
  uint64_t seeds = 0, failed = 0, ops = 0, crashes = 0, worker_ms = 0, rechecked = 0;
};

// What the page shows, gathered one entry at a time: memory is bounded by
// the aggregates, kMaxListedFailedSeeds failed entries and kMaxFinishTimes
// finish times, whatever the number of seeds. Entries may come in any
// order. Thread safety: none.
class HtmlDigest {
 public:
  // max_finish_times: kMaxFinishTimes (smaller in tests).
  explicit HtmlDigest(size_t max_finish_times = kMaxFinishTimes)
      : tally_(kMaxListedFailedSeeds), max_finish_times_(max_finish_times) {}
  void Add(const SeedEntry& entry);

  const CampaignTally& tally() const { return tally_; }
  const std::map<std::string, ScenarioFigures>& scenarios() const { return scenarios_; }
  // Each kept finish time stands for finish_time_weight seeds.
  const std::vector<uint64_t>& finish_times_ms() const { return finish_times_ms_; }
  uint64_t finish_time_weight() const { return finish_time_weight_; }

 private:
  CampaignTally tally_;
  const size_t max_finish_times_;
  std::map<std::string, ScenarioFigures> scenarios_;
  std::vector<uint64_t> finish_times_ms_;
  uint64_t finish_time_weight_ = 1;
  uint64_t finish_time_skip_ = 0;  // entries seen since the last kept time
};

// The whole page. traces: for some of the failed entries (matched by
// scenario and seed); the others get no timeline.
std::string RenderHtmlReport(const ReportHeader& header, const HtmlDigest& digest,
                             const std::vector<FailureTrace>& traces);
// The same, for a report in memory.
std::string RenderHtmlReport(const Report& report, const std::vector<FailureTrace>& traces);

}  // namespace shale::report
