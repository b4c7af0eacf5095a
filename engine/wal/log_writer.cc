// log::Writer: frames records into 32 KiB blocks (format in log_format.h).
#include "wal/log_writer.h"

#include <algorithm>
#include <string>

#include "util/check.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace shale::log {
namespace {

constexpr char kZeroPadding[kHeaderSize] = {};

// The fragment type for a piece that is (or is not) the first/last of its record.
RecordType FragmentType(bool is_first, bool is_last) {
  if (is_first && is_last) return kFullType;
  if (is_first) return kFirstType;
  if (is_last) return kLastType;
  return kMiddleType;
}

}  // namespace

Writer::Writer(std::unique_ptr<WritableFileWriter> dest, uint64_t log_number)
    : dest_(std::move(dest)), log_number_(log_number) {
  SHALE_CHECK(dest_ != nullptr);
  // A non-empty dest (not the documented use) still frames correctly.
  block_offset_ = static_cast<uint32_t>(dest_->GetFileSize() % kBlockSize);
}

Status Writer::AddRecord(const Slice& record) {
  if (!first_error_.ok()) return first_error_;
  const char* ptr = record.data();
  size_t left_bytes = record.size();
  bool is_first = true;
  Status s;
  do {
    const uint32_t block_left_bytes = kBlockSize - block_offset_;
    if (block_left_bytes < kHeaderSize) {
      if (block_left_bytes > 0) s = dest_->Append(Slice(kZeroPadding, block_left_bytes));
      if (!s.ok()) break;
      block_offset_ = 0;
    }
    SHALE_CHECK(kBlockSize - block_offset_ >= kHeaderSize);
    const size_t header_bytes = plant_fragment_ignores_header_ ? 0 : kHeaderSize;
    const size_t avail_bytes = kBlockSize - block_offset_ - header_bytes;
    const size_t fragment_bytes = std::min(left_bytes, avail_bytes);
    const bool is_last = fragment_bytes == left_bytes;
    s = EmitPhysicalRecord(FragmentType(is_first, is_last), ptr, fragment_bytes);
    ptr += fragment_bytes;
    left_bytes -= fragment_bytes;
    is_first = false;
  } while (s.ok() && left_bytes > 0);
  if (s.ok()) s = dest_->Flush();
  if (!s.ok()) first_error_ = s;
  return s;
}

Status Writer::EmitPhysicalRecord(RecordType type, const char* ptr, size_t length) {
  SHALE_CHECK(length <= 0xffff);
  SHALE_CHECK(block_offset_ + kHeaderSize + length <= kBlockSize);
  const char type_byte = static_cast<char>(type);
  const uint32_t crc = crc32c::Extend(crc32c::Value(&type_byte, 1), ptr, length);
  char header[kHeaderSize];
  EncodeFixed32(header, crc32c::Mask(crc));
  header[4] = static_cast<char>(length & 0xff);
  header[5] = static_cast<char>(length >> 8);
  header[6] = type_byte;
  if (plant_header_rewrite_ && first_header_.empty()) first_header_.assign(header, kHeaderSize);
  Status s = dest_->Append(Slice(header, kHeaderSize));
  if (s.ok()) s = dest_->Append(Slice(ptr, length));
  block_offset_ += static_cast<uint32_t>(kHeaderSize + length);
  SHALE_CHECK(block_offset_ <= kBlockSize);
  return s;
}

Status Writer::PadToAlignment(uint64_t alignment_bytes) {
  SHALE_CHECK(alignment_bytes > 0 && kBlockSize % alignment_bytes == 0);
  const uint64_t at = dest_->GetFileSize();
  SHALE_CHECK(at % kBlockSize == block_offset_ % kBlockSize);
  uint64_t pad = (alignment_bytes - at % alignment_bytes) % alignment_bytes;
  if (pad == 0) return Status::OK();
  const uint32_t block_left_bytes = kBlockSize - block_offset_;
  if (pad < kHeaderSize) pad += alignment_bytes;
  // The block ends on an aligned offset: a pad that would pass it stops
  // there, and one too short for a header is the block tail's zero fill.
  pad = std::min<uint64_t>(pad, block_left_bytes);
  if (pad < kHeaderSize) {
    Status s = dest_->Append(Slice(kZeroPadding, pad));
    block_offset_ = 0;
    return s;
  }
  const std::string zeros(pad - kHeaderSize, '\0');
  return EmitPhysicalRecord(kPaddingType, zeros.data(), zeros.size());
}

Status Writer::Sync() {
  if (!first_error_.ok()) return first_error_;
  Status s;
  WritableFile* file = dest_->file();
  if (file->use_direct_io() && !plant_skip_sync_padding_) {
    s = PadToAlignment(file->GetRequiredBufferAlignment());
  }
  if (s.ok()) s = dest_->Sync();
  if (s.ok() && plant_header_rewrite_ && !file->use_direct_io() && !first_header_.empty()) {
    s = file->PositionedAppend(first_header_, 0);
  }
  if (!s.ok()) first_error_ = s;
  return s;
}

Status Writer::Close(const Status& reason) {
  // Nothing is written after Close, whatever a caller still holding the log
  // tries: later AddRecord and Sync calls return this error, the cause when
  // there is one (a failed Close's own, if no reason was given).
  const Status closed = dest_->Close();
  if (first_error_.ok()) {
    first_error_ = !reason.ok()   ? reason
                   : !closed.ok() ? closed
                                  : Status::IOError("log is closed", std::to_string(log_number_));
  }
  return closed;
}

}  // namespace shale::log
