// WritableFileWriter: the engine's buffered writer over a WritableFile.
//
// Every WAL, MANIFEST and SST is written through one. It buffers appends,
// counts bytes and syncs, and, when the file uses direct I/O, only ever
// issues writes whose offset and length are multiples of the file's
// alignment from an aligned buffer (the tail is re-written in place with
// PositionedAppend and the file is truncated to its logical size on Close).
//
// After a failed write, flush or sync, what the file holds past the last
// success is unknown (a short write may have left part of a record there),
// so nothing more is written: every later Append, Flush and Sync returns
// that first error again, and Close closes the file without flushing its
// buffer and returns it too (as RocksDB's writer refuses to go on after an
// error). The error is returned unchanged, so it still names its file and
// its cause.
//
// Ownership: owns the WritableFile. Thread safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shale/env.h"
#include "util/aligned_buffer.h"
#include "util/stats_counters.h"

namespace shale {

class WritableFileWriter {
 public:
  // stats may be nullptr. buffer_bytes is rounded up to the alignment.
  WritableFileWriter(std::unique_ptr<WritableFile> file, std::string path,
                     StatsCounters* stats = nullptr, size_t buffer_bytes = 64 * 1024);
  ~WritableFileWriter();
  WritableFileWriter(const WritableFileWriter&) = delete;
  WritableFileWriter& operator=(const WritableFileWriter&) = delete;

  [[nodiscard]] Status Append(const Slice& data);
  // Hands buffered bytes to the file system (not durable).
  [[nodiscard]] Status Flush();
  // Flush + fdatasync. After OK, everything appended so far is durable
  // (the file's name is not: sync its directory).
  [[nodiscard]] Status Sync();
  // Flush + truncate to the logical size (direct I/O; synced if Sync was
  // ever called, so the durable size is the logical one) + close. After
  // an earlier failure: close only (no flush, no truncate), returning that
  // failure.
  [[nodiscard]] Status Close();

  // TEST ONLY (planted kBugUnalignedDirectWrite): a direct writer writes
  // its partial last block unpadded.
  void PlantUnalignedDirectWrites() { plant_unaligned_ = true; }
  // TEST ONLY (planted kBugSkipEndOfFileAfterPadding): a direct writer's
  // Close leaves its last block's padding in the file.
  void PlantSkipEndOfFile() { plant_skip_end_of_file_ = true; }

  // Bytes appended so far (the logical file size).
  uint64_t GetFileSize() const { return file_size_bytes_; }
  const std::string& path() const { return path_; }
  WritableFile* file() const { return file_.get(); }

 private:
  [[nodiscard]] Status WriteBuffered(const char* data, size_t size);
  [[nodiscard]] Status WriteDirect();
  // Returns s, kept as first_error_ if it is the first failure.
  [[nodiscard]] Status Remember(const Status& s);

  std::unique_ptr<WritableFile> file_;
  std::string path_;
  StatsCounters* stats_;
  AlignedBuffer buffer_;
  uint64_t file_size_bytes_ = 0;
  uint64_t next_write_offset_ = 0;  // direct I/O: aligned offset of buffer_ start
  size_t written_tail_bytes_ = 0;   // direct I/O: buffered bytes already in the file
  bool synced_ = false;             // Sync was called (Close then syncs its truncate)
  bool plant_unaligned_ = false;
  bool plant_skip_end_of_file_ = false;
  bool closed_ = false;
  Status first_error_;  // the first failed file call; OK if none
};

}  // namespace shale
