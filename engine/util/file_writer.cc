#include "util/file_writer.h"
#include "util/check.h"

namespace shale {

WritableFileWriter::WritableFileWriter(std::unique_ptr<WritableFile> file, std::string path,
                                       StatsCounters* stats, size_t buffer_bytes)
    : file_(std::move(file)), path_(std::move(path)), stats_(stats) {
  const size_t alignment = file_->use_direct_io() ? file_->GetRequiredBufferAlignment() : 1;
  buffer_.Allocate(alignment, buffer_bytes < alignment ? alignment : buffer_bytes);
}

WritableFileWriter::~WritableFileWriter() {
  if (!closed_) {
    // Destruction without Close is an abandoned file (e.g. a failed
    // compaction output); its contents do not matter.
    Close().PermitUncheckedError();
  }
}

Status WritableFileWriter::Append(const Slice& data) {
  SHALE_CHECK(!closed_);
  if (!first_error_.ok()) return first_error_;
  const char* src = data.data();
  size_t left = data.size();
  file_size_bytes_ += left;
  if (!file_->use_direct_io() && buffer_.size() == 0 && left >= buffer_.capacity()) {
    return WriteBuffered(src, left);  // large write: skip the copy
  }
  while (left > 0) {
    const size_t taken = buffer_.Append(src, left);
    src += taken;
    left -= taken;
    if (buffer_.available() == 0) {
      Status s = Flush();
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

Status WritableFileWriter::WriteBuffered(const char* data, size_t size) {
  Status s = file_->Append(Slice(data, size));
  if (s.ok()) SHALE_COUNT(stats_, bytes_written, size);
  return Remember(s);
}

Status WritableFileWriter::Remember(const Status& s) {
  if (!s.ok() && first_error_.ok()) first_error_ = s;
  return s;
}

Status WritableFileWriter::WriteDirect() {
  const size_t alignment = buffer_.alignment();
  const size_t logical = buffer_.size();
  const size_t padded = plant_unaligned_ ? logical : RoundUp(logical, alignment);
  buffer_.Zero(logical, padded);
  Status s = file_->PositionedAppend(Slice(buffer_.data(), padded), next_write_offset_);
  if (!s.ok()) return Remember(s);
  SHALE_COUNT(stats_, bytes_written, padded);
  // Keep the partial last block in the buffer: it is re-written, with more
  // data, at the same aligned offset by the next flush.
  const size_t whole = RoundDown(logical, alignment);
  next_write_offset_ += whole;
  buffer_.DropPrefix(whole);
  written_tail_bytes_ = buffer_.size();
  return Status::OK();
}

Status WritableFileWriter::Flush() {
  if (!first_error_.ok()) return first_error_;
  // A direct writer's kept tail is already in the file: writing it again
  // when nothing was appended would re-write a block that may be synced,
  // and an unsynced write can tear it at a power loss.
  if (buffer_.size() == written_tail_bytes_) return Remember(file_->Flush());
  Status s;
  if (file_->use_direct_io()) {
    s = WriteDirect();
  } else {
    s = WriteBuffered(buffer_.data(), buffer_.size());
    if (s.ok()) buffer_.set_size(0);
  }
  if (!s.ok()) return s;
  return Remember(file_->Flush());
}

Status WritableFileWriter::Sync() {
  Status s = Flush();
  if (!s.ok()) return s;
  s = Remember(file_->Sync());
  if (s.ok()) SHALE_COUNT(stats_, file_syncs, 1);
  synced_ = true;
  return s;
}

Status WritableFileWriter::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  if (!first_error_.ok()) return FirstError(first_error_, file_->Close());
  Status s = Flush();
  // A direct writer's last block carries padding: cut it off (on Windows,
  // set end-of-file), and make that durable, as the data already may be.
  const bool cut = file_->use_direct_io() && !plant_skip_end_of_file_;
  if (s.ok() && cut) s = file_->Truncate(file_size_bytes_);
  if (s.ok() && cut && synced_) s = file_->Sync();
  Status close = file_->Close();
  return FirstError(s, close);
}

}  // namespace shale
