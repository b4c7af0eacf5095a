// TableFileBuilder: writes one new SST file and its FileMetaData. Shared by
// flush, WAL recovery and compaction so every new table is made the same
// way: built, synced, closed, and only then described to the MANIFEST.
//
// The caller must make the file's NAME durable (SyncDir) before recording
// it in the MANIFEST, and must delete the file if it is abandoned.
// Ownership: owns its writer and builder. Thread safety: one thread.
#pragma once

#include <memory>
#include <string>

#include "shale/env.h"
#include "shale/options.h"
#include "table/table_builder.h"
#include "util/file_writer.h"
#include "version/version_edit.h"

namespace shale {

class TableFileBuilder {
 public:
  // The table file is created with file_options.
  // planted_bugs: Options::planted_bugs (tests only).
  TableFileBuilder(const TableOptions& options, FileSystem* fs, const FileOptions& file_options,
                   StatsCounters* stats, uint64_t planted_bugs = kBugNone)
      : options_(options),
        fs_(fs),
        file_options_(file_options),
        stats_(stats),
        planted_bugs_(planted_bugs) {}
  ~TableFileBuilder();

  // Creates the file for meta()->number = number at path.
  [[nodiscard]] Status Open(const std::string& path, uint64_t number);
  // REQUIRES: Open succeeded; keys strictly increasing.
  void Add(const Slice& internal_key, const Slice& value);
  // Finishes the table, syncs and closes the file. meta() is then complete.
  [[nodiscard]] Status Finish();
  // Gives up on the file (the caller deletes it).
  void Abandon();

  uint64_t file_size_bytes() const { return builder_ ? builder_->FileSize() : meta_.file_size; }
  const FileMetaData& meta() const { return meta_; }
  const std::string& path() const { return path_; }

 private:
  const TableOptions options_;
  FileSystem* const fs_;
  const FileOptions file_options_;
  StatsCounters* const stats_;
  const uint64_t planted_bugs_;
  std::string path_;
  FileMetaData meta_;
  std::unique_ptr<WritableFileWriter> writer_;
  std::unique_ptr<TableBuilder> builder_;
};

}  // namespace shale
