// report/: the streamed report.json (ReportStream), reading it back one
// entry at a time (also when a kill cut a write short), the campaign tally's
// bounded failures, and merging report files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "campaign_support.h"
#include "report/campaign_tally.h"
#include "report/file_io.h"
#include "report/promises.h"
#include "report/report.h"
#include "report/report_merge.h"
#include "report/report_reader.h"
#include "report/report_stream.h"

using namespace shale;
using shale::cli::testing::TempDir;

namespace {

report::SeedEntry Entry(uint64_t seed, bool passed) {
  report::SeedEntry e;
  e.result.scenario = "s";
  e.result.seed = seed;
  e.result.passed = passed;
  e.result.trace_hash = seed * 31;
  e.result.ops = 10;
  e.result.faults_by_kind = {{"eio", 1}};
  e.result.options_drawn = {{"note", "a \"quoted\" } brace {"}};
  if (!passed) {
    e.result.failure = {"durability", "k", "v", "", 3, "lost"};
    e.replay = "build/shale replay d/failures/s-" + std::to_string(seed) + ".json";
  }
  return e;
}

// A tail that shrinks as seeds are added (fewer fault kinds), so the
// stream must pad.
std::string Tail(size_t fault_kinds) {
  report::Totals t;
  for (size_t i = 0; i < fault_kinds; ++i) t.faults_by_kind["fault_" + std::to_string(i)] = i;
  return report::EncodeReportTail(t, {}, false);
}

std::string ReadText(const std::string& path) {
  std::string text, error;
  REQUIRE(report::ReadWholeFile(path, &text, &error));
  return text;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Every entry ReadReportFile yields, by seed; fails the test on an error.
std::vector<uint64_t> ReadSeeds(const std::string& path, report::ReportHeader* header) {
  std::vector<uint64_t> seeds;
  std::string error;
  const bool ok = report::ReadReportFile(
      path, header,
      [&](const report::SeedEntry& e, std::string_view, std::string*) {
        seeds.push_back(e.result.seed);
        return true;
      },
      &error);
  INFO(error);
  REQUIRE(ok);
  return seeds;
}

}  // namespace

TEST_CASE("a streamed report is whole JSON after every entry though its tail shrinks",
          "[report][stream]") {
  const TempDir temp("stream");
  const std::string path = temp.path + "/report.json";
  report::CampaignInfo campaign;
  campaign.scenarios = {"s"};
  report::ReportStream stream;
  std::string error;
  size_t wall_ms_offset = 0;
  REQUIRE(stream.Open(path, report::EncodeReportHead(campaign, &wall_ms_offset), Tail(40), &error));
  size_t padded = 0;  // adds after which blanks covered the old end
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    REQUIRE(stream.Add(report::EncodeEntryLine(Entry(seed, seed % 7 != 0)),
                       Tail(seed % 2 == 0 ? 0 : 40), &error));
    const std::string text = ReadText(path);
    padded += text.ends_with(" ") ? 1 : 0;
    report::Report r;
    INFO("after seed " << seed << ": " << error);
    REQUIRE(report::DecodeReport(text, &r, &error));
    REQUIRE(r.entries.size() == seed);
    REQUIRE(r.entries.back().result.options_drawn == Entry(seed, true).result.options_drawn);
    REQUIRE_FALSE(r.complete);
  }
  REQUIRE(padded == 15);  // the tail shrank by more than an entry at every even seed
  REQUIRE(stream.Overwrite(wall_ms_offset, report::EncodeWallMsField(1234), &error));
  REQUIRE(stream.Finish(report::EncodeReportTail({}, {}, true), &error));
  const std::string text = ReadText(path);
  REQUIRE(text.ends_with("\"complete\": true}\n"));  // trailing blanks dropped
  report::Report r;
  REQUIRE(report::DecodeReport(text, &r, &error));
  REQUIRE((r.complete && r.campaign.wall_ms == 1234 && r.entries.size() == 30));
}

TEST_CASE("a report cut inside a write yields every entry written whole before the cut",
          "[report][reader]") {
  const TempDir temp("torn");
  const std::string path = temp.path + "/report.json";
  report::ReportStream stream;
  std::string error;
  REQUIRE(stream.Open(path, report::EncodeReportHead({}), Tail(30), &error));
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    REQUIRE(stream.Add(report::EncodeEntryLine(Entry(seed, true)), Tail(30), &error));
  }
  const std::string before = ReadText(path);
  const std::string line = report::EncodeEntryLine(Entry(4, false));
  REQUIRE(stream.Add(line, Tail(2), &error));
  const std::string after = ReadText(path);
  const size_t write_at = before.find("\n], \"totals\"");
  const size_t entry_end = write_at + 2 + line.size();  // ",\n" + the line
  REQUIRE(after.size() >= before.size());
  // A write cut at byte `cut` leaves the new text up to it and the old after.
  for (size_t cut = write_at; cut <= after.size(); ++cut) {
    WriteText(path, after.substr(0, cut) + (cut < before.size() ? before.substr(cut) : ""));
    report::ReportHeader header;
    const std::vector<uint64_t> seeds = ReadSeeds(path, &header);
    INFO("cut at " << cut << " of " << after.size());
    const std::vector<uint64_t> want =
        cut >= entry_end ? std::vector<uint64_t>{1, 2, 3, 4} : std::vector<uint64_t>{1, 2, 3};
    REQUIRE(seeds == want);
    REQUIRE_FALSE(header.complete);
  }
  WriteText(path, after + "{\"more\": 1}\n");
  report::ReportHeader header;
  REQUIRE_FALSE(report::ReadReportFile(
      path, &header, [](const report::SeedEntry&, std::string_view, std::string*) { return true; },
      &error));
  REQUIRE(error.find("text after the end") != std::string::npos);
}

TEST_CASE("the tally keeps only the first failures by seed and counts the rest", "[report]") {
  std::vector<uint64_t> seeds(1000);
  for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = i + 1;
  std::shuffle(seeds.begin(), seeds.end(), std::mt19937(7));
  report::CampaignTally tally(20);
  for (uint64_t seed : seeds) tally.Add(Entry(seed, seed % 2 == 0));
  REQUIRE(tally.totals().seeds == 1000);
  REQUIRE(tally.totals().failed == 500);
  REQUIRE(tally.suites().at("s").failed == 500);
  REQUIRE(tally.kept_failures().size() == 20);
  for (size_t i = 0; i < 20; ++i) REQUIRE(tally.kept_failures()[i].result.seed == 2 * i + 1);
}

TEST_CASE("merge reads streamed, cut and version 1 reports and sorts them", "[report][merge]") {
  const TempDir temp("mergefiles");
  const std::string& dir = temp.path;
  report::Report a, b;
  a.campaign.scenarios = b.campaign.scenarios = {"s"};
  for (uint64_t seed : {9, 3, 5}) a.entries.push_back(Entry(seed, seed != 5));
  for (uint64_t seed : {4, 8}) b.entries.push_back(Entry(seed, true));
  WriteText(dir + "/a.json", report::EncodeReport(a));
  // b is cut inside its last entry, as a kill can leave it.
  const std::string b_text = report::EncodeReport(b);
  WriteText(dir + "/b.json", b_text.substr(0, b_text.find("\"seed\":8")));
  // c is version 1: pretty-printed, no "complete".
  WriteText(
      dir + "/c.json",
      "{\"format\": \"shale-report\", \"version\": 1,\n \"campaign\": {\"scenarios\": [\"s\"],"
      " \"seeds\": \"6..6\"},\n \"entries\": [\n  " +
          report::EncodeEntryLine(Entry(6, true)) + "\n ]\n}\n");
  report::Totals totals;
  std::string error;
  INFO(error);
  REQUIRE(report::MergeReportFiles({dir + "/a.json", dir + "/b.json", dir + "/c.json"},
                                   dir + "/all.json", &totals, &error));
  REQUIRE((totals.seeds == 5 && totals.failed == 1));
  report::ReportHeader header;
  REQUIRE(ReadSeeds(dir + "/all.json", &header) == std::vector<uint64_t>{3, 4, 5, 6, 9});
  REQUIRE_FALSE(header.complete);  // b was cut short
  REQUIRE(header.campaign.merged_from.size() == 3);
  REQUIRE_FALSE(report::MergeReportFiles({dir + "/a.json", dir + "/a.json"}, dir + "/x.json",
                                         &totals, &error));
  REQUIRE(error.find("seed 3 of scenario 's' appears in two inputs") != std::string::npos);
  REQUIRE_FALSE(std::filesystem::exists(dir + "/x.json"));
}
