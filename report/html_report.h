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
#include <string>
#include <vector>

#include "report/report.h"

namespace shale::report {

inline constexpr size_t kMaxTimelines = 10;
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

// The whole page. traces: for some of the failed entries (matched by
// scenario and seed); the others get no timeline.
std::string RenderHtmlReport(const Report& report, const std::vector<FailureTrace>& traces);

}  // namespace shale::report
