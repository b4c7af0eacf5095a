#include "table_check.h"

#include <algorithm>

#include "common/mem_file.h"
#include "db/dbformat.h"
#include "fuzz_check.h"
#include "table/table_builder.h"
#include "util/file_reader.h"
#include "util/file_writer.h"

namespace shale_fuzz {

const shale::InternalKeyComparator* FuzzComparator() {
  static const shale::InternalKeyComparator cmp(shale::BytewiseComparator());
  return &cmp;
}

shale::TableOptions FuzzTableOptions() {
  shale::TableOptions options;
  options.comparator = FuzzComparator();
  options.paranoid_checks = true;
  return options;
}

shale::Status OpenTableBytes(const shale::TableOptions& options, const std::string& contents,
                             std::unique_ptr<shale::Table>* table) {
  auto reader = std::make_unique<shale::RandomAccessFileReader>(
      std::make_unique<shale_test::MemRandomAccessFile>(contents), "fuzz.sst");
  return shale::Table::Open(options, std::move(reader), contents.size(), /*tail_size_bytes=*/0,
                            table);
}

TableEntries ReadForward(shale::Iterator* it, shale::Status* status) {
  TableEntries out;
  for (it->SeekToFirst(); it->Valid() && out.size() < kMaxTableEntries; it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  *status = it->status();
  return out;
}

TableEntries ReadBackward(shale::Iterator* it, shale::Status* status) {
  TableEntries out;
  for (it->SeekToLast(); it->Valid() && out.size() < kMaxTableEntries; it->Prev()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  *status = it->status();
  std::reverse(out.begin(), out.end());
  return out;
}

TableEntries ReadTableForward(const shale::Table& table, shale::Status* status) {
  std::unique_ptr<shale::Iterator> it(table.NewIterator(shale::ReadOptions()));
  return ReadForward(it.get(), status);
}

TableEntries ReadTableBackward(const shale::Table& table, shale::Status* status) {
  std::unique_ptr<shale::Iterator> it(table.NewIterator(shale::ReadOptions()));
  return ReadBackward(it.get(), status);
}

shale::Status GetEntry(const shale::Table& table, const std::string& internal_key, bool* found,
                       std::pair<std::string, std::string>* entry) {
  *found = false;
  return table.InternalGet(shale::ReadOptions(), internal_key,
                           [&](const shale::Slice& key, const shale::Slice& value) {
                             FUZZ_CHECK(!*found);  // at most one call
                             *found = true;
                             *entry = {key.ToString(), value.ToString()};
                           });
}

std::string BuildTableBytes(const shale::TableOptions& options, const TableEntries& entries) {
  std::string contents;
  shale::WritableFileWriter writer(std::make_unique<shale_test::MemWritableFile>(&contents),
                                   "fuzz.sst");
  shale::TableBuilder builder(options, &writer);
  for (const auto& [key, value] : entries) builder.Add(key, value);
  FUZZ_CHECK(builder.Finish().ok());
  FUZZ_CHECK(writer.Close().ok());
  return contents;
}

bool StrictlyIncreasingInternalKeys(const TableEntries& entries) {
  for (const auto& [key, value] : entries) {
    if (key.size() < shale::kInternalKeyTrailerBytes) return false;
  }
  for (size_t i = 1; i < entries.size(); i++) {
    if (FuzzComparator()->Compare(entries[i - 1].first, entries[i].first) >= 0) return false;
  }
  return true;
}

}  // namespace shale_fuzz
