// PromiseTable: see promise_table.h.
#include "scenarios/engine/promise_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_split.h"

namespace shale::scenario {

Status PromiseTable::Parse(const std::string& tsv, PromiseTable* table) {
  PromiseTable parsed;
  bool header_seen = false;
  int line_number = 0;
  for (const absl::string_view line : absl::StrSplit(tsv, '\n')) {
    line_number++;
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "promise table line " + std::to_string(line_number);
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    const std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 4) return Status::InvalidArgument(where, "want 4 tab-separated fields");
    if (fields[1] != "yes" && fields[1] != "no") {
      return Status::InvalidArgument(where, "kept is yes or no");
    }
    if (fields[0].empty() || fields[2].empty() || fields[3].empty()) {
      return Status::InvalidArgument(where, "property, source and promise are required");
    }
    const bool listed =
        std::any_of(parsed.rows_.begin(), parsed.rows_.end(),
                    [&](const EnginePromise& p) { return p.property == fields[0]; });
    if (listed) return Status::InvalidArgument(where, "property listed twice: " + fields[0]);
    parsed.rows_.push_back(EnginePromise{fields[0], fields[1] == "yes", fields[2], fields[3]});
  }
  *table = std::move(parsed);
  return Status::OK();
}

bool PromiseTable::Checks(const std::string& property) const {
  if (property == "engine assertion" || property == "engine crash" || property == "simulation" ||
      property == "hosting") {
    return true;
  }
  for (const EnginePromise& row : rows_) {
    if (row.property == property) return row.kept;
  }
  return false;
}

PromiseTable PromiseTable::ParseCompiledIn(const std::string& tsv, const char* source) {
  PromiseTable table;
  const Status s = Parse(tsv, &table);
  if (!s.ok()) {
    std::fprintf(stderr, "shale: %s: %s\n", source, s.ToString().c_str());
    std::abort();
  }
  return table;
}

}  // namespace shale::scenario
