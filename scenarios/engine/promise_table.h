// PromiseTable: what an engine promises, as data (one row per property, in
// the oracle's names), so that a scenario checks exactly those promises for
// that engine: weaker where it promises less, never weaker than its
// documentation. A hosted engine ships its table as a tab-separated file
// (hosted/leveldb/promises.tsv): property, kept (yes or no), the header or
// document line that says so, and the promise in our words; '#' lines are
// comments and the first other line names the columns.
//
// Thread safety: immutable after Parse.
#pragma once

#include <string>
#include <vector>

#include "shale/status.h"

namespace shale::scenario {

struct EnginePromise {
  std::string property;
  bool kept = true;
  std::string source;
  std::string promise;
};

class PromiseTable {
 public:
  // Replaces *table with tsv's rows. InvalidArgument naming the line for a
  // row without four fields, a kept value other than yes or no, an empty
  // source or promise, or a property listed twice.
  [[nodiscard]] static Status Parse(const std::string& tsv, PromiseTable* table);
  // A table compiled into the program (source names its file): parsed, or
  // the process aborts with the error on stderr, since a table that does
  // not parse is a build defect (a test catches it first).
  static PromiseTable ParseCompiledIn(const std::string& tsv, const char* source);

  // Whether a broken `property` fails the run: it has a row that is kept,
  // or it is one of the failures no table can waive (the engine's own
  // assertion, the simulation's limits, hosting itself).
  bool Checks(const std::string& property) const;
  const std::vector<EnginePromise>& rows() const { return rows_; }

 private:
  std::vector<EnginePromise> rows_;
};

}  // namespace shale::scenario
