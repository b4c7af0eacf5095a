// log::Writer appends records to a log file (WAL or MANIFEST).
//
// Ownership: owns the WritableFileWriter. Thread safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shale/slice.h"
#include "shale/status.h"
#include "util/file_writer.h"
#include "wal/log_format.h"

namespace shale::log {

class Writer {
 public:
  // Starts writing at the start of dest (an empty file).
  Writer(std::unique_ptr<WritableFileWriter> dest, uint64_t log_number);
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends one record and hands it to the file system (Flush), so a process
  // crash after OK does not lose it. Not durable until Sync(). After a failed
  // AddRecord the writer is broken: later calls return the same error.
  [[nodiscard]] Status AddRecord(const Slice& record);
  // Makes every record added so far durable. With direct I/O it first pads
  // the log to the file's alignment (a kPaddingType fragment), so records
  // added later start in a sector of their own. After a failed Sync the
  // writer is broken too: the file system may have dropped the unsynced
  // tail (Linux may evict the dirty pages of a failed fsync), and a record
  // appended past that gap would be read back after a lost one.
  [[nodiscard]] Status Sync();
  // Closes the file. Later AddRecord and Sync calls fail and write
  // nothing: with the writer's first error if it had one, else with
  // `reason` if it is an error (why the log was given up, so that a
  // writer still holding it reports the cause), else with the Close's own
  // failure, else IOError("log is closed"). Close again is a no-op.
  [[nodiscard]] Status Close(const Status& reason = Status::OK());

  // TEST ONLY (planted kBugDirectWalSkipsSyncPadding): Sync does not pad.
  void PlantSkipSyncPadding() { plant_skip_sync_padding_ = true; }
  // TEST ONLY (planted kBugMixPositionalAndAppend): a buffered log's Sync
  // re-writes its first header in place.
  void PlantHeaderRewriteAtSync() { plant_header_rewrite_ = true; }
  // TEST ONLY (planted kBugWalFragmentIgnoresHeader): a fragment may fill
  // its block's room without leaving space for its header.
  void PlantFragmentIgnoresHeader() { plant_fragment_ignores_header_ = true; }

  uint64_t log_number() const { return log_number_; }
  WritableFileWriter* file() { return dest_.get(); }
  uint64_t size_bytes() const { return dest_->GetFileSize(); }

 private:
  [[nodiscard]] Status EmitPhysicalRecord(RecordType type, const char* ptr, size_t length);
  // Fills the log up to the next multiple of alignment_bytes.
  // REQUIRES: alignment_bytes divides kBlockSize.
  [[nodiscard]] Status PadToAlignment(uint64_t alignment_bytes);

  std::unique_ptr<WritableFileWriter> dest_;
  uint64_t log_number_;
  uint32_t block_offset_ = 0;  // bytes used in the current block
  // The first failed write or sync. A failed append may have left part of a
  // record in the file, and a failed sync may have cut the file back, so
  // block_offset_ no longer matches it: every later AddRecord and Sync
  // returns this error rather than writing records the reader cannot frame
  // or that follow a hole.
  Status first_error_;
  bool plant_skip_sync_padding_ = false;
  bool plant_header_rewrite_ = false;
  bool plant_fragment_ignores_header_ = false;
  std::string first_header_;  // planted header rewrite: the log's first 7 bytes
};

}  // namespace shale::log
