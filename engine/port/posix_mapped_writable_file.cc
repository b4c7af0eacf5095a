#include "port/posix_mapped_writable_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "port/posix_files.h"

namespace shale {

namespace {

uint64_t PageBytes() {
  const long page = ::sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<uint64_t>(page) : 4096;
}

}  // namespace

PosixMappedWritableFile::PosixMappedWritableFile(std::string path, int fd, uint64_t size_bytes)
    : path_(std::move(path)), fd_(fd), size_bytes_(size_bytes) {}

PosixMappedWritableFile::~PosixMappedWritableFile() {
  // A file dropped without Close still ends at what was appended, so a
  // clean shutdown never leaves the zero tail of a crash.
  if (fd_ >= 0) (void)CloseFile();
}

Status PosixMappedWritableFile::ClosedError() const {
  return Status::IOError(path_, "file already closed");
}

void PosixMappedWritableFile::Unmap() {
  if (window_ == nullptr) return;
  ::munmap(window_, kWindowBytes);
  window_ = nullptr;
}

bool PosixMappedWritableFile::Reserve(int fd, uint64_t offset, uint64_t len, int* err) {
  while (::fallocate(fd, 0, static_cast<off_t>(offset), static_cast<off_t>(len)) != 0) {
    if (errno == EINTR) continue;
    *err = errno;
    return false;
  }
  return true;
}

Status PosixMappedWritableFile::MapWindowAtEnd() {
  Unmap();
  const uint64_t page = PageBytes();
  const uint64_t offset = size_bytes_ / page * page;
  int err = 0;
  if (!Reserve(fd_, offset, kWindowBytes, &err)) return PosixError(path_, err);
  void* map = ::mmap(nullptr, kWindowBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_,
                     static_cast<off_t>(offset));
  if (map == MAP_FAILED) return PosixError(path_ + ": mmap", errno);
  window_ = static_cast<char*>(map);
  window_offset_ = offset;
  window_synced_ = size_bytes_;
  return Status::OK();
}

Status PosixMappedWritableFile::Append(const Slice& data) {
  if (fd_ < 0) return ClosedError();
  const char* src = data.data();
  size_t left = data.size();
  while (left > 0) {
    if (window_ == nullptr || size_bytes_ >= window_offset_ + kWindowBytes) {
      Status s = MapWindowAtEnd();
      if (!s.ok()) return s;
    }
    const uint64_t room = window_offset_ + kWindowBytes - size_bytes_;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(room, left));
    std::memcpy(window_ + (size_bytes_ - window_offset_), src, n);
    src += n;
    left -= n;
    size_bytes_ += n;
  }
  return Status::OK();
}

Status PosixMappedWritableFile::PositionedAppend(const Slice& /*data*/, uint64_t /*offset*/) {
  return Status::NotSupported(path_, "positioned writes to a mapped file");
}

Status PosixMappedWritableFile::Truncate(uint64_t size) {
  if (fd_ < 0) return ClosedError();
  Status s = SyncWindow();
  Unmap();
  if (s.ok()) s = TruncateFd(path_, fd_, size);
  if (s.ok()) size_bytes_ = size;
  return s;
}

// The bytes are in the page cache as soon as they are copied.
Status PosixMappedWritableFile::Flush() { return fd_ < 0 ? ClosedError() : Status::OK(); }

Status PosixMappedWritableFile::SyncWindow() {
  if (window_ == nullptr || window_synced_ >= size_bytes_) return Status::OK();
  const uint64_t page = PageBytes();
  const uint64_t from = std::max(window_synced_, window_offset_) / page * page;
  const uint64_t to = std::min(size_bytes_, window_offset_ + kWindowBytes);
  if (::msync(window_ + (from - window_offset_), to - from, MS_SYNC) != 0)
    return PosixError(path_ + ": msync", errno);
  window_synced_ = size_bytes_;
  return Status::OK();
}

Status PosixMappedWritableFile::SyncWith(int (*sync_fd)(int)) {
  if (fd_ < 0) return ClosedError();
  // Earlier windows were unmapped with their pages dirty in the page
  // cache; syncing the descriptor writes those, and the file's size, too.
  Status s = SyncWindow();
  if (s.ok()) s = SyncFd(path_, fd_, sync_fd);
  if (s.ok()) synced_ = true;
  return s;
}

Status PosixMappedWritableFile::Sync() { return SyncWith(::fdatasync); }

Status PosixMappedWritableFile::Fsync() { return SyncWith(::fsync); }

// Space is reserved a window at a time as appends reach it.
Status PosixMappedWritableFile::Allocate(uint64_t /*offset*/, uint64_t /*len*/) {
  return fd_ < 0 ? ClosedError() : Status::OK();
}

Status PosixMappedWritableFile::CloseFile() {
  Unmap();
  Status s = TruncateFd(path_, fd_, size_bytes_);
  // A sync made the reserved size durable; make the cut durable too, or a
  // power loss could bring back zeros after records that were synced.
  if (s.ok() && synced_) s = SyncFd(path_, fd_, ::fdatasync);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR && s.ok()) s = PosixError(path_, errno);
  return s;
}

Status PosixMappedWritableFile::Close() {
  if (fd_ < 0) return Status::OK();  // idempotent: never closes twice
  return CloseFile();
}

}  // namespace shale
