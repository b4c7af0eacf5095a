// JUnit XML for CI dashboards: DIR/junit.xml.
//
// One <testsuite> per scenario, one <testcase name="seed N"> per seed,
// classname "shale.<scenario>", time in seconds (the worker's wall time). A
// failed seed carries <failure message="<property> ..." type="<property>">
// with the failure and the replay command as its text. Suites are sorted by
// scenario; testcases keep the order they are given in.
//
// EncodeJunit builds it from entries in memory; the pieces below let a
// campaign stream it (junit_stream.h).
//
// Thread safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/campaign_tally.h"
#include "report/report.h"

namespace shale::report {

std::string EncodeJunit(const Report& report);

// "<?xml ...>\n<testsuites ...>\n", and its closing tag.
std::string EncodeJunitHead(uint64_t tests, uint64_t failures);
std::string EncodeJunitEnd();
// "  <testsuite ...>\n" with a property naming the engine (EngineDescription),
// and its closing tag.
std::string EncodeSuiteHead(const std::string& scenario, const std::string& engine,
                            const SuiteTally& suite);
std::string EncodeSuiteEnd();
// One <testcase> element, indented, ending in a newline.
std::string EncodeTestcase(const SeedEntry& entry);

// XML-escapes &, <, >, ", ' and replaces control characters (not allowed in
// XML 1.0) with '?'.
std::string XmlEscape(std::string_view text);

}  // namespace shale::report
