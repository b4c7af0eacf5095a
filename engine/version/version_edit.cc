// VersionEdit encoding (format in version_edit.h).
#include "version/version_edit.h"

#include <cinttypes>
#include <cstdio>
#include <string>

#include "util/check.h"
#include "util/coding.h"

namespace shale {

namespace {

enum Tag : uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactPointer = 5,
  kDeletedFile = 6,
  kNewFile = 7,
  kPrevLogNumber = 8,
  kMinLogToKeep = 9,
  kNewFileWithTail = 10,
};

bool GetLevel(Slice* input, int* level) {
  uint32_t v = 0;
  if (!GetVarint32(input, &v) || v >= static_cast<uint32_t>(kMaxNumLevels)) return false;
  *level = static_cast<int>(v);
  return true;
}

bool GetInternalKey(Slice* input, InternalKey* key) {
  Slice s;
  if (!GetLengthPrefixedSlice(input, &s) || s.size() < kInternalKeyTrailerBytes) return false;
  return key->DecodeFrom(s);
}

// Reads a varint64 field that may appear at most once.
bool GetOnce(Slice* input, bool* has, uint64_t* value) {
  if (*has) return false;
  *has = true;
  return GetVarint64(input, value);
}

bool GetNewFile(Slice* input, int* level, FileMetaData* f) {
  return GetLevel(input, level) && GetVarint64(input, &f->number) &&
         GetVarint64(input, &f->file_size) && GetInternalKey(input, &f->smallest) &&
         GetInternalKey(input, &f->largest) && GetVarint64(input, &f->smallest_seqno) &&
         GetVarint64(input, &f->largest_seqno) && f->smallest_seqno <= f->largest_seqno;
}

}  // namespace

void VersionEdit::AddFile(int level, uint64_t number, uint64_t file_size,
                          const InternalKey& smallest, const InternalKey& largest,
                          SequenceNumber smallest_seqno, SequenceNumber largest_seqno) {
  FileMetaData f;
  f.number = number;
  f.file_size = file_size;
  f.smallest = smallest;
  f.largest = largest;
  f.smallest_seqno = smallest_seqno;
  f.largest_seqno = largest_seqno;
  new_files_.emplace_back(level, f);
}

void VersionEdit::EncodeTo(std::string* dst) const {
  if (has_comparator_) {
    PutVarint32(dst, kComparator);
    PutLengthPrefixedSlice(dst, comparator_);
  }
  if (has_log_number_) {
    PutVarint32(dst, kLogNumber);
    PutVarint64(dst, log_number_);
  }
  if (has_min_log_to_keep_) {
    PutVarint32(dst, kMinLogToKeep);
    PutVarint64(dst, min_log_to_keep_);
  }
  if (has_prev_log_number_) {
    PutVarint32(dst, kPrevLogNumber);
    PutVarint64(dst, prev_log_number_);
  }
  if (has_next_file_number_) {
    PutVarint32(dst, kNextFileNumber);
    PutVarint64(dst, next_file_number_);
  }
  if (has_last_sequence_) {
    PutVarint32(dst, kLastSequence);
    PutVarint64(dst, last_sequence_);
  }
  for (const auto& [level, key] : compact_pointers_) {
    SHALE_CHECK(level >= 0 && level < kMaxNumLevels);
    PutVarint32(dst, kCompactPointer);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutLengthPrefixedSlice(dst, key.Encode());
  }
  for (const auto& [level, number] : deleted_files_) {
    SHALE_CHECK(level >= 0 && level < kMaxNumLevels);
    PutVarint32(dst, kDeletedFile);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutVarint64(dst, number);
  }
  for (const auto& [level, f] : new_files_) {
    SHALE_CHECK(level >= 0 && level < kMaxNumLevels);
    SHALE_CHECK(f.smallest_seqno <= f.largest_seqno);
    PutVarint32(dst, f.tail_size_bytes != 0 ? kNewFileWithTail : kNewFile);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutVarint64(dst, f.number);
    PutVarint64(dst, f.file_size);
    PutLengthPrefixedSlice(dst, f.smallest.Encode());
    PutLengthPrefixedSlice(dst, f.largest.Encode());
    PutVarint64(dst, f.smallest_seqno);
    PutVarint64(dst, f.largest_seqno);
    if (f.tail_size_bytes != 0) PutVarint64(dst, f.tail_size_bytes);
  }
}

Status VersionEdit::DecodeFrom(const Slice& src) {
  Clear();
  Slice input = src;
  const char* bad = nullptr;
  uint32_t tag = 0;
  while (bad == nullptr && !input.empty()) {
    if (!GetVarint32(&input, &tag)) {
      bad = "tag";
      break;
    }
    int level = 0;
    switch (tag) {
      case kComparator: {
        Slice name;
        if (has_comparator_ || !GetLengthPrefixedSlice(&input, &name))
          bad = "comparator";
        else
          SetComparatorName(name);
        break;
      }
      case kLogNumber:
        if (!GetOnce(&input, &has_log_number_, &log_number_)) bad = "log number";
        break;
      case kMinLogToKeep:
        if (!GetOnce(&input, &has_min_log_to_keep_, &min_log_to_keep_)) bad = "min log to keep";
        break;
      case kPrevLogNumber:
        if (!GetOnce(&input, &has_prev_log_number_, &prev_log_number_)) bad = "prev log number";
        break;
      case kNextFileNumber:
        if (!GetOnce(&input, &has_next_file_number_, &next_file_number_)) bad = "next file";
        break;
      case kLastSequence:
        if (!GetOnce(&input, &has_last_sequence_, &last_sequence_)) bad = "last sequence";
        break;
      case kCompactPointer: {
        InternalKey key;
        if (!GetLevel(&input, &level) || !GetInternalKey(&input, &key))
          bad = "compact pointer";
        else
          compact_pointers_.emplace_back(level, key);
        break;
      }
      case kDeletedFile: {
        uint64_t number = 0;
        if (!GetLevel(&input, &level) || !GetVarint64(&input, &number))
          bad = "deleted file";
        else
          deleted_files_.insert({level, number});
        break;
      }
      case kNewFile: {
        FileMetaData f;
        if (!GetNewFile(&input, &level, &f))
          bad = "new-file entry";
        else
          new_files_.emplace_back(level, f);
        break;
      }
      case kNewFileWithTail: {
        FileMetaData f;
        if (!GetNewFile(&input, &level, &f) || !GetVarint64(&input, &f.tail_size_bytes) ||
            f.tail_size_bytes == 0 || f.tail_size_bytes > f.file_size) {
          bad = "new-file entry";
        } else {
          new_files_.emplace_back(level, f);
        }
        break;
      }
      default:
        bad = "unknown tag";
        break;
    }
  }
  if (bad != nullptr) {
    Clear();
    return Status::Corruption("VersionEdit", bad);
  }
  return Status::OK();
}

std::string VersionEdit::DebugString() const {
  std::string r = "VersionEdit {";
  char buf[128];
  if (has_comparator_) r += "\n  Comparator: " + comparator_;
  auto num = [&](const char* name, bool has, uint64_t v) {
    if (!has) return;
    std::snprintf(buf, sizeof(buf), "\n  %s: %" PRIu64, name, v);
    r += buf;
  };
  num("LogNumber", has_log_number_, log_number_);
  num("PrevLogNumber", has_prev_log_number_, prev_log_number_);
  num("MinLogToKeep", has_min_log_to_keep_, min_log_to_keep_);
  num("NextFile", has_next_file_number_, next_file_number_);
  num("LastSeq", has_last_sequence_, last_sequence_);
  for (const auto& [level, key] : compact_pointers_) {
    std::snprintf(buf, sizeof(buf), "\n  CompactPointer: %d ", level);
    r += buf + key.DebugString();
  }
  for (const auto& [level, number] : deleted_files_) {
    std::snprintf(buf, sizeof(buf), "\n  DeleteFile: %d %" PRIu64, level, number);
    r += buf;
  }
  for (const auto& [level, f] : new_files_) {
    std::snprintf(buf, sizeof(buf), "\n  AddFile: %d %" PRIu64 " %" PRIu64 " ", level, f.number,
                  f.file_size);
    r += buf + f.smallest.DebugString() + " .. " + f.largest.DebugString();
    if (f.tail_size_bytes != 0) r += " tail " + std::to_string(f.tail_size_bytes);
  }
  r += "\n}\n";
  return r;
}

}  // namespace shale
