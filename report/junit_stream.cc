#include "report/junit_stream.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "report/file_io.h"
#include "report/junit.h"

namespace shale::report {

JunitStream::~JunitStream() { CloseParts(); }

void JunitStream::CloseParts() {
  for (auto& [scenario, file] : parts_) {
    if (file != nullptr) std::fclose(file);
    file = nullptr;
  }
}

std::string JunitStream::PartPath(const std::string& scenario) const {
  return path_ + "." + scenario + ".part";
}

bool JunitStream::Open(const std::string& path, const std::string& engine, std::string* error) {
  path_ = path;
  engine_ = engine;
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (!ec) return true;
  *error = "cannot remove " + path + ": " + ec.message();
  return false;
}

bool JunitStream::Add(const SeedEntry& e, std::string* error) {
  std::FILE*& part = parts_[e.result.scenario];
  if (part == nullptr) part = std::fopen(PartPath(e.result.scenario).c_str(), "wbe");
  const std::string xml = part == nullptr ? "" : EncodeTestcase(e);
  if (part != nullptr && std::fwrite(xml.data(), 1, xml.size(), part) == xml.size()) return true;
  *error = "cannot write " + PartPath(e.result.scenario);
  return false;
}

bool JunitStream::Finish(const std::map<std::string, SuiteTally>& suites, std::string* error) {
  bool flushed = true;
  for (auto& [scenario, file] : parts_)
    flushed = file != nullptr && std::fflush(file) == 0 && flushed;
  uint64_t tests = 0, failures = 0;
  for (const auto& [scenario, suite] : suites) {
    tests += suite.seeds;
    failures += suite.failed;
  }
  AtomicFile out;
  if (!out.Open(path_, error)) return false;
  out.Append(EncodeJunitHead(tests, failures));
  for (const auto& [scenario, suite] : suites) {
    out.Append(EncodeSuiteHead(scenario, engine_, suite));
    if (parts_.count(scenario) != 0 && !out.AppendFileContents(PartPath(scenario), error)) {
      return false;
    }
    out.Append(EncodeSuiteEnd());
  }
  out.Append(EncodeJunitEnd());
  if (!flushed) {
    *error = "cannot write the parts of " + path_;
    return false;
  }
  if (!out.Commit(error)) return false;
  CloseParts();
  for (const auto& [scenario, file] : parts_) std::remove(PartPath(scenario).c_str());
  parts_.clear();
  return true;
}

}  // namespace shale::report
