#include "report/html_report.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "report/html_page.h"
#include "report/json_internal.h"
#include "report/promises.h"

namespace shale::report {
namespace {

using internal::json;

// The digits at pos, as a number; *end is where they stop.
uint64_t NumberAt(const std::string& s, size_t pos, size_t* end) {
  uint64_t n = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && n < UINT64_MAX / 10) {
    n = n * 10 + static_cast<uint64_t>(s[pos++] - '0');
  }
  *end = pos;
  return n;
}

// The name quoted after "task '" ("" if none); *rest is the line after it.
std::string QuotedTask(const std::string& line, std::string* rest) {
  const size_t at = line.find("task '");
  if (at == std::string::npos) return "";
  const size_t close = line.find('\'', at + 6);
  if (close == std::string::npos) return "";
  *rest = close + 2 <= line.size() ? line.substr(close + 2) : "";
  return line.substr(at + 6, close - at - 6);
}

bool IsSyncCall(const std::string& call) {
  return call == "sync" || call == "fsync" || call == "sync_dir";
}

// "io t=A..B task 'X' CALL ..." or "fault t=A task 'X' ...".
bool ParseTimed(const std::string& line, TimelineEvent* e) {
  const bool io = absl::StartsWith(line, "io t=");
  if (!io && !absl::StartsWith(line, "fault t=")) return false;
  size_t pos = 0;
  e->start_ns = NumberAt(line, line.find("t=") + 2, &pos);
  e->end_ns = e->start_ns;
  if (io && line.compare(pos, 2, "..") == 0) e->end_ns = NumberAt(line, pos + 2, &pos);
  e->task = QuotedTask(line, &e->text);
  e->kind = io ? "io" : "fault";
  if (io && IsSyncCall(e->text.substr(0, e->text.find(' ')))) e->kind = "sync";
  return true;
}

std::string KindOf(const std::string& line) {
  if (absl::StartsWith(line, "spawn task ") || absl::StartsWith(line, "task ")) return "task";
  if (absl::StartsWith(line, "crash")) return "crash";
  if (absl::StartsWith(line, "disk:")) return "disk";
  if (absl::StartsWith(line, "check:")) return "check";
  return "other";
}

}  // namespace

std::vector<TimelineEvent> ParseTimeline(const std::vector<std::string>& trace) {
  std::vector<TimelineEvent> events;
  uint64_t now = 0;
  for (const std::string& line : trace) {
    TimelineEvent e;
    if (ParseTimed(line, &e)) {
      now = std::max(now, e.end_ns);
      events.push_back(std::move(e));
      continue;
    }
    // Scheduling lines only move the clock.
    const size_t t = line.find("t=");
    const bool scheduling =
        absl::StartsWith(line, "step ") || line.find("timer fires") != std::string::npos;
    if (t != std::string::npos && (scheduling || t == 0)) {
      size_t end = 0;
      now = std::max(now, NumberAt(line, t + 2, &end));
    }
    if (scheduling || absl::StartsWith(line, "preempted")) continue;
    e.start_ns = e.end_ns = now;
    e.kind = KindOf(line);
    // "spawn task 3 'flush'", "task 3 'flush' finished": the quoted name.
    const size_t open = line.find('\'');
    const size_t close = open == std::string::npos ? open : line.find('\'', open + 1);
    if (e.kind == "task" && close != std::string::npos)
      e.task = line.substr(open + 1, close - open - 1);
    // "client0 op 12: write put ...": the workload task's operation.
    const size_t op = line.find(" op ");
    if (e.kind == "other" && op != std::string::npos && op > 0 && line.find(' ') == op) {
      e.task = line.substr(0, op);
      e.kind = "op";
    }
    e.text = line;
    events.push_back(std::move(e));
  }
  return events;
}

void HtmlDigest::Add(const SeedEntry& e) {
  tally_.Add(e);
  ScenarioFigures& f = scenarios_[e.result.scenario];
  f.seeds++;
  f.failed += e.result.passed ? 0 : 1;
  f.ops += e.result.ops;
  f.crashes += e.result.crashes;
  f.worker_ms += e.wall_ms;
  f.rechecked += e.rechecked ? 1 : 0;
  if (++finish_time_skip_ < finish_time_weight_) return;
  finish_time_skip_ = 0;
  finish_times_ms_.push_back(e.finished_ms);
  if (finish_times_ms_.size() < max_finish_times_) return;
  for (size_t i = 0; 2 * i < finish_times_ms_.size(); i++)
    finish_times_ms_[i] = finish_times_ms_[2 * i];
  finish_times_ms_.resize(finish_times_ms_.size() / 2);
  finish_time_weight_ *= 2;
}

std::string RenderHtmlReport(const Report& report, const std::vector<FailureTrace>& traces) {
  HtmlDigest digest;
  for (const SeedEntry& e : report.entries) digest.Add(e);
  return RenderHtmlReport(ReportHeader{report.campaign, report.complete}, digest, traces);
}

std::string RenderHtmlReport(const ReportHeader& header, const HtmlDigest& digest,
                             const std::vector<FailureTrace>& traces) {
  const Totals& totals = digest.tally().totals();
  const std::vector<SeedEntry>& failed = digest.tally().kept_failures();
  HtmlPage page("Shale campaign: " + std::to_string(totals.seeds) + " seeds, " +
                std::to_string(totals.failed) + " failed");
  page.Summary(header, totals);
  page.FailuresByProperty(totals, failed, kMaxTimelines);
  page.Scenarios(digest.scenarios());
  page.Promises(digest.tally().promises());
  page.Faults(totals);
  page.Throughput(header.campaign.wall_ms, totals, digest);
  page.Studies(totals);
  page.Coverage(totals);
  // The failures, in the order of the failure table, with their traces.
  std::map<std::pair<std::string, uint64_t>, const FailureTrace*> by_seed;
  for (const FailureTrace& t : traces) by_seed[{t.scenario, t.seed}] = &t;
  json failures = json::array();
  size_t n = 0;
  for (size_t i = 0; i < failed.size() && i < kMaxTimelines; i++) {
    const SeedEntry& e = failed[i];
    const auto it = by_seed.find({e.result.scenario, e.result.seed});
    std::vector<TimelineEvent> events;
    std::vector<std::string> lines;
    if (it != by_seed.end()) {
      lines = it->second->lines;
      if (lines.size() > kMaxTimelineEvents) {
        lines.erase(lines.begin(), lines.end() - static_cast<ptrdiff_t>(kMaxTimelineEvents));
      }
      events = ParseTimeline(lines);
    }
    failures.push_back(page.Failure(++n, e, events, lines));
  }
  page.EmbedData(json{{"failures", failures}});
  return page.Finish();
}

}  // namespace shale::report
