// JunitStream: a campaign's junit.xml (junit.h's format) written without
// holding its seeds in memory.
//
// Each seed's <testcase> is appended, as the seed finishes, to a part file
// of its scenario (PATH.<scenario>.part, buffered). Finish writes PATH whole
// (temporary + rename) from the suites' counts and the parts, then removes
// the parts. Open removes a stale PATH, so junit.xml exists only for a
// campaign that finished; a killed one leaves its parts behind.
//
// Memory: one open part file per scenario. Thread safety: none; one
// thread. Ownership: owns the part files. No exceptions.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "report/campaign_tally.h"
#include "report/report.h"

namespace shale::report {

class JunitStream {
 public:
  JunitStream() = default;
  ~JunitStream();
  JunitStream(const JunitStream&) = delete;
  JunitStream& operator=(const JunitStream&) = delete;

  // False with one line in *error.
  // engine: as each suite's "engine" property names it (EngineDescription).
  [[nodiscard]] bool Open(const std::string& path, const std::string& engine, std::string* error);
  [[nodiscard]] bool Add(const SeedEntry& entry, std::string* error);
  // REQUIRES: suites counts every entry added (CampaignTally::suites).
  [[nodiscard]] bool Finish(const std::map<std::string, SuiteTally>& suites, std::string* error);

 private:
  std::string PartPath(const std::string& scenario) const;
  void CloseParts();

  std::string path_;
  std::string engine_;
  std::map<std::string, std::FILE*> parts_;  // by scenario
};

}  // namespace shale::report
