#include "port/posix_files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace shale {

Status PosixError(const std::string& context, int err) {
  const char* why = std::strerror(err);
  if (err == ENOENT) return Status::PathNotFound(context, why);
  if (err == ENOSPC) return Status::NoSpace(context, why);
  return Status::IOError(context, why);
}

size_t DirectIoAlignment(int fd) {
  constexpr size_t kMin = 512;
  constexpr size_t kMax = 4096;
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_blksize <= 0) return kMax;
  const size_t blk = static_cast<size_t>(st.st_blksize);
  if (blk < kMin) return kMin;
  if (blk > kMax) return kMax;
  return blk;
}

Status TruncateFd(const std::string& path, int fd, uint64_t size) {
  while (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    if (errno != EINTR) return PosixError(path, errno);
  }
  return Status::OK();
}

Status SyncFd(const std::string& path, int fd, int (*sync_fd)(int)) {
  while (sync_fd(fd) != 0) {
    if (errno != EINTR) return PosixError(path, errno);
  }
  return Status::OK();
}

// Closes fd, retrying nothing: after EINTR the descriptor is already gone on
// Linux, so a retry could close someone else's.
static int CloseFd(int fd) { return ::close(fd); }

// --- PosixSequentialFile ----------------------------------------------------

PosixSequentialFile::~PosixSequentialFile() { CloseFd(fd_); }

Status PosixSequentialFile::Read(size_t n, Slice* result, char* scratch) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd_, scratch + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      *result = Slice(scratch, 0);
      return PosixError(path_, errno);
    }
    if (r == 0) break;  // end of file
    got += static_cast<size_t>(r);
  }
  *result = Slice(scratch, got);
  return Status::OK();
}

Status PosixSequentialFile::Skip(uint64_t n) {
  const off_t here = ::lseek(fd_, 0, SEEK_CUR);
  struct stat st;
  if (here < 0 || ::fstat(fd_, &st) != 0) return PosixError(path_, errno);
  const uint64_t end = static_cast<uint64_t>(st.st_size);
  uint64_t target = static_cast<uint64_t>(here) + n;
  if (target > end || target < static_cast<uint64_t>(here)) target = end;
  if (::lseek(fd_, static_cast<off_t>(target), SEEK_SET) < 0) return PosixError(path_, errno);
  return Status::OK();
}

// --- PosixRandomAccessFile --------------------------------------------------

PosixRandomAccessFile::PosixRandomAccessFile(std::string path, int fd, bool direct,
                                             size_t alignment)
    : path_(std::move(path)), fd_(fd), direct_(direct), alignment_(alignment) {}

PosixRandomAccessFile::~PosixRandomAccessFile() { CloseFd(fd_); }

Status PosixRandomAccessFile::Read(uint64_t offset, size_t n, Slice* result, char* scratch) const {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, scratch + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      *result = Slice(scratch, 0);
      return PosixError(path_, errno);
    }
    if (r == 0) break;  // end of file
    got += static_cast<size_t>(r);
  }
  *result = Slice(scratch, got);
  return Status::OK();
}

// --- PosixMmapReadableFile -------------------------------------------------

bool MmapLimiter::Acquire() {
  int left = available_.load(std::memory_order_relaxed);
  while (left > 0) {
    if (available_.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) return true;
  }
  return false;
}

PosixMmapReadableFile::PosixMmapReadableFile(std::string path, const char* base,
                                             uint64_t size_bytes,
                                             std::shared_ptr<MmapLimiter> limiter)
    : path_(std::move(path)), base_(base), size_bytes_(size_bytes), limiter_(std::move(limiter)) {}

PosixMmapReadableFile::~PosixMmapReadableFile() {
  if (base_ != nullptr) ::munmap(const_cast<char*>(base_), static_cast<size_t>(size_bytes_));
  limiter_->Release();
}

Status PosixMmapReadableFile::Read(uint64_t offset, size_t n, Slice* result,
                                   char* /*scratch*/) const {
  if (offset >= size_bytes_) {
    *result = Slice(base_, 0);
    return Status::OK();
  }
  const uint64_t left = size_bytes_ - offset;
  *result = Slice(base_ + offset, n < left ? n : static_cast<size_t>(left));
  return Status::OK();
}

std::unique_ptr<RandomAccessFile> MaybeMapFile(const std::string& path, int fd, uint64_t size_bytes,
                                               const std::shared_ptr<MmapLimiter>& limiter) {
  if (size_bytes > SIZE_MAX || !limiter->Acquire()) return nullptr;
  const char* base = nullptr;
  if (size_bytes > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(size_bytes), PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      limiter->Release();
      return nullptr;  // e.g. ENOMEM or a file system without mmap: pread
    }
    base = static_cast<const char*>(p);
  }
  return std::make_unique<PosixMmapReadableFile>(path, base, size_bytes, limiter);
}

// --- PosixWritableFile ------------------------------------------------------

PosixWritableFile::PosixWritableFile(std::string path, int fd, bool direct, uint64_t size_bytes)
    : path_(std::move(path)),
      fd_(fd),
      direct_(direct),
      alignment_(direct ? DirectIoAlignment(fd) : 1),
      size_bytes_(size_bytes) {}

PosixWritableFile::~PosixWritableFile() {
  if (fd_ >= 0) CloseFd(fd_);
}

Status PosixWritableFile::ClosedError() const {
  return Status::IOError(path_, "file already closed");
}

Status PosixWritableFile::WriteAt(const Slice& data, uint64_t offset) {
  if (fd_ < 0) return ClosedError();
  const char* src = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t w = ::pwrite(fd_, src, left, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return PosixError(path_, errno);
    }
    src += w;
    left -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  if (offset > size_bytes_) size_bytes_ = offset;
  return Status::OK();
}

Status PosixWritableFile::Append(const Slice& data) { return WriteAt(data, size_bytes_); }

Status PosixWritableFile::PositionedAppend(const Slice& data, uint64_t offset) {
  return WriteAt(data, offset);
}

Status PosixWritableFile::Truncate(uint64_t size) {
  if (fd_ < 0) return ClosedError();
  Status s = TruncateFd(path_, fd_, size);
  if (s.ok()) size_bytes_ = size;
  return s;
}

Status PosixWritableFile::Flush() { return fd_ < 0 ? ClosedError() : Status::OK(); }

Status PosixWritableFile::Sync() {
  return fd_ < 0 ? ClosedError() : SyncFd(path_, fd_, ::fdatasync);
}

Status PosixWritableFile::Fsync() { return fd_ < 0 ? ClosedError() : SyncFd(path_, fd_, ::fsync); }

Status PosixWritableFile::Allocate(uint64_t offset, uint64_t len) {
  if (fd_ < 0) return ClosedError();
  if (len == 0) return Status::OK();
  while (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                     static_cast<off_t>(len)) != 0) {
    if (errno == EINTR) continue;
    // Preallocation is an optimisation: a file system without it is fine.
    if (errno == EOPNOTSUPP || errno == ENOSYS) return Status::OK();
    return PosixError(path_, errno);
  }
  return Status::OK();
}

Status PosixWritableFile::Close() {
  if (fd_ < 0) return Status::OK();  // idempotent: never closes twice
  const int fd = fd_;
  fd_ = -1;
  if (CloseFd(fd) != 0 && errno != EINTR) return PosixError(path_, errno);
  return Status::OK();
}

}  // namespace shale
