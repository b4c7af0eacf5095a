// RocksDB's file handles over Shale's: see rocksdb_files.h.
#include "hosted/rocksdb/rocksdb_files.h"

#include "hosted/fd_offset.h"

#include <utility>

namespace shale::hosted {

namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

class SequentialFile final : public rocksdb::FSSequentialFile {
 public:
  SequentialFile(std::string path, std::unique_ptr<shale::SequentialFile> file)
      : path_(std::move(path)), file_(std::move(file)) {}
  IOStatus Read(size_t n, const IOOptions&, rocksdb::Slice* result, char* scratch,
                IODebugContext*) override {
    shale::Slice got;
    const shale::Status s = file_->Read(n, &got, scratch);
    *result = rocksdb::Slice(got.data(), got.size());
    return ToRocksDbIOStatus(s, path_);
  }
  IOStatus Skip(uint64_t n) override { return ToRocksDbIOStatus(file_->Skip(n), path_); }

 private:
  const std::string path_;
  std::unique_ptr<shale::SequentialFile> file_;
};

class RandomAccessFile final : public rocksdb::FSRandomAccessFile {
 public:
  RandomAccessFile(std::string path, std::unique_ptr<shale::RandomAccessFile> file)
      : path_(std::move(path)), file_(std::move(file)) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, rocksdb::Slice* result, char* scratch,
                IODebugContext*) const override {
    shale::Slice got;
    const shale::Status s = file_->Read(offset, n, &got, scratch);
    *result = rocksdb::Slice(got.data(), got.size());
    return ToRocksDbIOStatus(s, path_);
  }
  bool use_direct_io() const override { return file_->use_direct_io(); }
  size_t GetRequiredBufferAlignment() const override { return file_->GetRequiredBufferAlignment(); }

 private:
  const std::string path_;
  std::unique_ptr<shale::RandomAccessFile> file_;
};

class WritableFile final : public rocksdb::FSWritableFile {
 public:
  WritableFile(std::string path, std::unique_ptr<shale::WritableFile> file,
               const rocksdb::FileOptions& options, bool reused, WriteErrors* errors,
               bool sync_skipped)
      : rocksdb::FSWritableFile(options),
        errors_(errors),
        sync_skipped_(sync_skipped),
        path_(std::move(path)),
        file_(std::move(file)),
        allow_fallocate_(options.allow_fallocate),
        reused_(reused),
        size_(reused ? 0 : file_->GetFileSize()) {}

  IOStatus Append(const rocksdb::Slice& data, const IOOptions&, IODebugContext*) override {
    // The handle's own offset, as a POSIX fd's (fd_offset.h).
    const shale::Status s =
        AppendAtFdOffset(file_.get(), shale::Slice(data.data(), data.size()), reused_, &size_);
    return Noted(s, path_);
  }
  IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const IOOptions&,
                            IODebugContext*) override {
    const shale::Status s = file_->PositionedAppend(shale::Slice(data.data(), data.size()), offset);
    if (s.ok()) size_ = std::max(size_, offset + data.size());
    return Noted(s, path_);
  }
  IOStatus Truncate(uint64_t size, const IOOptions&, IODebugContext*) override {
    const shale::Status s = file_->Truncate(size);
    if (s.ok()) size_ = size;
    return Noted(s, path_);
  }
  // As POSIX: a file that was prepared for preallocation is cut back to
  // what was written, and a failure to cut it is ignored.
  IOStatus Close(const IOOptions&, IODebugContext*) override {
    if (allocated_) (void)file_->Truncate(size_);
    return Noted(file_->Close(), path_);
  }
  IOStatus Flush(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
  IOStatus Sync(const IOOptions&, IODebugContext*) override {
    if (sync_skipped_) return IOStatus::OK();  // planted: acknowledged unsynced
    return Noted(file_->Sync(), path_);
  }
  IOStatus Fsync(const IOOptions&, IODebugContext*) override {
    if (sync_skipped_) return IOStatus::OK();  // planted: acknowledged unsynced
    return Noted(file_->Fsync(), path_);
  }
  IOStatus RangeSync(uint64_t, uint64_t, const IOOptions&, IODebugContext*) override {
    return IOStatus::OK();  // writeback starts; nothing becomes durable
  }
  IOStatus Allocate(uint64_t offset, uint64_t len, const IOOptions&, IODebugContext*) override {
    allocated_ = true;
    if (!allow_fallocate_) return IOStatus::OK();
    return Noted(file_->Allocate(offset, len), path_);
  }
  bool IsSyncThreadSafe() const override { return true; }
  bool use_direct_io() const override { return file_->use_direct_io(); }
  size_t GetRequiredBufferAlignment() const override { return file_->GetRequiredBufferAlignment(); }
  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override { return size_; }

 private:
  IOStatus Noted(const shale::Status& s, const std::string& path) {
    IOStatus status = ToRocksDbIOStatus(s, path);
    if (!status.ok() && errors_->first.empty()) errors_->first = status.ToString();
    return status;
  }

  WriteErrors* const errors_;
  const bool sync_skipped_;
  const std::string path_;
  std::unique_ptr<shale::WritableFile> file_;
  const bool allow_fallocate_;
  const bool reused_;
  uint64_t size_;  // bytes written from the start (a reused file's old tail excluded)
  bool allocated_ = false;
};

class Directory final : public rocksdb::FSDirectory {
 public:
  Directory(shale::FileSystem* fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  IOStatus Fsync(const IOOptions&, IODebugContext*) override {
    return ToRocksDbIOStatus(fs_->SyncDir(path_), path_);
  }
  IOStatus Close(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }

 private:
  shale::FileSystem* const fs_;
  const std::string path_;
};

}  // namespace

IOStatus ToRocksDbIOStatus(const shale::Status& status, const std::string& path) {
  if (status.ok()) return IOStatus::OK();
  const std::string message = status.ToString();
  if (status.IsNotFound() || status.IsPathNotFound()) return IOStatus::PathNotFound(path, message);
  if (status.IsNoSpace()) return IOStatus::NoSpace(path, message);
  return IOStatus::IOError(path, message);
}

std::unique_ptr<rocksdb::FSSequentialFile> NewRocksDbSequentialFile(
    std::string path, std::unique_ptr<shale::SequentialFile> file) {
  return std::make_unique<SequentialFile>(std::move(path), std::move(file));
}

std::unique_ptr<rocksdb::FSRandomAccessFile> NewRocksDbRandomAccessFile(
    std::string path, std::unique_ptr<shale::RandomAccessFile> file) {
  return std::make_unique<RandomAccessFile>(std::move(path), std::move(file));
}

std::unique_ptr<rocksdb::FSWritableFile> NewRocksDbWritableFile(
    std::string path, std::unique_ptr<shale::WritableFile> file,
    const rocksdb::FileOptions& options, bool reused, WriteErrors* errors, bool sync_skipped) {
  return std::make_unique<WritableFile>(std::move(path), std::move(file), options, reused, errors,
                                        sync_skipped);
}

std::unique_ptr<rocksdb::FSDirectory> NewRocksDbDirectory(shale::FileSystem* fs, std::string path) {
  return std::make_unique<Directory>(fs, std::move(path));
}

}  // namespace shale::hosted
