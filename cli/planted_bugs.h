// Planted bugs by name, for `--planted_bugs NAME[,NAME]` on `shale run` and
// `shale replay`: a checker self-test. Each name is a shale::PlantedBug
// enumerator in snake case without its kBug prefix (kBugAckSyncWriteBeforeWalSync
// is ack_sync_write_before_wal_sync). The engine then carries that real bug,
// and the run shows which checker reports it.
//
// Thread safety: pure functions over a constant table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shale::cli {

struct PlantedBugInfo {
  uint64_t bit;
  const char* name;     // snake case, as the flag takes it
  const char* summary;  // one line: what the engine does wrong
};

// Every planted bug, in bit order.
const std::vector<PlantedBugInfo>& AllPlantedBugs();

// Parses "" or "none" (no bug) or a comma-separated list of names into
// PlantedBug bits. False with *error naming the bad entry (and listing the
// known names) otherwise.
[[nodiscard]] bool ParsePlantedBugs(const std::string& text, uint64_t* bits, std::string* error);

// The names of the bits set, comma-separated ("" for none); unknown bits
// as "0x<hex>".
std::string PlantedBugNames(uint64_t bits);

// Lines for `shale help run`/`replay`: one per bug, name and summary.
std::string PlantedBugsUsage();

}  // namespace shale::cli
