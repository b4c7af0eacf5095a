// The transaction markers of a WAL's records, read from its contents as a
// scenario saw them: which transactions' Prepare sections, and which of
// their Commit or Rollback markers, lay in a span of the log that damage
// may make a skip-any recovery read past.
//
// Thread safety: plain functions and a value type.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace shale::scenario {

// Transaction names, by the kind of marker that named them.
struct TxnMarkers {
  std::set<std::string> prepared;  // an end-of-prepare marker (the section's name)
  std::set<std::string> ended;     // a Commit or a Rollback marker

  void Add(const TxnMarkers& other);
  bool empty() const { return prepared.empty() && ended.empty(); }
};

// The markers of every whole record in contents (a log's contents).
TxnMarkers TxnMarkersIn(const std::string& contents);

// The markers damage at byte `offset` of a log's contents (read before
// the damage) may cost a skip-any recovery: those of the records
// SkippedByDamageAt's writes lie in, from the record that ends after
// offset to the first record that starts in a later 32 KiB block.
TxnMarkers TxnMarkersSkippedByDamageAt(const std::string& contents, uint64_t offset);

}  // namespace shale::scenario
