// The real backend: Env::Default()'s FileSystem, Clock and Runtime, built on
// POSIX syscalls and the C++ standard thread library. This directory is the
// only engine code allowed to touch the OS (ci/check_seam.sh enforces it).
//
// PosixFileSystem keeps env.h's durability contract by doing exactly what it
// says with real syscalls: Sync is fdatasync, Fsync is fsync, SyncDir is an
// fsync of the directory; nothing is cached in user space, so Flush is free.
// Errors map errno to Status: ENOENT -> PathNotFound, ENOSPC -> NoSpace,
// anything else -> IOError "path: strerror". EINTR is retried; short
// reads/writes are looped.
//
// LockFile takes an fcntl(F_SETLK) write lock on the whole file. fcntl locks
// do not exclude other handles of the same process, so a process-wide set of
// locked paths (keyed by the path string as given) rejects a second in-process
// LockFile of the same path with IOError "lock held". Caveat of fcntl: closing
// ANY descriptor of the LOCK file in this process drops the lock, so nothing
// else should open that file.
//
// PosixClock is CLOCK_MONOTONIC. PosixRuntime is std::mutex /
// std::condition_variable / std::thread; YieldPoint and FaultPoint keep the
// base class's free defaults (no yield, never fire).
//
// Thread safety: every method is safe to call concurrently. Ownership:
// Env::Default() builds one of each, never destroyed; tests may build their
// own (the Runtime borrows its Clock, which must outlive it).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "port/posix_files.h"
#include "shale/env.h"

namespace shale {

class PosixFileSystem final : public FileSystem {
 public:
  Status NewSequentialFile(const std::string& path, const FileOptions& opts,
                           std::unique_ptr<SequentialFile>* result) override;
  Status NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                             std::unique_ptr<RandomAccessFile>* result) override;
  Status NewWritableFile(const std::string& path, const FileOptions& opts,
                         std::unique_ptr<WritableFile>* result) override;
  Status ReopenWritableFile(const std::string& path, const FileOptions& opts,
                            std::unique_ptr<WritableFile>* result) override;
  Status FileExists(const std::string& path) override;
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override;
  Status GetFileSize(const std::string& path, uint64_t* size) override;
  Status DeleteFile(const std::string& path) override;
  Status RenameFile(const std::string& src, const std::string& dst) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;
  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status UnlockFile(std::unique_ptr<FileLock> lock) override;

  // Files mapped at once for FileOptions::use_mmap_reads, at most; past it,
  // random-access files read with pread. LevelDB's limit on 64-bit hosts.
  static constexpr int kMaxMappedFiles = 1000;
  // Map slots left (for tests).
  int mapped_files_available() const { return mmap_limiter_->available(); }

  // How many times a direct random-access open asked the file system for
  // its alignment (DirectAlignmentFor's fstat): once per directory, for
  // tests to pin. Writable files are not counted here.
  uint64_t direct_alignment_probes() const {
    std::lock_guard<std::mutex> lock(alignment_mu_);
    return direct_alignment_probes_;
  }

 private:
  // Directories remembered, at most (past it, each direct open asks).
  static constexpr size_t kMaxAlignmentDirs = 1024;
  // The direct I/O alignment for files in path's directory: asked of the
  // file system (one fstat of fd) once per directory, then remembered, so
  // opening a table reader costs no per-open discovery.
  size_t DirectAlignmentFor(const std::string& path, int fd);
  // Maps the file open on fd into *result and closes fd, or, with no map
  // slot left (or no map possible), leaves *result empty and fd open. If
  // fd cannot be stat'ed, closes it and returns the error.
  Status MapReadOnly(const std::string& path, int fd, std::unique_ptr<RandomAccessFile>* result);

  const std::shared_ptr<MmapLimiter> mmap_limiter_ = std::make_shared<MmapLimiter>(kMaxMappedFiles);
  mutable std::mutex alignment_mu_;
  std::map<std::string, size_t> alignment_by_dir_;  // guarded by alignment_mu_
  uint64_t direct_alignment_probes_ = 0;            // guarded by alignment_mu_
};

class PosixClock final : public Clock {
 public:
  uint64_t NowNanos() override;
};

class PosixRuntime final : public Runtime {
 public:
  // REQUIRES: clock outlives this runtime (TimedWait deadlines are on it).
  explicit PosixRuntime(Clock* clock) : clock_(clock) {}
  std::unique_ptr<Mutex> NewMutex() override;
  std::unique_ptr<CondVar> NewCondVar(Mutex* mu) override;
  std::unique_ptr<Thread> StartThread(const std::string& name, std::function<void()> fn) override;
  void SleepForMicroseconds(uint64_t micros) override;
  bool CanSpin() const override { return true; }
  bool SpinWhileEqual(const std::atomic<uint64_t>& word, uint64_t value,
                      uint64_t max_micros) override;
  void AdviseHugePages(char* memory, size_t bytes) override;

 private:
  Clock* const clock_;
};

}  // namespace shale
