#include "util/file_reader.h"

#include <cstring>

#include "util/aligned_buffer.h"

namespace shale {

RandomAccessFileReader::RandomAccessFileReader(std::unique_ptr<RandomAccessFile> file,
                                               std::string path, StatsCounters* stats)
    : file_(std::move(file)),
      path_(std::move(path)),
      stats_(stats),
      mapped_(!file_->use_direct_io() && file_->ReadsAreMapped()) {}

Status RandomAccessFileReader::Read(uint64_t offset, size_t n, Slice* result, char* scratch) const {
  SHALE_COUNT(stats_, file_reads, 1);
  if (!file_->use_direct_io()) {
    Status s = file_->Read(offset, n, result, scratch);
    if (s.ok()) SHALE_COUNT(stats_, bytes_read, result->size());
    return s;
  }
  const size_t alignment = file_->GetRequiredBufferAlignment();
  const uint64_t aligned_offset = RoundDown(offset, alignment);
  const size_t skip = static_cast<size_t>(offset - aligned_offset);
  const size_t aligned_len = RoundUp(skip + n, alignment);
  AlignedBuffer buf;
  buf.Allocate(alignment, aligned_len);
  Slice raw;
  Status s = file_->Read(aligned_offset, aligned_len, &raw, buf.data());
  if (!s.ok()) return s;
  SHALE_COUNT(stats_, bytes_read, raw.size());
  size_t available = raw.size() > skip ? raw.size() - skip : 0;
  if (available > n) available = n;
  if (available > 0) std::memcpy(scratch, raw.data() + skip, available);
  *result = Slice(scratch, available);
  return Status::OK();
}

}  // namespace shale
