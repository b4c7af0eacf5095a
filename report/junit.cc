#include "report/junit.h"

#include <cstdio>
#include <map>

#include "report/run_json.h"

namespace shale::report {
namespace {

std::string Seconds(uint64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(ms) / 1000.0);
  return buf;
}

void AppendTestcase(const SeedEntry& e, std::string* xml) {
  const scenario::RunResult& r = e.result;
  *xml += "    <testcase classname=\"shale." + XmlEscape(r.scenario) + "\" name=\"seed " +
          std::to_string(r.seed) + "\" time=\"" + Seconds(e.wall_ms) + "\"";
  if (r.passed) {
    *xml += "/>\n";
    return;
  }
  const std::string what = DescribeFailure(r.failure);
  *xml += ">\n      <failure message=\"" + XmlEscape(what) + "\" type=\"" +
          XmlEscape(r.failure.property) + "\">" + XmlEscape(what) +
          "\nreplay: " + XmlEscape(e.replay) + "</failure>\n    </testcase>\n";
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        const bool control = static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t';
        out += control ? '?' : c;
    }
  }
  return out;
}

std::string EncodeJunit(const Report& report) {
  std::map<std::string, std::vector<const SeedEntry*>> by_scenario;
  for (const SeedEntry& e : report.entries) by_scenario[e.result.scenario].push_back(&e);
  const Totals totals = ComputeTotals(report.entries);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"shale\" tests=\"" +
                    std::to_string(totals.seeds) + "\" failures=\"" +
                    std::to_string(totals.failed) + "\">\n";
  for (const auto& [name, entries] : by_scenario) {
    uint64_t failed = 0, ms = 0;
    for (const SeedEntry* e : entries) {
      failed += e->result.passed ? 0 : 1;
      ms += e->wall_ms;
    }
    xml += "  <testsuite name=\"" + XmlEscape(name) + "\" tests=\"" +
           std::to_string(entries.size()) + "\" failures=\"" + std::to_string(failed) +
           "\" time=\"" + Seconds(ms) + "\">\n";
    for (const SeedEntry* e : entries) AppendTestcase(*e, &xml);
    xml += "  </testsuite>\n";
  }
  return xml + "</testsuites>\n";
}

}  // namespace shale::report
