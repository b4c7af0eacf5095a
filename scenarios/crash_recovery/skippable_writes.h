// SkippableWrites: under skip-any recovery, which acknowledged writes a
// damaged log may lose on their own (CheckScope::skippable).
//
// Skip-any reads on past a record it cannot read, so a write in a damaged
// log may be missing while later ones are present. Only the writes whose
// records lay in a damaged log are loosened so: before each crash the
// scenario shows every log's records, whole as readers saw them, and this
// learns the sequences each log held; after the crash's damage it names
// the damaged logs, and each gives the writes its damage may reach.
// Memory: the last contents of each log learned (logs are small and few).
//
// Thread safety: none (the scenario's main task).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/oracle/recovery_check.h"

namespace shale::scenario {

class SkippableWrites {
 public:
  // A log's contents as readers see them (before a crash damages them),
  // kept if they hold a whole record.
  void Learn(const std::string& log, const std::string& contents);

  // The log took damage that may cost any of its writes (a hole or
  // garbage a power loss left, pages a failed sync dropped, damage of
  // unknown place). A log never learned held no whole record, so no write.
  void NoteDamagedWhole(const std::string& log);
  // Bits flipped at these byte offsets of the log (FaultPlan::FlipOffsets):
  // each costs the writes SkippedByDamageAt gives in the log's contents as
  // last learned (what a reader finds in the damaged block, unsynced
  // records a process crash kept included).
  void NoteDamaged(const std::string& log, const std::vector<uint64_t>& flipped_at);

  // The ranges noted since the last Take, for the next check.
  std::vector<SequenceRange> Take();
  const std::vector<SequenceRange>& noted() const { return noted_; }

 private:
  std::map<std::string, std::string> contents_;  // log -> its contents as last learned
  std::vector<SequenceRange> noted_;
};

}  // namespace shale::scenario
