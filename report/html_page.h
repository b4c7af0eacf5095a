// HtmlPage: the sections of report.html (html_report.h), each a method
// that appends its HTML, and the page's fixed style and script.
//
// Every text from a report is escaped; the embedded JSON cannot close its
// script element. Thread safety: none (one page, one thread).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "report/html_report.h"
#include "report/json_internal.h"
#include "report/promises.h"
#include "report/report.h"

namespace shale::report {

// The failure file an entry's replay command ("build/shale replay PATH",
// campaign_outputs.h's ReplayCommand) names, or "" if it names none.
// Page text is escaped with junit.h's XmlEscape.
std::string FailureFileOfReplay(const std::string& replay);

class HtmlPage {
 public:
  explicit HtmlPage(const std::string& title);

  void Summary(const ReportHeader& header, const Totals& totals);
  // Counts by property, and the failed seeds (sorted), each of the first
  // with_section linking to its section.
  void FailuresByProperty(const Totals& totals, const std::vector<SeedEntry>& failed,
                          size_t with_section);
  void Scenarios(const std::map<std::string, ScenarioFigures>& scenarios);
  void Promises(const std::vector<PromiseVerdict>& verdicts);
  void Faults(const Totals& totals);  // a bar chart
  // The rates per wall and per core second, and seeds finished per second
  // over the campaign.
  void Throughput(uint64_t wall_ms, const Totals& totals, const HtmlDigest& digest);
  // Per-scenario figures that exist: the table-cache study's table and plot.
  void Studies(const Totals& totals);
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
