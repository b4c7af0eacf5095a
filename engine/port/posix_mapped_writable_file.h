// PosixMappedWritableFile: a WritableFile that appends by copying into a
// shared, writable memory map of the file (FileOptions::use_mmap_writes).
//
// An append is a memcpy into the page cache, with no system call: the
// bytes are the file system's from that moment, so they survive the
// process's death (SIGKILL, a crash) exactly as a completed write(2) does.
// Like any write they are volatile until Sync, which msyncs the map and
// fdatasyncs the file.
//
// The file is mapped one window of kWindowBytes at a time. Before a window
// is mapped, its space is allocated (fallocate, which extends the file), so
// a full disk is a NoSpace status, never a SIGBUS (PosixFileSystem maps only
// files whose file system allocates; others get PosixWritableFile). Once
// synced, Close syncs its cut too. While the file is open its
// size on disk therefore runs ahead of what was appended, by up to one
// window of zeros; Close (and the destructor) cut it back to the appended
// size. A process that dies with the file open leaves that zero-filled
// tail, which the log reader reads as a torn tail.
//
// Not for direct I/O. PositionedAppend is NotSupported (only direct writers
// use it).
//
// Ownership: owns fd and the map. Thread safety: one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "shale/env.h"

namespace shale {

class PosixMappedWritableFile final : public WritableFile {
 public:
  // Bytes mapped at a time: a multiple of every page size the kernel uses
  // for file maps.
  static constexpr uint64_t kWindowBytes = 1 << 20;

  // fd: open for reading and writing (a shared writable map needs both).
  // size_bytes: the file's current size; appends start there.
  PosixMappedWritableFile(std::string path, int fd, uint64_t size_bytes);
  ~PosixMappedWritableFile() override;
  PosixMappedWritableFile(const PosixMappedWritableFile&) = delete;
  PosixMappedWritableFile& operator=(const PosixMappedWritableFile&) = delete;

  // Allocates [offset, offset + len) of fd with fallocate (extending the
  // file). False, with *err set, where that fails: a file system without
  // fallocate (EOPNOTSUPP) must not be mapped, for a sparse map would
  // SIGBUS instead of failing when the disk fills.
  static bool Reserve(int fd, uint64_t offset, uint64_t len, int* err);

  Status Append(const Slice& data) override;
  Status PositionedAppend(const Slice& data, uint64_t offset) override;
  Status Truncate(uint64_t size) override;
  Status Flush() override;
  Status Sync() override;
  Status Fsync() override;
  Status Allocate(uint64_t offset, uint64_t len) override;
  Status Close() override;
  uint64_t GetFileSize() const override { return size_bytes_; }

 private:
  // Unmaps the current window, then allocates and maps the one holding
  // size_bytes_.
  [[nodiscard]] Status MapWindowAtEnd();
  // msyncs the bytes appended to the current window since its last sync.
  [[nodiscard]] Status SyncWindow();
  // SyncWindow, then sync_fd (fdatasync or fsync) on the descriptor.
  [[nodiscard]] Status SyncWith(int (*sync_fd)(int));
  void Unmap();
  // Unmaps, cuts the file to size_bytes_ and closes fd.
  [[nodiscard]] Status CloseFile();
  Status ClosedError() const;

  const std::string path_;
  int fd_;                      // -1 once closed
  char* window_ = nullptr;      // the map, or nullptr
  uint64_t window_offset_ = 0;  // file offset of window_[0]
  uint64_t window_synced_ = 0;  // file offset up to which the window is msynced
  uint64_t size_bytes_;         // bytes appended (the logical size)
  bool synced_ = false;         // a sync made the reserved size durable
};

}  // namespace shale
