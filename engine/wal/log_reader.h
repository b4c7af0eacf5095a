// log::Reader reads records back from a log file, and ReplayLog applies a
// WALRecoveryMode's policy to the damage it meets.
//
// The reader never returns a record whose bytes fail their checksum. It
// classifies damage as:
//   * kTruncatedTail: the file ends inside a header or inside a record (a
//     torn or unfinished write at the end), or ends in zero-filled space
//     (a zero header followed by nothing but zeros up to end of file);
//   * kCorruptRecord: a checksum mismatch, an impossible length or type, or
//     fragments out of order. The reader resynchronises at the next block,
//     so the rest of the damaged block is dropped with it.
//
// Ownership: the reader owns the SequentialFile. Thread safety: none.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "shale/env.h"
#include "shale/options.h"
#include "shale/slice.h"
#include "shale/status.h"
#include "wal/log_format.h"

namespace shale::log {

enum class ReadResult : uint8_t {
  kRecord,         // *record holds one whole, checksummed record
  kEof,            // clean end of file
  kTruncatedTail,  // end of file inside a header or a record
  kCorruptRecord,  // damaged bytes (*dropped_bytes of them were skipped)
  kIOError,        // the file read failed (see status())
};

class Reader {
 public:
  Reader(std::unique_ptr<SequentialFile> file, uint64_t log_number);
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Reads the next record into *record (which may point into *scratch).
  // After kCorruptRecord, the next call resumes after the damaged bytes.
  ReadResult ReadRecord(Slice* record, std::string* scratch);

  // Bytes skipped by the last kCorruptRecord / kTruncatedTail result.
  uint64_t dropped_bytes() const { return dropped_bytes_; }
  // File offset of the start of the last record returned.
  uint64_t last_record_offset() const { return last_record_offset_; }
  // File offset just past the last record returned (0: none yet): the
  // length the file would have if it ended there.
  uint64_t last_record_end_offset() const { return last_record_end_offset_; }
  // File offset of the first byte dropped by the last kCorruptRecord /
  // kTruncatedTail result (for error messages).
  uint64_t last_damage_offset() const { return last_damage_offset_; }
  Status status() const { return status_; }
  uint64_t log_number() const { return log_number_; }

 private:
  // ReadPhysicalRecord's results: a RecordType, or one of these.
  // kTailPaddingFragment: zeros from a record boundary to the end of the
  // file that a direct writer's last sector padding explains (log_format.h).
  enum : int {
    kEofFragment = 256,
    kTailPaddingFragment,
    kTruncatedFragment,
    kBadFragment,
    kIOErrorFragment
  };

  // Reads the next fragment; sets *offset to the file offset of its header.
  // On kTruncatedFragment / kBadFragment, *dropped_bytes is what it skipped.
  int ReadPhysicalRecord(Slice* fragment, uint64_t* offset, uint64_t* dropped_bytes);
  // Reads the next block into buffer_. False on an I/O error (status_ set).
  bool ReadNextBlock();
  // Called after a zero header (preallocated space); skips the zero run.
  int SkipZeroRun(uint64_t* dropped_bytes);
  // Records damage starting at offset and returns result.
  ReadResult Damage(ReadResult result, uint64_t offset, uint64_t dropped_bytes);

  std::unique_ptr<SequentialFile> file_;
  uint64_t log_number_;
  std::unique_ptr<char[]> backing_store_;
  Slice buffer_;
  bool eof_ = false;
  uint64_t end_of_buffer_offset_ = 0;
  uint64_t last_record_offset_ = 0;
  uint64_t last_record_end_offset_ = 0;
  uint64_t dropped_bytes_ = 0;
  uint64_t last_damage_offset_ = 0;
  Status status_;
};

struct ReplayResult {
  uint64_t records = 0;
  // Point-in-time recovery stopped at damage: later records (and later logs)
  // must not be applied.
  bool stopped_at_damage = false;
  // Replay ended at damage (a point-in-time stop, or a tolerated tail): the
  // offset just past the last whole record before it, where the log's
  // consistent prefix ends (nullopt: it ended cleanly, or skipped damage).
  std::optional<uint64_t> consistent_bytes;
  // Records or bytes skipped (kSkipAnyCorruptedRecords, or a tolerated tail).
  uint64_t skipped_bytes = 0;
  // What the damage was, for coverage probes: replay ended (or stopped) at
  // a truncated tail; it stopped at a corrupt record; the mode refused
  // damage (the Corruption returned); damaged spans skipped.
  bool ended_at_torn_tail = false;
  bool stopped_at_corrupt_record = false;
  bool refused = false;
  uint64_t skipped_damage = 0;
};

// Reads every record of one log and calls apply on it, following mode:
//   kTolerateCorruptedTailRecords: a truncated tail is ignored; a corrupt
//       record is Corruption.
//   kAbsoluteConsistency: any truncated tail or corrupt record is Corruption.
//   kPointInTimeRecovery: stops at the first truncated tail or corrupt record
//       and sets stopped_at_damage (OK status).
//   kSkipAnyCorruptedRecords: skips damage and goes on.
// An I/O error, or an error from apply, is returned as is. The message of a
// Corruption names the log number and offset.
[[nodiscard]] Status ReplayLog(Reader* reader, WALRecoveryMode mode,
                               const std::function<Status(const Slice& record)>& apply,
                               ReplayResult* result);

// The MANIFEST's policy, over the log's whole contents: damage of any kind
// (truncated or corrupt) is tolerated only if no whole, checksummed fragment
// starts anywhere after it: it is then the one record whose write or sync
// never completed (never acknowledged), and after a power loss its unsynced
// sectors may be missing, torn or garbage. Anything whole after the damage
// (even within the damaged block, which the Reader skips) is Corruption.
// Records before the damage are applied; stopped_at_damage says whether a
// tail was dropped.
[[nodiscard]] Status ReplayLogWithDamagedTail(
    const Slice& contents, uint64_t log_number,
    const std::function<Status(const Slice& record)>& apply, ReplayResult* result);

// The length (header included) of the whole fragment at pos of a log's
// contents: a sane type and length, inside one block and inside contents,
// with a matching checksum. 0 if there is none at pos. padding_is_whole: a
// direct writer's padding fragment counts too (a reader reads past it).
uint64_t WholeFragmentBytesAt(const Slice& contents, uint64_t pos, bool padding_is_whole = false);

}  // namespace shale::log
