// Table: an open, immutable SST (the table reader).
//
// Every block read from the file is checked against its CRC32C (which also
// covers the block's own offset, so a misdirected read cannot pass); damage
// surfaces as Corruption, never as data. The index and filter blocks are
// read at Open and held in memory; data blocks go through the block cache.
//
// Ownership: owns its file reader. Thread safety: all const methods are safe
// to call concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "shale/iterator.h"
#include "shale/options.h"
#include "shale/status.h"
#include "table/table_options.h"
#include "util/file_reader.h"

namespace shale {

struct TableProperties {
  uint64_t num_entries = 0;
  uint64_t num_deletions = 0;
  uint64_t num_data_blocks = 0;
  uint64_t raw_key_bytes = 0;
  uint64_t raw_value_bytes = 0;
  uint64_t data_size_bytes = 0;
  uint64_t index_size_bytes = 0;
  uint64_t filter_size_bytes = 0;
  uint64_t smallest_seqno = 0;
  uint64_t largest_seqno = 0;
  // The codec the table was written with (TableOptions::compression); each
  // block's trailer says whether that block is stored with it or raw.
  CompressionType compression = kNoCompression;
};

class Table {
 public:
  // Tails longer than this are not fetched in one read.
  static constexpr uint64_t kMaxTailPrefetchBytes = 16ull << 20;

  // Opens the table in file (file_size bytes long): reads and verifies the
  // footer, index, filter and properties. With tail_size_bytes (the file's
  // FileMetaData::tail_size_bytes; in [footer length, min(file_size,
  // kMaxTailPrefetchBytes)]) that is one read of the file's last
  // tail_size_bytes; otherwise (0: unknown) one read per block.
  [[nodiscard]] static Status Open(const TableOptions& options,
                                   std::unique_ptr<RandomAccessFileReader> file, uint64_t file_size,
                                   uint64_t tail_size_bytes, std::unique_ptr<Table>* table);
  ~Table();
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  // Looks up internal_key: finds the first entry whose internal key is >=
  // internal_key; if that entry has the same user key, calls
  // found(entry_internal_key, entry_value) once. Skips the data read when
  // the bloom filter excludes the user key (counted as bloom_useful).
  [[nodiscard]] Status InternalGet(
      const ReadOptions& options, const Slice& internal_key,
      const std::function<void(const Slice& key, const Slice& value)>& found) const;

  // An iterator over internal keys in both directions. The caller owns it;
  // it must be deleted before the Table.
  Iterator* NewIterator(const ReadOptions& options) const;

  // The approximate file offset where key's data would be.
  uint64_t ApproximateOffsetOf(const Slice& internal_key) const;

  const TableProperties& properties() const;

 private:
  struct Rep;
  explicit Table(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace shale
