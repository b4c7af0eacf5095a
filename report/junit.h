// JUnit XML for CI dashboards: DIR/junit.xml (BRIEF section 7).
//
// One <testsuite> per scenario, one <testcase name="seed N"> per seed,
// classname "shale.<scenario>", time in seconds (the worker's wall time). A
// failed seed carries <failure message="<property> ..." type="<property>">
// with the failure and the replay command as its text.
//
// Thread safety: stateless.
#pragma once

#include <string>
#include <string_view>

#include "report/report.h"

namespace shale::report {

std::string EncodeJunit(const Report& report);

// XML-escapes &, <, >, ", ' and replaces control characters (not allowed in
// XML 1.0) with '?'.
std::string XmlEscape(std::string_view text);

}  // namespace shale::report
