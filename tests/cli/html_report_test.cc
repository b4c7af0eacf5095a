// report.html: the trace parsed into timeline events, and the page's
// sections, links, escaping and embedded data.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "report/html_page.h"
#include "report/html_report.h"
#include "report/report.h"

using namespace shale;
using namespace shale::report;

namespace {

SeedEntry Entry(uint64_t seed, bool passed) {
  SeedEntry e;
  e.result.scenario = "crash-recovery";
  e.result.seed = seed;
  e.result.passed = passed;
  e.result.ops = 10;
  e.wall_ms = 5;
  e.finished_ms = seed * 10;
  e.result.faults_by_kind = {{"eio_write", seed}};
  if (!passed) {
    e.result.failure = {"durability", "k<1>", "v1", "v0", 7, "lost a synced write & more"};
    e.replay = "build/shale replay out/failures/crash-recovery-" + std::to_string(seed) + ".json";
  }
  return e;
}

}  // namespace

TEST_CASE("a trace becomes timeline events with times, tasks and kinds", "[report][html]") {
  const std::vector<std::string> trace = {
      "spawn task 0 'main'",
      "t=5000 timer fires for task 0 'main'",
      "io t=0..5000 task 'main' mkdir /db 0 bytes: OK",
      "io t=5000..35000 task 'flush' sync /db/000003.log 0 bytes: OK",
      "fault t=36000 task 'compaction' eio_write /db/000007.sst",
      "crash: incarnation 1",
      "disk: power loss kept 1 of 3 unsynced sectors of /db/000003.log (0 torn, 0 garbage), lost 2",
      "step 9 t=40000 run task 1 'client0'",
      "check: recovery after a power loss",
      "client1 op 3: write put k=v -> OK",
  };
  const std::vector<TimelineEvent> events = ParseTimeline(trace);
  REQUIRE(events.size() == 8);  // the two scheduling lines only move the clock
  REQUIRE(events[0].kind == "task");
  REQUIRE(events[0].task == "main");
  REQUIRE(events[1].kind == "io");
  REQUIRE(events[1].start_ns == 0);
  REQUIRE(events[1].end_ns == 5000);
  REQUIRE(events[1].text == "mkdir /db 0 bytes: OK");
  REQUIRE(events[2].kind == "sync");
  REQUIRE(events[2].task == "flush");
  REQUIRE(events[3].kind == "fault");
  REQUIRE(events[3].task == "compaction");
  REQUIRE(events[3].start_ns == 36000);
  REQUIRE(events[4].kind == "crash");
  REQUIRE(events[4].start_ns == 36000);  // the last time seen
  REQUIRE(events[5].kind == "disk");
  REQUIRE(events[6].kind == "check");
  REQUIRE(events[6].start_ns == 40000);
  REQUIRE(events[7].kind == "op");
  REQUIRE(events[7].task == "client1");
}

TEST_CASE("report.html has every section, links each failure and escapes what it quotes",
          "[report][html]") {
  Report r;
  r.campaign.scenarios = {"crash-recovery"};
  r.campaign.seeds = "1..4";
  r.campaign.wall_ms = 50;
  for (uint64_t seed = 1; seed <= 4; seed++) r.entries.push_back(Entry(seed, seed != 3));
  const FailureTrace trace{
      "crash-recovery",
      3,
      {"io t=0..10 task 'main' sync /db/x 0 bytes: OK", "check: after </script> a crash"}};
  const std::string html = RenderHtmlReport(r, {trace});
  for (const char* id :
       {"summary", "failures", "scenarios", "faults", "throughput", "coverage", "failure-1",
        "failure-1-timeline", "faults-chart", "seeds-per-second", "shale-data"}) {
    INFO(id);
    REQUIRE(html.find(std::string("id=\"") + id + "\"") != std::string::npos);
  }
  REQUIRE(html.find("<a href=\"#failure-1\">3</a>") != std::string::npos);
  REQUIRE(html.find("lost a synced write &amp; more") != std::string::npos);
  REQUIRE(html.find("k&lt;1&gt;") != std::string::npos);
  REQUIRE(html.find("build/shale shrink out/failures/crash-recovery-3.json") != std::string::npos);
  // The embedded data cannot end its script early; the plain text escapes.
  REQUIRE(html.find("after <\\/script> a crash") != std::string::npos);
  REQUIRE(html.find("after &lt;/script&gt; a crash") != std::string::npos);
  REQUIRE(html.find("http://") == html.find("http://www.w3.org/2000/svg"));  // no other URL
  REQUIRE(html.find("<script src") == std::string::npos);
  REQUIRE(html.find("<link") == std::string::npos);
}

TEST_CASE("the page's digest keeps bounded finish times that still stand for every seed",
          "[report][html]") {
  HtmlDigest digest(/*max_finish_times=*/8);
  for (uint64_t seed = 1; seed <= 100; seed++) digest.Add(Entry(seed, seed % 10 != 0));
  REQUIRE(digest.finish_times_ms().size() < 8);
  REQUIRE(digest.finish_times_ms().size() * digest.finish_time_weight() >= 90);
  REQUIRE(digest.finish_times_ms().size() * digest.finish_time_weight() <= 100);
  REQUIRE(digest.tally().totals().seeds == 100);
  REQUIRE(digest.tally().totals().failed == 10);
  REQUIRE(digest.tally().kept_failures().size() == 10);
  REQUIRE(digest.scenarios().at("crash-recovery").seeds == 100);
  REQUIRE(digest.scenarios().at("crash-recovery").failed == 10);
  const std::string html = RenderHtmlReport(ReportHeader{}, digest, {});
  REQUIRE(html.find("id=\"failure-10\"") != std::string::npos);
  REQUIRE(html.find("id=\"failure-11\"") == std::string::npos);  // kMaxTimelines sections
  REQUIRE(html.find("<a href=\"#failure-10\">100</a>") != std::string::npos);
}
