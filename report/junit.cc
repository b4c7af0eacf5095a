#include "report/junit.h"

#include <cstdio>
#include <map>
#include <vector>

#include "report/run_json.h"

namespace shale::report {
namespace {

std::string Seconds(uint64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(ms) / 1000.0);
  return buf;
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        const bool control = static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t';
        out += control ? '?' : c;
    }
  }
  return out;
}

std::string EncodeJunitHead(uint64_t tests, uint64_t failures) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"shale\" tests=\"" +
         std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\">\n";
}

std::string EncodeJunitEnd() { return "</testsuites>\n"; }

std::string EncodeSuiteHead(const std::string& scenario, const std::string& engine,
                            const SuiteTally& suite) {
  return "  <testsuite name=\"" + XmlEscape(scenario) + "\" tests=\"" +
         std::to_string(suite.seeds) + "\" failures=\"" + std::to_string(suite.failed) +
         "\" time=\"" + Seconds(suite.wall_ms) + "\">\n" +
         "    <properties><property name=\"engine\" value=\"" + XmlEscape(engine) +
         "\"/></properties>\n";
}

std::string EncodeSuiteEnd() { return "  </testsuite>\n"; }

std::string EncodeTestcase(const SeedEntry& e) {
  const scenario::RunResult& r = e.result;
  std::string xml = "    <testcase classname=\"shale." + XmlEscape(r.scenario) + "\" name=\"seed " +
                    std::to_string(r.seed) + "\" time=\"" + Seconds(e.wall_ms) + "\"";
  if (r.passed) return xml + "/>\n";
  const std::string what = DescribeFailure(r.failure);
  return xml + ">\n      <failure message=\"" + XmlEscape(what) + "\" type=\"" +
         XmlEscape(r.failure.property) + "\">" + XmlEscape(what) +
         "\nreplay: " + XmlEscape(e.replay) + "</failure>\n    </testcase>\n";
}

std::string EncodeJunit(const Report& report) {
  std::map<std::string, std::vector<const SeedEntry*>> by_scenario;
  CampaignTally tally(0);
  for (const SeedEntry& e : report.entries) {
    by_scenario[e.result.scenario].push_back(&e);
    tally.Add(e);
  }
  std::string xml = EncodeJunitHead(tally.totals().seeds, tally.totals().failed);
  for (const auto& [name, entries] : by_scenario) {
    xml += EncodeSuiteHead(name, EngineDescription(report.campaign), tally.suites().at(name));
    for (const SeedEntry* e : entries) xml += EncodeTestcase(*e);
    xml += EncodeSuiteEnd();
  }
  return xml + EncodeJunitEnd();
}

}  // namespace shale::report
