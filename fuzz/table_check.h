// Helpers shared by the whole-SST fuzz targets: open a table held in a
// string, read it whole in either direction, and look keys up.
//
// Every read is bounded (kMaxEntries) so a damaged index cannot make a
// target loop for long. Thread safety: stateless.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "shale/status.h"
#include "table/table.h"
#include "table/table_options.h"

namespace shale_fuzz {

using TableEntries = std::vector<std::pair<std::string, std::string>>;

constexpr size_t kMaxTableEntries = 1 << 16;

// The internal-key comparator over bytewise user keys.
const shale::InternalKeyComparator* FuzzComparator();

// Table options over FuzzComparator(), checksums verified.
shale::TableOptions FuzzTableOptions();

[[nodiscard]] shale::Status OpenTableBytes(const shale::TableOptions& options,
                                           const std::string& contents,
                                           std::unique_ptr<shale::Table>* table);

// Every entry of it from the first on / from the last back (returned in
// key order); *status is the iterator's at the end.
TableEntries ReadForward(shale::Iterator* it, shale::Status* status);
TableEntries ReadBackward(shale::Iterator* it, shale::Status* status);

TableEntries ReadTableForward(const shale::Table& table, shale::Status* status);
TableEntries ReadTableBackward(const shale::Table& table, shale::Status* status);

// Looks internal_key up. *found says whether an entry with its user key at
// or after it was returned; *entry is that entry.
[[nodiscard]] shale::Status GetEntry(const shale::Table& table, const std::string& internal_key,
                                     bool* found, std::pair<std::string, std::string>* entry);

// Builds an SST of entries (strictly increasing internal keys).
std::string BuildTableBytes(const shale::TableOptions& options, const TableEntries& entries);

// True if every key is an internal key and they strictly increase.
bool StrictlyIncreasingInternalKeys(const TableEntries& entries);

}  // namespace shale_fuzz
