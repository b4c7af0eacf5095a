#include "report/report_reader.h"

#include <fstream>

#include "report/file_io.h"
#include "report/json_internal.h"

namespace shale::report {
namespace {

constexpr std::string_view kHeadStart = "{\"format\": \"shale-report\", \"version\": 2, ";
constexpr std::string_view kHeadEnd = "\"entries\": [";

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

bool Blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// The length of the JSON object that text starts with (braces matched
// outside strings), or 0 if it does not start with a whole one.
size_t FirstObjectSize(std::string_view text) {
  if (!text.starts_with("{")) return 0;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) return i + 1;
  }
  return 0;
}

// The line after the last entry: "], <rest of the object>".
bool ParseTail(std::string_view line, bool* complete) {
  if (!line.starts_with("],")) return false;
  internal::json j;
  std::string ignored;
  if (!internal::ParseObject("{" + std::string(line.substr(2)), "tail", &j, &ignored)) return false;
  const auto it = j.find("complete");
  *complete = it != j.end() && it->is_boolean() && it->get<bool>();
  return true;
}

// Version 1 or a reformatted file: decoded whole.
bool ReadWhole(const std::string& path, ReportHeader* header, const EntryFn& on_entry,
               std::string* error) {
  std::string text;
  if (!ReadWholeFile(path, &text, error)) return false;
  Report report;
  if (!DecodeReport(text, &report, error)) return Fail(error, path + ": " + *error);
  text.clear();
  header->campaign = report.campaign;
  header->complete = report.complete;
  for (const SeedEntry& e : report.entries) {
    if (!on_entry(e, EncodeEntryLine(e), error)) return false;
  }
  return true;
}

std::string_view EntryBody(std::string_view line) {
  if (line.ends_with(",")) line.remove_suffix(1);
  return line;
}

// The last line of a file cut short: the entry it starts with, if that is
// whole. Canonical text is required, so no mix of a cut entry and what the
// old tail left can pass for one.
void TakeLastLine(std::string_view line, const EntryFn& on_entry, bool* ok, std::string* error) {
  const std::string_view body = EntryBody(line).substr(0, FirstObjectSize(line));
  SeedEntry e;
  std::string ignored;
  if (body.empty() || !DecodeEntryLine(body, &e, &ignored) || EncodeEntryLine(e) != body) return;
  *ok = on_entry(e, body, error);
}

// Entry lines and the tail after the head, in the line layout. A line is
// taken once the next non-blank one is seen, so the last can be told apart.
bool ReadLines(std::istream& in, const std::string& path, ReportHeader* header,
               const EntryFn& on_entry, std::string* error) {
  std::string line, pending;
  size_t line_no = 1, pending_no = 0;
  bool ended = false;
  header->complete = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (Blank(line)) continue;
    if (ended)
      return Fail(error, path + ": line " + std::to_string(line_no) + ": text after the end");
    if (!pending.empty()) {
      SeedEntry e;
      std::string bad;
      if (!DecodeEntryLine(EntryBody(pending), &e, &bad)) {
        return Fail(error, path + ": line " + std::to_string(pending_no) + ": " + bad);
      }
      if (!on_entry(e, EntryBody(pending), error)) return false;
    }
    pending.clear();
    if (line.starts_with("]") && ParseTail(line, &header->complete)) {
      ended = true;
      continue;
    }
    pending.swap(line);
    pending_no = line_no;
  }
  if (in.bad()) return Fail(error, path + ": read error");
  bool ok = true;
  if (!pending.empty()) TakeLastLine(pending, on_entry, &ok, error);
  return ok;
}

}  // namespace

bool ReadReportFile(const std::string& path, ReportHeader* header, const EntryFn& on_entry,
                    std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::string head;
  if (!in || !std::getline(in, head) || !head.starts_with(kHeadStart) ||
      !head.ends_with(kHeadEnd)) {
    return ReadWhole(path, header, on_entry, error);
  }
  Report parsed;
  if (!DecodeReport(head + "]}", &parsed, error)) return Fail(error, path + ": " + *error);
  header->campaign = parsed.campaign;
  return ReadLines(in, path, header, on_entry, error);
}

}  // namespace shale::report
