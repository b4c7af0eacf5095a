// report/: JSON round trips (run result line, report, failure file), merge
// and the JUnit shape.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "report/failure_file.h"
#include "report/junit.h"
#include "report/report.h"
#include "report/run_json.h"
#include "scenarios/crash_recovery/flash_figures.h"

using namespace shale;

namespace {

report::SeedEntry Entry(const std::string& scenario, uint64_t seed, bool passed) {
  report::SeedEntry e;
  e.result.scenario = scenario;
  e.result.seed = seed;
  e.result.passed = passed;
  e.result.trace_hash = 0xdeadbeef00000000ull + seed;
  e.result.ops = 100;
  e.result.crashes = 2;
  e.result.steps = 7;
  e.result.sim_time_ns = 5000;
  e.result.faults_by_kind = {{"eio", seed}};
  e.result.options_drawn = {{"max_open_files", "10"}};
  e.wall_ms = 12;
  if (!passed) {
    e.result.failure = {"prefix recovery", "k<1>", "\"a\"", "b&c", 9, "hole at seq 4"};
    e.replay = "build/shale replay x/failures/" + scenario + "-" + std::to_string(seed) + ".json";
  }
  return e;
}

}  // namespace

TEST_CASE("trace hashes are 0x + 16 hex digits", "[report]") {
  REQUIRE(report::TraceHashHex(0xabc) == "0x0000000000000abc");
  uint64_t h = 0;
  REQUIRE(report::ParseTraceHashHex("0xffffffffffffffff", &h));
  REQUIRE(h == ~uint64_t{0});
  for (const char* bad :
       {"", "0x", "abc", "0x0000000000000ABC", "0x00000000000000abc", "1x0000000000000abc"}) {
    REQUIRE_FALSE(report::ParseTraceHashHex(bad, &h));
  }
}

TEST_CASE("a run result survives the worker line", "[report]") {
  const report::SeedEntry e = Entry("s", 7, false);
  const std::string line = report::EncodeRunResultLine(e.result);
  REQUIRE(line.find('\n') == std::string::npos);
  scenario::RunResult back;
  std::string error;
  REQUIRE(report::DecodeRunResultLine(line, &back, &error));
  REQUIRE(back.trace_hash == e.result.trace_hash);
  REQUIRE(back.failure.key == "k<1>");
  REQUIRE(back.failure.step == 9);
  REQUIRE(back.faults_by_kind == e.result.faults_by_kind);
  REQUIRE(back.options_drawn == e.result.options_drawn);
  for (const char* bad : {"", "{", "[]", "{\"seed\": 1}", "{\"scenario\":\"s\",\"seed\":-1}"}) {
    INFO(bad);
    REQUIRE_FALSE(report::DecodeRunResultLine(bad, &back, &error));
    REQUIRE(error.find('\n') == std::string::npos);
  }
}

TEST_CASE("a report survives encode and decode", "[report]") {
  report::Report r;
  r.campaign.scenarios = {"a", "b"};
  r.campaign.seeds = "1..3";
  r.campaign.wall_ms = 99;
  r.entries = {Entry("a", 1, true), Entry("a", 2, false), Entry("b", 1, true)};
  r.entries[2].trace_hash_known = false;
  report::Report back;
  std::string error;
  REQUIRE(report::DecodeReport(report::EncodeReport(r), &back, &error));
  REQUIRE(back.entries.size() == 3);
  REQUIRE(back.entries[1].replay == r.entries[1].replay);
  REQUIRE(back.entries[1].result.failure.observed == "b&c");
  REQUIRE_FALSE(back.entries[2].trace_hash_known);
  REQUIRE(back.campaign.wall_ms == 99);
  const report::Totals t = report::ComputeTotals(back.entries);
  REQUIRE((t.seeds == 3 && t.passed == 2 && t.failed == 1 && t.ops == 300));
  REQUIRE(t.faults_by_kind.at("eio") == 4);
  REQUIRE(t.failures_by_property.at("prefix recovery") == 1);
  REQUIRE(report::EncodeReport(r).find("\"totals\"") != std::string::npos);
  REQUIRE_FALSE(report::DecodeReport("{\"format\":\"other\"}", &back, &error));
  REQUIRE_FALSE(report::DecodeReport("{\"format\":\"shale-report\"}", &back, &error));
}

TEST_CASE("the totals sum the open-channel runs' flash figures and keep the largest wear",
          "[report]") {
  namespace f = scenario::flash_figures;
  std::vector<report::SeedEntry> entries = {Entry("open-channel", 1, true),
                                            Entry("open-channel", 2, true),
                                            Entry("crash-recovery", 1, true)};
  entries[0].result.observed = {{f::kBytesWritten, 100}, {f::kBytesProgrammed, 900},
                                {f::kResets, 30},        {f::kChunks, 512},
                                {f::kMaxWear, 4},        {f::kChunksOffline, 2}};
  entries[1].result.observed = {{f::kBytesWritten, 50}, {f::kBytesProgrammed, 600},
                                {f::kResets, 10},       {f::kChunks, 512},
                                {f::kMaxWear, 7},       {f::kChunksOffline, 1}};
  const report::Totals t = report::ComputeTotals(entries);
  CHECK(t.flash.seeds == 2);  // the crash-recovery run reports no flash
  CHECK(t.flash.bytes_written == 150);
  CHECK(t.flash.bytes_programmed == 1500);
  CHECK(t.flash.resets == 40);
  CHECK(t.flash.chunks == 1024);
  CHECK(t.flash.chunks_offline == 3);
  CHECK(t.flash.max_wear == 7);
  report::Report r;
  r.entries = entries;
  CHECK(report::EncodeReport(r).find("\"flash\":{\"bytes_programmed\":1500") != std::string::npos);
}

TEST_CASE("merge sorts and recomputes and rejects overlaps", "[report]") {
  report::Report a, b;
  a.campaign.scenarios = {"y"};
  a.campaign.wall_ms = 5;
  a.entries = {Entry("y", 4, true), Entry("y", 2, false)};
  b.campaign.scenarios = {"x"};
  b.campaign.wall_ms = 8;
  b.entries = {Entry("x", 9, true), Entry("y", 3, true)};
  report::Report m;
  std::string error;
  REQUIRE(report::MergeReports({a, b}, {"a.json", "b.json"}, &m, &error));
  REQUIRE(m.entries.size() == 4);
  REQUIRE(m.entries[0].result.scenario == "x");
  REQUIRE((m.entries[1].result.seed == 2 && m.entries[3].result.seed == 4));
  REQUIRE(m.campaign.wall_ms == 8);
  REQUIRE(m.campaign.merged_from == std::vector<std::string>{"a.json", "b.json"});
  REQUIRE(m.campaign.scenarios == std::vector<std::string>{"x", "y"});
  REQUIRE_FALSE(report::MergeReports({a, a}, {"a.json", "a.json"}, &m, &error));
  REQUIRE(error.find("appears in two inputs") != std::string::npos);
}

TEST_CASE("failure files carry everything a replay needs", "[report]") {
  report::FailureFile f;
  f.config.scenario = "s";
  f.config.seed = 18446744073709551615ull;
  f.config.ops = 50;
  f.config.crashes = -1;
  f.config.strategy = "pct";
  f.config.planted_bugs = 4;
  f.trace_hash = 0x1234;
  f.failure = {"atomicity", "k", "e", "o", 3, "m"};
  f.replay = "build/shale replay d/failures/s-1.json";
  report::FailureFile back;
  std::string error;
  REQUIRE(report::DecodeFailureFile(report::EncodeFailureFile(f), &back, &error));
  REQUIRE((back.config.seed == f.config.seed && back.config.crashes == -1));
  REQUIRE((back.config.strategy == "pct" && back.config.planted_bugs == 4));
  REQUIRE(back.trace_hash == f.trace_hash);
  REQUIRE(back.failure.property == "atomicity");
  REQUIRE(back.config.ops == 50);
  REQUIRE_FALSE(back.config.tape.has_value());
  f.trace_hash.reset();
  REQUIRE(report::DecodeFailureFile(report::EncodeFailureFile(f), &back, &error));
  REQUIRE_FALSE(back.trace_hash.has_value());
  REQUIRE(report::FailureFileName("s", 12) == "s-12.json");
}

TEST_CASE("failure files carry the tape compressed, and reject a damaged one", "[report]") {
  report::FailureFile f;
  f.config.scenario = "s";
  f.ops_done = 17;
  std::string tape(100000, '\0');
  for (size_t i = 0; i < tape.size(); i += 97) tape[i] = static_cast<char>(i);
  f.config.tape = tape;
  f.failure = {"atomicity", "k", "e", "o", 3, "m"};
  const std::string text = report::EncodeFailureFile(f);
  CHECK(text.size() < tape.size() / 4);
  report::FailureFile back;
  std::string error;
  REQUIRE(report::DecodeFailureFile(text, &back, &error));
  CHECK(back.config.tape == tape);
  CHECK(back.ops_done == 17);
  // A wrong length, or bytes that are not the encoding, are one-line errors.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"tape_bytes\": 100000", "\"tape_bytes\": 99999"},
           {"\"tape_bytes\": 100000", "\"tape_bytes\": 999999999999"},
           {"\"tape\": \"", "\"tape\": \"!!"}}) {
    std::string damaged = text;
    const size_t at = damaged.find(from);
    REQUIRE(at != std::string::npos);
    damaged.replace(at, from.size(), to);
    CHECK_FALSE(report::DecodeFailureFile(damaged, &back, &error));
    CHECK(error.find('\n') == std::string::npos);
  }
}

TEST_CASE("version-1 failure files still read: ops was the run's limit", "[report]") {
  report::FailureFile f;
  std::string error;
  const std::string v1 =
      R"({"format": "shale-failure", "version": 1, "scenario": "s", "seed": 3, "ops": 40,
          "crashes": 2, "trace_hash": null, "failure": {"property": "p", "key": "",
          "expected": "", "observed": "", "step": 0, "message": ""}})";
  REQUIRE(report::DecodeFailureFile(v1, &f, &error));
  CHECK(f.config.ops == 40);
  CHECK(f.ops_done == 0);
}

TEST_CASE("junit has one testcase per seed and escapes failures", "[report]") {
  report::Report r;
  r.entries = {Entry("a", 1, true), Entry("a", 2, false), Entry("b", 1, true)};
  const std::string xml = report::EncodeJunit(r);
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = xml.find(needle); at != std::string::npos; at = xml.find(needle, at + 1)) ++n;
    return n;
  };
  REQUIRE(xml.rfind("<?xml", 0) == 0);
  REQUIRE(count("<testcase ") == 3);
  REQUIRE(count("<testsuite ") == 2);
  REQUIRE(count("<failure ") == 1);
  REQUIRE(xml.find("tests=\"3\" failures=\"1\"") != std::string::npos);
  REQUIRE(xml.find("key &apos;k&lt;1&gt;&apos; expected &apos;&quot;a&quot;&apos;") !=
          std::string::npos);
  REQUIRE(xml.find("observed &apos;b&amp;c&apos;") != std::string::npos);
  REQUIRE(xml.find("type=\"prefix recovery\"") != std::string::npos);
  REQUIRE(report::XmlEscape(std::string("a\x01z")) == "a?z");
}

TEST_CASE("a format field of the wrong JSON type is an error, not an exception", "[report]") {
  // Found by fuzz/failure_file_fuzzer.cc: value("format", "") threw.
  report::FailureFile f;
  report::Report r;
  std::string error;
  CHECK_FALSE(report::DecodeFailureFile(R"({"format": {"a": 1}})", &f, &error));
  CHECK(error.find("not a shale failure file") != std::string::npos);
  CHECK_FALSE(report::DecodeReport(R"({"format": 7})", &r, &error));
  CHECK(error.find("not a shale report") != std::string::npos);
}

TEST_CASE("a floating-point number anywhere is an error, not a conversion", "[report]") {
  // Found by fuzz/report_json_fuzzer.cc: get<uint64_t>() of 1.3e120 is
  // undefined behaviour (UBSan: outside the range of unsigned long).
  report::FailureFile f;
  report::Report r;
  std::string error;
  CHECK_FALSE(report::DecodeFailureFile(
      R"({"format": "shale-failure", "seed": 1.3e120, "ops": 1, "crashes": 1})", &f, &error));
  CHECK(error.find("not an integer") != std::string::npos);
  CHECK_FALSE(report::DecodeReport(
      R"({"format": "shale-report", "campaign": {"wall_ms": 2.5}, "entries": []})", &r, &error));
  CHECK(error.find("not an integer") != std::string::npos);
}
