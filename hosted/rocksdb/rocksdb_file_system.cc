// RocksDbFileSystem: see rocksdb_file_system.h.
#include "hosted/rocksdb/rocksdb_file_system.h"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <utility>

#include "hosted/planted_hosting.h"
#include "hosted/rocksdb/rocksdb_files.h"

namespace shale::hosted {

namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

shale::FileOptions ReadOptionsOf(const rocksdb::FileOptions& options, const char* opened_by) {
  shale::FileOptions o;
  o.use_direct_io = options.use_direct_reads;
  o.use_mmap_reads = options.use_mmap_reads && !options.use_direct_reads;
  o.opened_by = opened_by;
  return o;
}

shale::FileOptions WriteOptionsOf(const rocksdb::FileOptions& options) {
  shale::FileOptions o;
  o.use_direct_io = options.use_direct_writes;
  o.use_mmap_writes = options.use_mmap_writes && !options.use_direct_writes;
  o.opened_by = "rocksdb";
  return o;
}

class FileLock final : public rocksdb::FileLock {
 public:
  explicit FileLock(std::unique_ptr<shale::FileLock> lock) : lock(std::move(lock)) {}
  std::unique_ptr<shale::FileLock> lock;
};

// Replaces the digits of every "0x..." number in line[begin, end) with
// '?': RocksDB logs the addresses of its objects, which differ from run to
// run, and the log's bytes reach the trace hash as any file's do.
void MaskAddresses(char* line, size_t begin, size_t end) {
  for (size_t i = begin; i + 2 < end; i++) {
    if (line[i] != '0' || line[i + 1] != 'x' ||
        !std::isxdigit(static_cast<unsigned char>(line[i + 2]))) {
      continue;
    }
    for (i += 2; i < end && std::isxdigit(static_cast<unsigned char>(line[i])); i++) line[i] = '?';
  }
}

// The info log: each line appended as soon as it is logged, never synced,
// as RocksDB's POSIX logger does; stamped with the simulated time in
// microseconds, its addresses masked. Each line also goes, unstamped, to
// trace if set.
class InfoLog final : public rocksdb::Logger {
 public:
  InfoLog(std::unique_ptr<shale::WritableFile> file, shale::Clock* clock, InfoLogTrace trace)
      : file_(std::move(file)), clock_(clock), trace_(std::move(trace)) {}
  ~InfoLog() override {
    if (file_ != nullptr) (void)file_->Close();
  }
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    static constexpr size_t kMaxLineBytes = 4096;
    char line[kMaxLineBytes];
    const int stamp = std::snprintf(line, sizeof(line), "%llu ",
                                    static_cast<unsigned long long>(clock_->NowMicros()));
    const int body = std::vsnprintf(line + stamp, sizeof(line) - stamp, format, ap);
    size_t bytes = body < 0 ? stamp : std::min(sizeof(line) - 2, size_t(stamp + body));
    MaskAddresses(line, stamp, bytes);
    if (trace_) trace_("rocksdb LOG: " + std::string(line + stamp, bytes - stamp));
    line[bytes++] = '\n';
    if (file_ != nullptr) (void)file_->Append(shale::Slice(line, bytes));
  }

 protected:
  rocksdb::Status CloseImpl() override {
    const shale::Status s = file_ != nullptr ? file_->Close() : shale::Status::OK();
    file_.reset();
    return s.ok() ? rocksdb::Status::OK() : rocksdb::Status::IOError(s.ToString());
  }

 private:
  std::unique_ptr<shale::WritableFile> file_;
  shale::Clock* const clock_;
  const InfoLogTrace trace_;
};

}  // namespace

IOStatus RocksDbFileSystem::NewSequentialFile(const std::string& fname,
                                              const rocksdb::FileOptions& options,
                                              std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                              IODebugContext*) {
  std::unique_ptr<shale::SequentialFile> file;
  const shale::Status s = fs_->NewSequentialFile(fname, ReadOptionsOf(options, "rocksdb"), &file);
  if (s.ok()) *result = NewRocksDbSequentialFile(fname, std::move(file));
  return ToRocksDbIOStatus(s, fname);
}

IOStatus RocksDbFileSystem::NewRandomAccessFile(
    const std::string& fname, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSRandomAccessFile>* result, IODebugContext*) {
  std::unique_ptr<shale::RandomAccessFile> file;
  const shale::Status s =
      fs_->NewRandomAccessFile(fname, ReadOptionsOf(options, "rocksdb's table reader"), &file);
  if (s.ok()) *result = NewRocksDbRandomAccessFile(fname, std::move(file));
  return ToRocksDbIOStatus(s, fname);
}

IOStatus RocksDbFileSystem::OpenWritable(const std::string& fname,
                                         const rocksdb::FileOptions& options, bool reopen,
                                         std::unique_ptr<rocksdb::FSWritableFile>* result) {
  std::unique_ptr<shale::WritableFile> file;
  const shale::FileOptions o = WriteOptionsOf(options);
  const shale::Status s =
      reopen ? fs_->ReopenWritableFile(fname, o, &file) : fs_->NewWritableFile(fname, o, &file);
  if (s.ok()) {
    *result = NewRocksDbWritableFile(fname, std::move(file), options, false, &write_errors_,
                                     SyncSkipped(planted_bugs_));
  }
  return ToRocksDbIOStatus(s, fname);
}

IOStatus RocksDbFileSystem::NewWritableFile(const std::string& fname,
                                            const rocksdb::FileOptions& options,
                                            std::unique_ptr<rocksdb::FSWritableFile>* result,
                                            IODebugContext*) {
  return OpenWritable(fname, options, /*reopen=*/false, result);
}

IOStatus RocksDbFileSystem::ReopenWritableFile(const std::string& fname,
                                               const rocksdb::FileOptions& options,
                                               std::unique_ptr<rocksdb::FSWritableFile>* result,
                                               IODebugContext*) {
  return OpenWritable(fname, options, /*reopen=*/true, result);
}

IOStatus RocksDbFileSystem::ReuseWritableFile(const std::string& fname,
                                              const std::string& old_fname,
                                              const rocksdb::FileOptions& options,
                                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                                              IODebugContext*) {
  shale::Status s = fs_->RenameFile(old_fname, fname);
  if (!s.ok()) return ToRocksDbIOStatus(s, old_fname);
  std::unique_ptr<shale::WritableFile> file;
  s = fs_->ReopenWritableFile(fname, WriteOptionsOf(options), &file);
  if (s.ok()) {
    *result = NewRocksDbWritableFile(fname, std::move(file), options, true, &write_errors_,
                                     SyncSkipped(planted_bugs_));
  }
  return ToRocksDbIOStatus(s, fname);
}

IOStatus RocksDbFileSystem::NewDirectory(const std::string& name, const IOOptions&,
                                         std::unique_ptr<rocksdb::FSDirectory>* result,
                                         IODebugContext*) {
  std::vector<std::string> children;
  const shale::Status s = fs_->GetChildren(name, &children);  // opening a directory needs one
  if (s.ok()) *result = NewRocksDbDirectory(fs_, name);
  return ToRocksDbIOStatus(s, name);
}

IOStatus RocksDbFileSystem::FileExists(const std::string& fname, const IOOptions&,
                                       IODebugContext*) {
  const shale::Status s = fs_->FileExists(fname);
  if (s.IsNotFound() || s.IsPathNotFound()) return IOStatus::NotFound();
  return ToRocksDbIOStatus(s, fname);
}

IOStatus RocksDbFileSystem::GetChildren(const std::string& dir, const IOOptions&,
                                        std::vector<std::string>* result, IODebugContext*) {
  result->clear();
  return ToRocksDbIOStatus(fs_->GetChildren(dir, result), dir);
}

IOStatus RocksDbFileSystem::DeleteFile(const std::string& fname, const IOOptions&,
                                       IODebugContext*) {
  return ToRocksDbIOStatus(fs_->DeleteFile(fname), fname);
}

IOStatus RocksDbFileSystem::CreateDir(const std::string& dirname, const IOOptions&,
                                      IODebugContext*) {
  if (fs_->FileExists(dirname).ok())
    return IOStatus::IOError("While mkdir", dirname + ": File exists");
  return ToRocksDbIOStatus(fs_->CreateDirIfMissing(dirname), dirname);
}

IOStatus RocksDbFileSystem::CreateDirIfMissing(const std::string& dirname, const IOOptions&,
                                               IODebugContext*) {
  return ToRocksDbIOStatus(fs_->CreateDirIfMissing(dirname), dirname);
}

IOStatus RocksDbFileSystem::DeleteDir(const std::string& dirname, const IOOptions&,
                                      IODebugContext*) {
  return ToRocksDbIOStatus(fs_->DeleteDir(dirname), dirname);
}

IOStatus RocksDbFileSystem::GetFileSize(const std::string& fname, const IOOptions&,
                                        uint64_t* file_size, IODebugContext*) {
  return ToRocksDbIOStatus(fs_->GetFileSize(fname, file_size), fname);
}

IOStatus RocksDbFileSystem::GetFileModificationTime(const std::string&, const IOOptions&, uint64_t*,
                                                    IODebugContext*) {
  return IOStatus::NotSupported("GetFileModificationTime");
}

IOStatus RocksDbFileSystem::RenameFile(const std::string& src, const std::string& target,
                                       const IOOptions&, IODebugContext*) {
  return ToRocksDbIOStatus(RenameWithPlantedBugs(fs_, src, target, planted_bugs_), src);
}

IOStatus RocksDbFileSystem::LockFile(const std::string& fname, const IOOptions&,
                                     rocksdb::FileLock** lock, IODebugContext*) {
  std::unique_ptr<shale::FileLock> held;
  const shale::Status s = fs_->LockFile(fname, &held);
  *lock = s.ok() ? new FileLock(std::move(held)) : nullptr;
  return ToRocksDbIOStatus(s, fname);
}

IOStatus RocksDbFileSystem::UnlockFile(rocksdb::FileLock* lock, const IOOptions&, IODebugContext*) {
  std::unique_ptr<FileLock> owned(static_cast<FileLock*>(lock));
  return ToRocksDbIOStatus(fs_->UnlockFile(std::move(owned->lock)), "LOCK");
}

IOStatus RocksDbFileSystem::GetTestDirectory(const IOOptions&, std::string* path, IODebugContext*) {
  *path = "/rocksdbtest";
  return ToRocksDbIOStatus(fs_->CreateDirIfMissing(*path), *path);
}

IOStatus RocksDbFileSystem::NewLogger(const std::string& fname, const IOOptions&,
                                      std::shared_ptr<rocksdb::Logger>* result, IODebugContext*) {
  std::unique_ptr<shale::WritableFile> file;
  shale::FileOptions options;
  options.opened_by = "rocksdb's info log";
  const shale::Status s = fs_->NewWritableFile(fname, options, &file);
  if (s.ok()) *result = std::make_shared<InfoLog>(std::move(file), clock_, info_log_trace_);
  return ToRocksDbIOStatus(s, fname);
}

IOStatus RocksDbFileSystem::GetAbsolutePath(const std::string& db_path, const IOOptions&,
                                            std::string* output_path, IODebugContext*) {
  *output_path = !db_path.empty() && db_path[0] == '/' ? db_path : "/" + db_path;
  return IOStatus::OK();
}

IOStatus RocksDbFileSystem::IsDirectory(const std::string& path, const IOOptions&, bool* is_dir,
                                        IODebugContext*) {
  std::vector<std::string> children;
  if (fs_->GetChildren(path, &children).ok()) {
    *is_dir = true;
    return IOStatus::OK();
  }
  *is_dir = false;
  return ToRocksDbIOStatus(fs_->FileExists(path), path);
}

}  // namespace shale::hosted
