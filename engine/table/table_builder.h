// TableBuilder writes one SST in the block-based format of
// docs/sst_format.md: data blocks, a full bloom filter, a properties block, a
// metaindex, an index, and a checksummed footer.
//
// Ownership: does not own the WritableFileWriter; the caller syncs and
// closes it after Finish(). Thread safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>

#include "shale/slice.h"
#include "shale/status.h"
#include "table/table_options.h"
#include "util/file_writer.h"

namespace shale {

class TableBuilder {
 public:
  TableBuilder(const TableOptions& options, WritableFileWriter* file);
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;
  // REQUIRES: Finish() or Abandon() was called.
  ~TableBuilder();

  // Adds an entry. REQUIRES: internal_key sorts after every key added so far
  // (by options.comparator); not finished or abandoned.
  void Add(const Slice& internal_key, const Slice& value);
  // The first error met by Add, if any.
  Status status() const;
  // Writes the rest of the table. After OK, FileSize() is the final size.
  [[nodiscard]] Status Finish();
  // Stops; the file contents are garbage and should be deleted.
  void Abandon();

  uint64_t NumEntries() const;
  // Bytes written so far (the final size after Finish).
  uint64_t FileSize() const;
  // The bytes from the first meta block (filter, else index) to the end of
  // the footer: the tail a reader fetches at open. REQUIRES: Finish() was OK.
  uint64_t TailSizeBytes() const;

  // TEST ONLY (planted kBugFilterSkipsFirstKey): the filter leaves out the
  // table's first user key. REQUIRES: nothing added yet.
  void PlantFilterSkipsFirstKey();

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace shale
