// The log format shared by the WAL and the MANIFEST (see docs/wal_format.md).
//
// A log is a sequence of 32 KiB blocks. Each record is split into fragments
// that never cross a block boundary; each fragment has a 7-byte header:
//   fixed32 masked_crc32c(type byte | payload) | fixed16 payload_length | uint8 type
// A block tail shorter than a header is zero-filled and skipped. A writer
// with direct I/O pads the log at each sync to its alignment with one
// kPaddingType fragment (zeros; skipped by readers), and may leave the
// zero padding of its last unfinished sector at the end of the file
// (kMaxTailPaddingBytes at most, ending at a multiple of kTailPaddingUnit).
#pragma once

#include <cstdint>

namespace shale::log {

enum RecordType : uint8_t {
  kZeroType = 0,  // preallocated or zero-filled space; never written as a record
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
  kPaddingType = 5,  // a whole fragment of zeros between records; skipped
};
constexpr uint8_t kMaxRecordType = kPaddingType;

constexpr uint32_t kBlockSize = 32768;
constexpr uint32_t kHeaderSize = 4 + 2 + 1;
// A run of zeros from a record boundary to the end of the file, shorter
// than kMaxTailPaddingBytes and ending at a multiple of kTailPaddingUnit,
// is a direct writer's padding: the log ends there, undamaged.
constexpr uint32_t kMaxTailPaddingBytes = 4096;
constexpr uint32_t kTailPaddingUnit = 512;

}  // namespace shale::log
