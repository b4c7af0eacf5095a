// PosixFileSystem: the FileSystem calls of posix_env.h over real syscalls.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>

#include "port/posix_env.h"
#include "port/posix_files.h"
#include "port/posix_mapped_writable_file.h"

namespace shale {
namespace {

// open(2) with EINTR retried. Returns the fd, or -1 with errno set.
int OpenRetry(const std::string& path, int flags, mode_t mode = 0644) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// Opens path with flags (plus O_DIRECT when direct); maps failure to Status.
Status OpenFile(const std::string& path, int flags, bool direct, int* fd) {
  *fd = OpenRetry(path, direct ? flags | O_DIRECT : flags);
  if (*fd >= 0) return Status::OK();
  if (direct && errno == EINVAL) {
    return Status::NotSupported(path, "O_DIRECT not supported by this file system (tmpfs?)");
  }
  return PosixError(path, errno);
}

// The paths this process holds a LockFile on (fcntl locks cannot tell).
std::mutex& LockedPathsMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
std::set<std::string>& LockedPaths() {
  static auto* paths = new std::set<std::string>;
  return *paths;
}

// Applies an fcntl whole-file write lock (lock) or unlock to fd.
int SetFcntlLock(int fd, bool lock) {
  struct flock f;
  std::memset(&f, 0, sizeof(f));
  f.l_type = static_cast<short>(lock ? F_WRLCK : F_UNLCK);
  f.l_whence = SEEK_SET;
  f.l_start = 0;
  f.l_len = 0;  // the whole file
  return ::fcntl(fd, F_SETLK, &f);
}

// A held LOCK file: releases the fcntl lock and the in-process claim when
// destroyed (UnlockFile just destroys it).
class PosixFileLock final : public FileLock {
 public:
  PosixFileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFileLock() override {
    SetFcntlLock(fd_, false);
    ::close(fd_);
    std::lock_guard<std::mutex> guard(LockedPathsMutex());
    LockedPaths().erase(path_);
  }

 private:
  const std::string path_;
  const int fd_;
};

}  // namespace

Status PosixFileSystem::NewSequentialFile(const std::string& path, const FileOptions& opts,
                                          std::unique_ptr<SequentialFile>* result) {
  int fd;
  Status s = OpenFile(path, O_RDONLY, opts.use_direct_io, &fd);
  if (s.ok()) *result = std::make_unique<PosixSequentialFile>(path, fd);
  return s;
}

size_t PosixFileSystem::DirectAlignmentFor(const std::string& path, int fd) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::lock_guard<std::mutex> lock(alignment_mu_);
  const auto it = alignment_by_dir_.find(dir);
  if (it != alignment_by_dir_.end()) return it->second;
  const size_t alignment = DirectIoAlignment(fd);
  direct_alignment_probes_++;
  if (alignment_by_dir_.size() < kMaxAlignmentDirs) alignment_by_dir_[dir] = alignment;
  return alignment;
}

Status PosixFileSystem::MapReadOnly(const std::string& path, int fd,
                                    std::unique_ptr<RandomAccessFile>* result) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = PosixError(path, errno);
    ::close(fd);
    return s;
  }
  *result = MaybeMapFile(path, fd, static_cast<uint64_t>(st.st_size), mmap_limiter_);
  if (*result != nullptr) ::close(fd);
  return Status::OK();
}

Status PosixFileSystem::NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                                            std::unique_ptr<RandomAccessFile>* result) {
  int fd;
  Status s = OpenFile(path, O_RDONLY, opts.use_direct_io, &fd);
  if (!s.ok()) return s;
  if (opts.use_mmap_reads && !opts.use_direct_io) {
    s = MapReadOnly(path, fd, result);
    if (!s.ok() || *result != nullptr) return s;  // the map outlives fd
  }
  const size_t alignment = opts.use_direct_io ? DirectAlignmentFor(path, fd) : 1;
  *result = std::make_unique<PosixRandomAccessFile>(path, fd, opts.use_direct_io, alignment);
  return s;
}

Status PosixFileSystem::NewWritableFile(const std::string& path, const FileOptions& opts,
                                        std::unique_ptr<WritableFile>* result) {
  int fd;
  if (opts.use_mmap_writes && !opts.use_direct_io) {
    // A shared writable map needs the file open for reading too.
    Status s = OpenFile(path, O_RDWR | O_CREAT | O_TRUNC, false, &fd);
    if (!s.ok()) return s;
    int err = 0;
    if (PosixMappedWritableFile::Reserve(fd, 0, PosixMappedWritableFile::kWindowBytes, &err)) {
      *result = std::make_unique<PosixMappedWritableFile>(path, fd, 0);
      return s;
    }
    if (err != EOPNOTSUPP && err != ENOSYS) {
      ::close(fd);
      return PosixError(path, err);
    }
    // No fallocate on this file system: written with write(2) instead.
    *result = std::make_unique<PosixWritableFile>(path, fd, false, 0);
    return s;
  }
  Status s = OpenFile(path, O_WRONLY | O_CREAT | O_TRUNC, opts.use_direct_io, &fd);
  if (s.ok()) *result = std::make_unique<PosixWritableFile>(path, fd, opts.use_direct_io, 0);
  return s;
}

Status PosixFileSystem::ReopenWritableFile(const std::string& path, const FileOptions& opts,
                                           std::unique_ptr<WritableFile>* result) {
  int fd;
  Status s = OpenFile(path, O_WRONLY | O_CREAT, opts.use_direct_io, &fd);
  if (!s.ok()) return s;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    s = PosixError(path, errno);
    ::close(fd);
    return s;
  }
  *result = std::make_unique<PosixWritableFile>(path, fd, opts.use_direct_io,
                                                static_cast<uint64_t>(st.st_size));
  return Status::OK();
}

Status PosixFileSystem::FileExists(const std::string& path) {
  if (::access(path.c_str(), F_OK) == 0) return Status::OK();
  if (errno == ENOENT || errno == ENOTDIR) return Status::NotFound(path);
  return PosixError(path, errno);
}

Status PosixFileSystem::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  names->clear();
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return PosixError(dir, errno);
  errno = 0;
  while (struct dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names->push_back(name);
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) return PosixError(dir, err);
  std::sort(names->begin(), names->end());
  return Status::OK();
}

Status PosixFileSystem::GetFileSize(const std::string& path, uint64_t* size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *size = 0;
    return PosixError(path, errno);
  }
  *size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

Status PosixFileSystem::DeleteFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return PosixError(path, errno);
  return Status::OK();
}

Status PosixFileSystem::RenameFile(const std::string& src, const std::string& dst) {
  if (::rename(src.c_str(), dst.c_str()) != 0) return PosixError(src + " -> " + dst, errno);
  return Status::OK();
}

Status PosixFileSystem::CreateDirIfMissing(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0) return Status::OK();
  if (errno != EEXIST) return PosixError(dir, errno);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return PosixError(dir, errno);
  if (!S_ISDIR(st.st_mode)) return Status::IOError(dir, "exists and is not a directory");
  return Status::OK();
}

Status PosixFileSystem::DeleteDir(const std::string& dir) {
  if (::rmdir(dir.c_str()) != 0) return PosixError(dir, errno);
  return Status::OK();
}

Status PosixFileSystem::SyncDir(const std::string& dir) {
  const int fd = OpenRetry(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return PosixError(dir, errno);
  Status s;
  while (::fsync(fd) != 0) {
    if (errno == EINTR) continue;
    s = PosixError(dir, errno);
    break;
  }
  ::close(fd);
  return s;
}

Status PosixFileSystem::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  int fd;
  {
    std::lock_guard<std::mutex> guard(LockedPathsMutex());
    if (LockedPaths().count(path) != 0) {
      return Status::IOError(path, "lock held by this process");
    }
    fd = OpenRetry(path, O_RDWR | O_CREAT);
    if (fd < 0) return PosixError(path, errno);
    if (SetFcntlLock(fd, true) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EACCES || err == EAGAIN) {
        return Status::IOError(path, "lock held by another process");
      }
      return PosixError(path, err);
    }
    LockedPaths().insert(path);
  }
  // Outside the guard: replacing a lock already in *lock releases it, which
  // takes the guard's mutex.
  *lock = std::make_unique<PosixFileLock>(path, fd);
  return Status::OK();
}

Status PosixFileSystem::UnlockFile(std::unique_ptr<FileLock> lock) {
  if (dynamic_cast<PosixFileLock*>(lock.get()) == nullptr) {
    return Status::InvalidArgument("UnlockFile: lock did not come from PosixFileSystem");
  }
  lock.reset();  // ~PosixFileLock releases the fcntl lock and the claim
  return Status::OK();
}

}  // namespace shale
