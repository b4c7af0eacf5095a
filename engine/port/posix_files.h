// The POSIX file objects behind PosixFileSystem (see posix_env.h), and the
// errno -> Status mapping the whole backend shares.
//
// Each object owns one file descriptor (O_CLOEXEC) and closes it in its
// destructor. PosixRandomAccessFile::Read is pread-based and safe to call
// concurrently; the other objects are used by one thread at a time.
// PosixWritableFile tracks its own logical size and writes with pwrite, so
// Append and PositionedAppend never depend on the kernel's file offset.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "shale/env.h"

namespace shale {

// ENOENT -> PathNotFound, ENOSPC -> NoSpace, else IOError; message
// "context: strerror(err)".
Status PosixError(const std::string& context, int err);

// The alignment direct I/O on fd needs: st_blksize clamped to [512, 4096].
size_t DirectIoAlignment(int fd);

// ftruncate(fd, size), retried on EINTR; errors name path.
Status TruncateFd(const std::string& path, int fd, uint64_t size);
// sync_fd(fd) (fdatasync or fsync), retried on EINTR; errors name path.
Status SyncFd(const std::string& path, int fd, int (*sync_fd)(int));

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override;
  Status Read(size_t n, Slice* result, char* scratch) override;
  Status Skip(uint64_t n) override;

 private:
  const std::string path_;
  const int fd_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  // alignment: what direct reads need (1 when !direct).
  PosixRandomAccessFile(std::string path, int fd, bool direct, size_t alignment);
  ~PosixRandomAccessFile() override;
  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override;
  size_t GetRequiredBufferAlignment() const override { return alignment_; }
  bool use_direct_io() const override { return direct_; }

 private:
  const std::string path_;
  const int fd_;
  const bool direct_;
  const size_t alignment_;
};

// Counts the files mapped at once, so a process never holds more than
// max_files maps (the rest read with pread). Thread safe.
class MmapLimiter {
 public:
  explicit MmapLimiter(int max_files) : available_(max_files) {}
  // Takes a slot; false when none is left.
  [[nodiscard]] bool Acquire();
  void Release() { available_.fetch_add(1, std::memory_order_relaxed); }
  int available() const { return available_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int> available_;
};

// A random-access file served from a read-only map of its first size_bytes
// bytes (its size at open: tables never grow once written). Read copies
// nothing and ignores scratch. Holds one limiter slot until destroyed.
// Thread safety: Read may be called concurrently.
class PosixMmapReadableFile final : public RandomAccessFile {
 public:
  // REQUIRES: base maps size_bytes bytes of the file (or size_bytes == 0
  // and base == nullptr); a slot of limiter was acquired for it.
  PosixMmapReadableFile(std::string path, const char* base, uint64_t size_bytes,
                        std::shared_ptr<MmapLimiter> limiter);
  ~PosixMmapReadableFile() override;
  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override;
  bool ReadsAreMapped() const override { return true; }

 private:
  const std::string path_;
  const char* const base_;
  const uint64_t size_bytes_;
  const std::shared_ptr<MmapLimiter> limiter_;
};

// Maps fd (of size_bytes, opened read-only) if limiter has a slot and the
// map succeeds; else returns nullptr (the caller reads with pread). Never
// takes ownership of fd.
std::unique_ptr<RandomAccessFile> MaybeMapFile(const std::string& path, int fd, uint64_t size_bytes,
                                               const std::shared_ptr<MmapLimiter>& limiter);

class PosixWritableFile final : public WritableFile {
 public:
  // size_bytes: the file's current size (0 for a new file).
  PosixWritableFile(std::string path, int fd, bool direct, uint64_t size_bytes);
  ~PosixWritableFile() override;
  Status Append(const Slice& data) override;
  Status PositionedAppend(const Slice& data, uint64_t offset) override;
  Status Truncate(uint64_t size) override;
  Status Flush() override;
  Status Sync() override;
  Status Fsync() override;
  Status Allocate(uint64_t offset, uint64_t len) override;
  Status Close() override;
  uint64_t GetFileSize() const override { return size_bytes_; }
  size_t GetRequiredBufferAlignment() const override { return alignment_; }
  bool use_direct_io() const override { return direct_; }

 private:
  Status WriteAt(const Slice& data, uint64_t offset);
  Status ClosedError() const;

  const std::string path_;
  int fd_;  // -1 once closed
  const bool direct_;
  const size_t alignment_;
  uint64_t size_bytes_;
};

}  // namespace shale
