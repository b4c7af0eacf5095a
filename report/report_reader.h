// Reading a report file (report.h) one entry at a time, so a reader's
// memory does not grow with the report.
//
// A file in report.h's line layout (what shale writes) is read line by
// line: memory is one line. A file in any other layout (version 1, or
// reformatted by a tool) is decoded whole, under ReadWholeFile's limit.
//
// A report cut short (a campaign killed by SIGKILL inside a write, see
// report_stream.h: the file is then a prefix of the new text followed by
// what was left of the old) yields every entry whose line was whole before
// the cut, and complete=false. Only the last non-blank line can be cut: an
// entry is taken from it only if the line starts with one whole, in the
// exact form EncodeEntryLine writes. A malformed line anywhere else, or
// text after the tail, is an error.
//
// Thread safety: stateless. No exceptions escape.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "report/report.h"

namespace shale::report {

struct ReportHeader {
  CampaignInfo campaign;
  bool complete = false;  // the tail says so (false if the tail is missing)
};

// Called once per entry, in file order, with the entry and its compact JSON
// line. Returning false stops the read (its *error is passed on).
using EntryFn =
    std::function<bool(const SeedEntry& entry, std::string_view line, std::string* error)>;

// Reads path; false with one line in *error ("<path>: ...").
[[nodiscard]] bool ReadReportFile(const std::string& path, ReportHeader* header,
                                  const EntryFn& on_entry, std::string* error);

}  // namespace shale::report
