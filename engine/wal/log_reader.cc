// log::Reader and ReplayLog (format in log_format.h, policy in log_reader.h).
//
// The reader holds one block at a time in backing_store_; buffer_ is the
// unread part of it and end_of_buffer_offset_ the file offset just past it,
// so the file offset of buffer_.data() is end_of_buffer_offset_ - buffer_.size().
#include "wal/log_reader.h"

#include <algorithm>
#include <cstring>

#include "util/check.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace shale::log {
namespace {

bool IsAllZero(const Slice& s) {
  return std::all_of(s.data(), s.data() + s.size(), [](char c) { return c == 0; });
}

}  // namespace

Reader::Reader(std::unique_ptr<SequentialFile> file, uint64_t log_number)
    : file_(std::move(file)), log_number_(log_number), backing_store_(new char[kBlockSize]) {
  SHALE_CHECK(file_ != nullptr);
}

bool Reader::ReadNextBlock() {
  SHALE_CHECK(buffer_.empty() && !eof_);
  // Loops over short reads, so a file system that returns less than asked
  // before end of file cannot make a mid-file block look like the tail.
  size_t filled_bytes = 0;
  while (filled_bytes < kBlockSize) {
    char* dst = backing_store_.get() + filled_bytes;
    Slice chunk;
    const Status s = file_->Read(kBlockSize - filled_bytes, &chunk, dst);
    if (!s.ok()) {
      status_ = s;
      eof_ = true;
      return false;
    }
    if (chunk.empty()) {
      eof_ = true;
      break;
    }
    SHALE_CHECK(chunk.size() <= kBlockSize - filled_bytes);
    if (chunk.data() != dst) std::memmove(dst, chunk.data(), chunk.size());
    filled_bytes += chunk.size();
  }
  buffer_ = Slice(backing_store_.get(), filled_bytes);
  end_of_buffer_offset_ += filled_bytes;
  if (filled_bytes < kBlockSize) eof_ = true;
  SHALE_CHECK(end_of_buffer_offset_ % kBlockSize == 0 || eof_);
  return true;
}

int Reader::SkipZeroRun(uint64_t* dropped_bytes) {
  uint64_t zero_bytes = buffer_.size();
  bool all_zero = IsAllZero(buffer_);
  buffer_.clear();
  while (all_zero && !eof_) {
    if (!ReadNextBlock()) return kIOErrorFragment;
    if (buffer_.empty()) break;
    if (!IsAllZero(buffer_)) {
      all_zero = false;  // keep this block: the reader resumes at its start
      break;
    }
    zero_bytes += buffer_.size();
    buffer_.clear();
  }
  *dropped_bytes = zero_bytes;
  // A direct writer's padding of its last sector is the end of the log.
  const bool tail_padding = all_zero && zero_bytes < kMaxTailPaddingBytes &&
                            end_of_buffer_offset_ % kTailPaddingUnit == 0;
  if (tail_padding) return kTailPaddingFragment;
  return all_zero ? kTruncatedFragment : kBadFragment;
}

int Reader::ReadPhysicalRecord(Slice* fragment, uint64_t* offset, uint64_t* dropped_bytes) {
  while (buffer_.size() < kHeaderSize) {
    if (!eof_) {
      buffer_.clear();  // a block tail shorter than a header is padding
      if (!ReadNextBlock()) return kIOErrorFragment;
      continue;
    }
    *offset = end_of_buffer_offset_ - buffer_.size();
    if (buffer_.empty()) return kEofFragment;
    *dropped_bytes = buffer_.size();  // end of file inside a header
    // (unless those bytes are a direct writer's tail padding)
    const bool tail_padding = IsAllZero(buffer_) && end_of_buffer_offset_ % kTailPaddingUnit == 0;
    buffer_.clear();
    return tail_padding ? kTailPaddingFragment : kTruncatedFragment;
  }
  *offset = end_of_buffer_offset_ - buffer_.size();
  const char* header = buffer_.data();
  const uint32_t length = static_cast<uint8_t>(header[4]) |
                          (static_cast<uint32_t>(static_cast<uint8_t>(header[5])) << 8);
  const uint8_t type = static_cast<uint8_t>(header[6]);
  const uint64_t fragment_end_in_block = *offset % kBlockSize + kHeaderSize + length;
  if (fragment_end_in_block > kBlockSize || kHeaderSize + length > buffer_.size()) {
    // Past the block boundary is impossible; past the data is a torn tail
    // only if this is the last block.
    const bool torn_tail = eof_ && fragment_end_in_block <= kBlockSize;
    *dropped_bytes = buffer_.size();
    buffer_.clear();
    return torn_tail ? kTruncatedFragment : kBadFragment;
  }
  if (type == kZeroType && length == 0) return SkipZeroRun(dropped_bytes);
  // The checksum covers the type byte and the payload, which are adjacent.
  const uint32_t expected_crc = crc32c::Unmask(DecodeFixed32(header));
  const uint32_t actual_crc = crc32c::Value(header + kHeaderSize - 1, 1 + length);
  if (actual_crc != expected_crc) {
    *dropped_bytes = buffer_.size();  // the length is not trustworthy either
    buffer_.clear();
    return kBadFragment;
  }
  buffer_.remove_prefix(kHeaderSize + length);
  if (type == kZeroType || type > kMaxRecordType) {
    *dropped_bytes = kHeaderSize + length;
    return kBadFragment;
  }
  *fragment = Slice(header + kHeaderSize, length);
  return type;
}

ReadResult Reader::Damage(ReadResult result, uint64_t offset, uint64_t dropped_bytes) {
  SHALE_CHECK(result == ReadResult::kCorruptRecord || result == ReadResult::kTruncatedTail);
  last_damage_offset_ = offset;
  dropped_bytes_ = dropped_bytes;
  return result;
}

ReadResult Reader::ReadRecord(Slice* record, std::string* scratch) {
  scratch->clear();
  *record = Slice();
  bool in_fragmented_record = false;
  uint64_t record_offset = 0;  // of the first fragment, when in_fragmented_record
  while (true) {
    Slice fragment;
    uint64_t offset = 0;
    uint64_t dropped_bytes = 0;
    const int type = ReadPhysicalRecord(&fragment, &offset, &dropped_bytes);
    // Bytes of the unfinished record before this fragment.
    const uint64_t partial_bytes = in_fragmented_record ? offset - record_offset : 0;
    const uint64_t damage_offset = in_fragmented_record ? record_offset : offset;
    switch (type) {
      case kFullType:
      case kFirstType:
        if (in_fragmented_record) {
          // The open record never got its last fragment. Un-read this
          // fragment (still in the block) so the next call returns it.
          SHALE_CHECK(fragment.data() + fragment.size() == buffer_.data());
          buffer_ =
              Slice(fragment.data() - kHeaderSize, kHeaderSize + fragment.size() + buffer_.size());
          return Damage(ReadResult::kCorruptRecord, damage_offset, partial_bytes);
        }
        if (type == kFullType) {
          last_record_offset_ = offset;
          last_record_end_offset_ = offset + kHeaderSize + fragment.size();
          *record = fragment;
          return ReadResult::kRecord;
        }
        record_offset = offset;
        scratch->assign(fragment.data(), fragment.size());
        in_fragmented_record = true;
        break;
      case kMiddleType:
      case kLastType:
        if (!in_fragmented_record) {  // its start was lost
          return Damage(ReadResult::kCorruptRecord, offset, kHeaderSize + fragment.size());
        }
        scratch->append(fragment.data(), fragment.size());
        if (type == kLastType) {
          last_record_offset_ = record_offset;
          last_record_end_offset_ = offset + kHeaderSize + fragment.size();
          *record = Slice(*scratch);
          return ReadResult::kRecord;
        }
        break;
      case kPaddingType:
        if (in_fragmented_record) {  // a writer pads only between records
          return Damage(ReadResult::kCorruptRecord, damage_offset,
                        partial_bytes + kHeaderSize + fragment.size());
        }
        break;
      case kEofFragment:
        if (!in_fragmented_record) return ReadResult::kEof;
        return Damage(ReadResult::kTruncatedTail, damage_offset, partial_bytes);
      case kTailPaddingFragment:
        if (!in_fragmented_record) return ReadResult::kEof;
        return Damage(ReadResult::kTruncatedTail, damage_offset, partial_bytes + dropped_bytes);
      case kTruncatedFragment:
        return Damage(ReadResult::kTruncatedTail, damage_offset, partial_bytes + dropped_bytes);
      case kBadFragment:
        return Damage(ReadResult::kCorruptRecord, damage_offset, partial_bytes + dropped_bytes);
      case kIOErrorFragment:
        return ReadResult::kIOError;
      default:
        SHALE_CHECK(false && "unexpected fragment type");
        return ReadResult::kCorruptRecord;
    }
  }
}

namespace {

Status DamageStatus(const Reader& reader, ReadResult result) {
  const char* what =
      result == ReadResult::kTruncatedTail ? "truncated record at end of log" : "corrupt record";
  return Status::Corruption(what, "log " + std::to_string(reader.log_number()) + " offset " +
                                      std::to_string(reader.last_damage_offset()) + ", " +
                                      std::to_string(reader.dropped_bytes()) + " bytes dropped");
}

// What a replay does at damage: fail with Corruption, end cleanly (a torn
// tail is the end of the log), stop there (point in time: nothing after it
// may be applied), or skip it and read on.
enum class OnDamage : uint8_t { kFail, kEnd, kStop, kSkip };

// The one replay loop: applies every whole record, and asks on_damage what
// to do at each damaged one.
Status ReplayRecords(Reader* reader, const std::function<Status(const Slice& record)>& apply,
                     const std::function<OnDamage(ReadResult)>& on_damage, ReplayResult* result) {
  *result = ReplayResult{};
  Slice record;
  std::string scratch;
  while (true) {
    const ReadResult r = reader->ReadRecord(&record, &scratch);
    switch (r) {
      case ReadResult::kRecord: {
        Status s = apply(record);
        if (!s.ok()) return s;
        result->records++;
        continue;
      }
      case ReadResult::kEof:
        return Status::OK();
      case ReadResult::kIOError:
        SHALE_CHECK(!reader->status().ok());
        return reader->status();
      case ReadResult::kTruncatedTail:
      case ReadResult::kCorruptRecord:
        break;
    }
    const OnDamage action = on_damage(r);
    if (action == OnDamage::kFail) {
      result->refused = true;
      return DamageStatus(*reader, r);
    }
    result->skipped_bytes += reader->dropped_bytes();
    if (action == OnDamage::kSkip) {
      result->skipped_damage++;
      continue;
    }
    result->stopped_at_damage = action == OnDamage::kStop;
    result->ended_at_torn_tail = r == ReadResult::kTruncatedTail;
    result->stopped_at_corrupt_record = r == ReadResult::kCorruptRecord;
    result->consistent_bytes = reader->last_record_end_offset();
    return Status::OK();
  }
}

}  // namespace

Status ReplayLog(Reader* reader, WALRecoveryMode mode,
                 const std::function<Status(const Slice& record)>& apply, ReplayResult* result) {
  if (mode > WALRecoveryMode::kSkipAnyCorruptedRecords) {
    return Status::InvalidArgument("unknown WALRecoveryMode");
  }
  auto policy = [mode](ReadResult r) {
    switch (mode) {
      case WALRecoveryMode::kAbsoluteConsistency:
        return OnDamage::kFail;
      case WALRecoveryMode::kTolerateCorruptedTailRecords:
        return r == ReadResult::kTruncatedTail ? OnDamage::kEnd : OnDamage::kFail;
      case WALRecoveryMode::kPointInTimeRecovery:
        return OnDamage::kStop;
      case WALRecoveryMode::kSkipAnyCorruptedRecords:
        return OnDamage::kSkip;
    }
    return OnDamage::kFail;  // unreachable: the mode was checked above
  };
  return ReplayRecords(reader, apply, policy, result);
}

namespace {

// A SequentialFile over bytes the caller keeps alive.
class SliceSequentialFile final : public SequentialFile {
 public:
  explicit SliceSequentialFile(const Slice& contents) : rest_(contents) {}
  Status Read(size_t n, Slice* result, char* scratch) override {
    const size_t take = n < rest_.size() ? n : rest_.size();
    std::memcpy(scratch, rest_.data(), take);
    *result = Slice(scratch, take);
    rest_.remove_prefix(take);
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    rest_.remove_prefix(n < rest_.size() ? static_cast<size_t>(n) : rest_.size());
    return Status::OK();
  }

 private:
  Slice rest_;
};

// True if a whole fragment (sane type and length, inside one block, checksum
// matching) starts anywhere in contents after offset.
bool AnyWholeFragmentAfter(const Slice& contents, uint64_t offset) {
  for (uint64_t pos = offset + 1; pos + kHeaderSize <= contents.size(); pos++) {
    if (WholeFragmentBytesAt(contents, pos) != 0) return true;
  }
  return false;
}

}  // namespace

Status ReplayLogWithDamagedTail(const Slice& contents, uint64_t log_number,
                                const std::function<Status(const Slice& record)>& apply,
                                ReplayResult* result) {
  Reader reader(std::make_unique<SliceSequentialFile>(contents), log_number);
  // The reader resynchronises at the next block, so records later in the
  // damaged block are invisible to it: scan the bytes instead.
  auto policy = [&reader, &contents](ReadResult) {
    return AnyWholeFragmentAfter(contents, reader.last_damage_offset()) ? OnDamage::kFail
                                                                        : OnDamage::kStop;
  };
  Status s = ReplayRecords(&reader, apply, policy, result);
  if (s.ok() && result->stopped_at_damage) {
    result->skipped_bytes = contents.size() - reader.last_damage_offset();
  }
  return s;
}

uint64_t WholeFragmentBytesAt(const Slice& contents, uint64_t pos, bool padding_is_whole) {
  if (pos + kHeaderSize > contents.size()) return 0;
  const char* header = contents.data() + pos;
  const uint8_t type = static_cast<uint8_t>(header[6]);
  const bool padding = padding_is_whole && type == kPaddingType;
  if (!padding && (type < kFullType || type > kLastType)) return 0;
  const uint32_t length = static_cast<uint8_t>(header[4]) |
                          (static_cast<uint32_t>(static_cast<uint8_t>(header[5])) << 8);
  if (pos % kBlockSize + kHeaderSize + length > kBlockSize) return 0;
  if (pos + kHeaderSize + length > contents.size()) return 0;
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(header));
  if (crc32c::Value(header + 6, 1 + length) != expected) return 0;
  return kHeaderSize + length;
}

}  // namespace shale::log
