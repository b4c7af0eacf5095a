// In-memory file test doubles over std::string, shared by the log and table
// tests: MemWritableFile appends into a string the test owns (counts
// Flush/Sync, can inject append failures, rejects appends after Close);
// MemRandomAccessFile and MemSequentialFile read their own copy of a string,
// the former optionally counting reads, the latter with optional short reads
// and an injected read error. Ownership: MemWritableFile's *contents must
// outlive it. Test-only; not thread safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "shale/env.h"

namespace shale_test {

class MemWritableFile : public shale::WritableFile {
 public:
  using Slice = shale::Slice;
  using Status = shale::Status;

  explicit MemWritableFile(std::string* contents) : contents_(contents) {}

  Status Append(const Slice& data) override {
    if (closed_) return Status::IOError("append after close");
    if (fail_appends_) return Status::IOError("injected append failure");
    contents_->append(data.data(), data.size());
    return Status::OK();
  }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    if (contents_->size() < offset + data.size()) contents_->resize(offset + data.size());
    std::memcpy(contents_->data() + offset, data.data(), data.size());
    return Status::OK();
  }
  Status Truncate(uint64_t size) override {
    contents_->resize(size);
    return Status::OK();
  }
  Status Flush() override {
    flushes_++;
    return Status::OK();
  }
  Status Sync() override {
    syncs_++;
    if (fail_syncs_) return Status::IOError("injected sync failure");
    return Status::OK();
  }
  Status Fsync() override { return Sync(); }
  Status Allocate(uint64_t, uint64_t) override { return Status::OK(); }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }
  uint64_t GetFileSize() const override { return contents_->size(); }

  int flushes() const { return flushes_; }
  int syncs() const { return syncs_; }
  void set_fail_appends(bool fail) { fail_appends_ = fail; }
  void set_fail_syncs(bool fail) { fail_syncs_ = fail; }

 private:
  std::string* contents_;
  int flushes_ = 0;
  int syncs_ = 0;
  bool closed_ = false;
  bool fail_appends_ = false;
  bool fail_syncs_ = false;
};

class MemRandomAccessFile : public shale::RandomAccessFile {
 public:
  using Slice = shale::Slice;
  using Status = shale::Status;

  // reads, if given, is incremented on every Read.
  explicit MemRandomAccessFile(std::string contents, int* reads = nullptr)
      : contents_(std::move(contents)), reads_(reads) {}

  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    if (reads_ != nullptr) (*reads_)++;
    if (offset > contents_.size()) {
      *result = Slice();
      return Status::OK();
    }
    n = std::min<size_t>(n, contents_.size() - offset);
    std::memcpy(scratch, contents_.data() + offset, n);
    *result = Slice(scratch, n);
    return Status::OK();
  }

 private:
  std::string contents_;
  int* reads_;
};

class MemSequentialFile : public shale::SequentialFile {
 public:
  using Slice = shale::Slice;
  using Status = shale::Status;

  // max_read_bytes > 0 makes every Read return at most that many bytes (short
  // reads); fail_at_offset makes a Read that reaches that offset fail.
  explicit MemSequentialFile(std::string contents, size_t max_read_bytes = 0,
                             uint64_t fail_at_offset = UINT64_MAX)
      : contents_(std::move(contents)),
        max_read_bytes_(max_read_bytes),
        fail_at_offset_(fail_at_offset) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    if (max_read_bytes_ > 0) n = std::min(n, max_read_bytes_);
    const size_t avail = contents_.size() - pos_;
    n = std::min(n, avail);
    if (pos_ + n > fail_at_offset_ || (n == 0 && pos_ >= fail_at_offset_)) {
      return Status::IOError("injected read failure");
    }
    std::memcpy(scratch, contents_.data() + pos_, n);
    pos_ += n;
    *result = Slice(scratch, n);
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    pos_ += static_cast<size_t>(std::min<uint64_t>(n, contents_.size() - pos_));
    return Status::OK();
  }

 private:
  std::string contents_;
  size_t pos_ = 0;
  size_t max_read_bytes_;
  uint64_t fail_at_offset_;
};

}  // namespace shale_test
