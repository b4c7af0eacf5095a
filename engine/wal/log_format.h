// The log format shared by the WAL and the MANIFEST (see docs/wal_format.md).
//
// A log is a sequence of 32 KiB blocks. Each record is split into fragments
// that never cross a block boundary; each fragment has a 7-byte header:
//   fixed32 masked_crc32c(type byte | payload) | fixed16 payload_length | uint8 type
// A block tail shorter than a header is zero-filled and skipped.
#pragma once

#include <cstdint>

namespace shale::log {

enum RecordType : uint8_t {
  kZeroType = 0,  // preallocated or zero-filled space; never written as a record
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
};
constexpr uint8_t kMaxRecordType = kLastType;

constexpr uint32_t kBlockSize = 32768;
constexpr uint32_t kHeaderSize = 4 + 2 + 1;

}  // namespace shale::log
