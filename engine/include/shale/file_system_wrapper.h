// FileSystemWrapper: a FileSystem that forwards every call to a target, for
// decorators that change or observe a few calls (counting them, charging
// simulated time for them) and pass the rest through unchanged.
//
// Thread safety: as the target's. Ownership: borrows the target, which must
// outlive the wrapper and every handle it returned.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shale/env.h"

namespace shale {

class FileSystemWrapper : public FileSystem {
 public:
  explicit FileSystemWrapper(FileSystem* target) : target_(target) {}

  FileSystem* target() const { return target_; }

  Status NewSequentialFile(const std::string& path, const FileOptions& opts,
                           std::unique_ptr<SequentialFile>* result) override {
    return target_->NewSequentialFile(path, opts, result);
  }
  Status NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                             std::unique_ptr<RandomAccessFile>* result) override {
    return target_->NewRandomAccessFile(path, opts, result);
  }
  Status NewWritableFile(const std::string& path, const FileOptions& opts,
                         std::unique_ptr<WritableFile>* result) override {
    return target_->NewWritableFile(path, opts, result);
  }
  Status ReopenWritableFile(const std::string& path, const FileOptions& opts,
                            std::unique_ptr<WritableFile>* result) override {
    return target_->ReopenWritableFile(path, opts, result);
  }
  Status FileExists(const std::string& path) override { return target_->FileExists(path); }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    return target_->GetChildren(dir, names);
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    return target_->GetFileSize(path, size);
  }
  Status DeleteFile(const std::string& path) override { return target_->DeleteFile(path); }
  Status RenameFile(const std::string& src, const std::string& dst) override {
    return target_->RenameFile(src, dst);
  }
  Status CreateDirIfMissing(const std::string& dir) override {
    return target_->CreateDirIfMissing(dir);
  }
  Status DeleteDir(const std::string& dir) override { return target_->DeleteDir(dir); }
  Status SyncDir(const std::string& dir) override { return target_->SyncDir(dir); }
  bool SyncDirPersistsNames() const override { return target_->SyncDirPersistsNames(); }
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override {
    return target_->LockFile(path, lock);
  }
  Status UnlockFile(std::unique_ptr<FileLock> lock) override {
    return target_->UnlockFile(std::move(lock));
  }

 private:
  FileSystem* const target_;
};

// A RandomAccessFile that forwards to the one it owns.
class RandomAccessFileWrapper : public RandomAccessFile {
 public:
  explicit RandomAccessFileWrapper(std::unique_ptr<RandomAccessFile> target)
      : target_(std::move(target)) {}
  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    return target_->Read(offset, n, result, scratch);
  }
  size_t GetRequiredBufferAlignment() const override {
    return target_->GetRequiredBufferAlignment();
  }
  bool use_direct_io() const override { return target_->use_direct_io(); }
  bool ReadsAreMapped() const override { return target_->ReadsAreMapped(); }

 private:
  const std::unique_ptr<RandomAccessFile> target_;
};

}  // namespace shale
