// HtmlPage: the sections of report.html (html_report.h), each a method
// that appends its HTML, and the page's fixed style and script.
//
// Every text from a report is escaped; the embedded JSON cannot close its
// script element. Thread safety: none (one page, one thread).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/html_report.h"
#include "report/json_internal.h"
#include "report/promises.h"
#include "report/report.h"

namespace shale::report {

// text with &, <, >, " and ' escaped for HTML.
std::string EscapeHtml(const std::string& text);

// The failed entries by (scenario, seed), at most max of them.
std::vector<SeedEntry> FailedEntries(const Report& report, size_t max);

// "build/shale shrink PATH" for an entry's replay command
// ("build/shale replay PATH"), or "" if it names no file.
std::string ShrinkCommand(const std::string& replay);

class HtmlPage {
 public:
  explicit HtmlPage(const std::string& title);

  void Summary(const Report& report, const Totals& totals);
  // Counts by property, and the failed seeds, each linking to its section
  // (the first max have one).
  void FailuresByProperty(const Report& report, const Totals& totals, size_t max);
  void Scenarios(const Report& report);
  void Promises(const std::vector<PromiseVerdict>& verdicts);
  void Faults(const Totals& totals);  // a table and a bar chart
  // Seeds per second over the campaign (from each entry's finish time),
  // and the per-core rates.
  void Throughput(const Report& report, const Totals& totals);
  void Coverage(const Totals& totals);
  // Failure number n's section (id "failure-n"); returns its data for the
  // timeline script.
  internal::json Failure(size_t n, const SeedEntry& entry, const std::vector<TimelineEvent>& events,
                         const std::vector<std::string>& trace);
  void EmbedData(const internal::json& data);
  // The page, closed.
  std::string Finish();

 private:
  std::string html_;
};

}  // namespace shale::report
