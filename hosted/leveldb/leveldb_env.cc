// LevelDbEnv: see leveldb_env.h.
#include "hosted/leveldb/leveldb_env.h"

#include "hosted/fd_offset.h"
#include "hosted/planted_hosting.h"
#include "shale/options.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <utility>

namespace shale::hosted {

namespace {

// LevelDB 1.23's PosixWritableFile buffer (kWritableFileBufferSize).
constexpr size_t kWriteBufferBytes = 65536;

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class SequentialFileAdapter final : public leveldb::SequentialFile {
 public:
  SequentialFileAdapter(std::string fname, std::unique_ptr<shale::SequentialFile> file)
      : fname_(std::move(fname)), file_(std::move(file)) {}
  leveldb::Status Read(size_t n, leveldb::Slice* result, char* scratch) override {
    shale::Slice got;
    const shale::Status s = file_->Read(n, &got, scratch);
    *result = leveldb::Slice(got.data(), got.size());
    return ToLevelDbStatus(s, fname_);
  }
  leveldb::Status Skip(uint64_t n) override { return ToLevelDbStatus(file_->Skip(n), fname_); }

 private:
  const std::string fname_;
  std::unique_ptr<shale::SequentialFile> file_;
};

class RandomAccessFileAdapter final : public leveldb::RandomAccessFile {
 public:
  RandomAccessFileAdapter(std::string fname, std::unique_ptr<shale::RandomAccessFile> file)
      : fname_(std::move(fname)), file_(std::move(file)) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    shale::Slice got;
    const shale::Status s = file_->Read(offset, n, &got, scratch);
    *result = leveldb::Slice(got.data(), got.size());
    return ToLevelDbStatus(s, fname_);
  }

 private:
  const std::string fname_;
  std::unique_ptr<shale::RandomAccessFile> file_;
};

// PosixWritableFile's buffering and sync order over a shale::WritableFile.
class WritableFileAdapter final : public leveldb::WritableFile {
 public:
  // tap: told of every append (at its file offset), or nullptr.
  WritableFileAdapter(shale::FileSystem* fs, std::string fname,
                      std::unique_ptr<shale::WritableFile> file, LevelDbLogTap* tap,
                      bool sync_skipped)
      : fs_(fs),
        sync_skipped_(sync_skipped),
        tap_(tap),
        fname_(std::move(fname)),
        dirname_(Dirname(fname_)),
        is_manifest_(Basename(fname_).rfind("MANIFEST", 0) == 0),
        file_(std::move(file)),
        buffer_(new char[kWriteBufferBytes]),
        appended_bytes_(file_->GetFileSize()),
        written_bytes_(appended_bytes_) {}
  // As LevelDB's: an unclosed file is closed (its buffer written out).
  ~WritableFileAdapter() override {
    if (file_ != nullptr) (void)Close();
  }

  leveldb::Status Append(const leveldb::Slice& data) override {
    if (tap_ != nullptr) tap_->Appended(fname_, appended_bytes_, Slice(data.data(), data.size()));
    appended_bytes_ += data.size();
    const char* bytes = data.data();
    size_t left = data.size();
    const size_t copied = std::min(left, kWriteBufferBytes - used_);
    std::memcpy(buffer_.get() + used_, bytes, copied);
    bytes += copied;
    left -= copied;
    used_ += copied;
    if (left == 0) return leveldb::Status::OK();
    leveldb::Status s = FlushBuffer();
    if (!s.ok()) return s;
    if (left < kWriteBufferBytes) {
      std::memcpy(buffer_.get(), bytes, left);
      used_ = left;
      return leveldb::Status::OK();
    }
    return WriteOut(bytes, left);
  }
  leveldb::Status Close() override {
    leveldb::Status s = FlushBuffer();
    const shale::Status closed = file_->Close();
    if (!closed.ok() && s.ok()) s = ToLevelDbStatus(closed, fname_);
    file_.reset();
    return s;
  }
  leveldb::Status Flush() override { return FlushBuffer(); }
  leveldb::Status Sync() override {
    if (sync_skipped_) return FlushBuffer();  // planted: acknowledged unsynced
    // New files a MANIFEST names must be in their directory before it is.
    if (is_manifest_) {
      const shale::Status s = fs_->SyncDir(dirname_);
      if (!s.ok()) return ToLevelDbStatus(s, dirname_);
    }
    leveldb::Status s = FlushBuffer();
    if (!s.ok()) return s;
    return ToLevelDbStatus(file_->Sync(), fname_);  // fdatasync
  }

 private:
  leveldb::Status FlushBuffer() {
    leveldb::Status s = WriteOut(buffer_.get(), used_);
    used_ = 0;
    return s;
  }
  leveldb::Status WriteOut(const char* bytes, size_t n) {
    if (n == 0) return leveldb::Status::OK();
    // At the descriptor's own offset, as write(2) (fd_offset.h).
    const shale::Status s =
        AppendAtFdOffset(file_.get(), shale::Slice(bytes, n), /*reused=*/false, &written_bytes_);
    return ToLevelDbStatus(s, fname_);
  }

  shale::FileSystem* const fs_;
  const bool sync_skipped_;
  LevelDbLogTap* const tap_;
  const std::string fname_;
  const std::string dirname_;
  const bool is_manifest_;
  std::unique_ptr<shale::WritableFile> file_;
  std::unique_ptr<char[]> buffer_;
  size_t used_ = 0;
  uint64_t appended_bytes_;  // the file's size as Append calls make it
  uint64_t written_bytes_;   // the descriptor's offset: what left the buffer
};

bool IsLogFile(const std::string& fname) {
  return fname.size() > 4 && fname.compare(fname.size() - 4, 4, ".log") == 0;
}

class FileLockAdapter final : public leveldb::FileLock {
 public:
  explicit FileLockAdapter(std::unique_ptr<shale::FileLock> lock) : lock(std::move(lock)) {}
  std::unique_ptr<shale::FileLock> lock;
};

// One line per message, appended and flushed (never synced), as
// PosixLogger's: the time (simulated) and the message.
class LoggerAdapter final : public leveldb::Logger {
 public:
  LoggerAdapter(shale::Clock* clock, std::unique_ptr<shale::WritableFile> file,
                std::function<void(const std::string& line)> trace)
      : clock_(clock), file_(std::move(file)), trace_(std::move(trace)) {}
  ~LoggerAdapter() override { (void)file_->Close(); }
  void Logv(const char* format, std::va_list ap) override {
    char line[1024];
    int n = std::snprintf(line, sizeof(line), "%llu ",
                          static_cast<unsigned long long>(clock_->NowMicros()));
    std::va_list copy;
    va_copy(copy, ap);
    const int stamp = n;
    const int body = std::vsnprintf(line + n, sizeof(line) - n - 1, format, copy);
    va_end(copy);
    n = body < 0 ? n : std::min<int>(n + body, sizeof(line) - 2);
    if (n == 0 || line[n - 1] != '\n') line[n++] = '\n';
    (void)file_->Append(shale::Slice(line, static_cast<size_t>(n)));
    if (trace_)
      trace_("leveldb LOG: " + std::string(line + stamp, static_cast<size_t>(n - stamp - 1)));
  }

 private:
  shale::Clock* const clock_;
  std::unique_ptr<shale::WritableFile> file_;
  const std::function<void(const std::string& line)> trace_;
};

}  // namespace

leveldb::Status ToLevelDbStatus(const shale::Status& status, const std::string& context) {
  if (status.ok()) return leveldb::Status::OK();
  if (status.IsNotFound() || status.IsPathNotFound()) {
    return leveldb::Status::NotFound(context, status.ToString());
  }
  return leveldb::Status::IOError(context, status.ToString());
}

LevelDbEnv::LevelDbEnv(shale::Env* env, uint64_t planted_bugs)
    : env_(env),
      planted_bugs_(planted_bugs),
      mu_(env->runtime()->NewMutex()),
      work_cv_(env->runtime()->NewCondVar(mu_.get())) {}

LevelDbEnv::~LevelDbEnv() = default;

leveldb::Status LevelDbEnv::NewSequentialFile(const std::string& fname,
                                              leveldb::SequentialFile** result) {
  *result = nullptr;
  std::unique_ptr<shale::SequentialFile> file;
  const shale::Status s = env_->fs()->NewSequentialFile(fname, shale::FileOptions{}, &file);
  if (!s.ok()) return ToLevelDbStatus(s, fname);
  *result = new SequentialFileAdapter(fname, std::move(file));
  return leveldb::Status::OK();
}

leveldb::Status LevelDbEnv::NewRandomAccessFile(const std::string& fname,
                                                leveldb::RandomAccessFile** result) {
  *result = nullptr;
  std::unique_ptr<shale::RandomAccessFile> file;
  const shale::Status s = env_->fs()->NewRandomAccessFile(fname, shale::FileOptions{}, &file);
  if (!s.ok()) return ToLevelDbStatus(s, fname);
  *result = new RandomAccessFileAdapter(fname, std::move(file));
  return leveldb::Status::OK();
}

leveldb::Status LevelDbEnv::NewWritableFile(const std::string& fname,
                                            leveldb::WritableFile** result) {
  *result = nullptr;
  std::unique_ptr<shale::WritableFile> file;
  const shale::Status s = env_->fs()->NewWritableFile(fname, shale::FileOptions{}, &file);
  if (!s.ok()) return ToLevelDbStatus(s, fname);
  *result = new WritableFileAdapter(env_->fs(), fname, std::move(file),
                                    IsLogFile(fname) ? tap_ : nullptr, SyncSkipped(planted_bugs_));
  return leveldb::Status::OK();
}

leveldb::Status LevelDbEnv::NewAppendableFile(const std::string& fname,
                                              leveldb::WritableFile** result) {
  *result = nullptr;
  std::unique_ptr<shale::WritableFile> file;
  const shale::Status s = env_->fs()->ReopenWritableFile(fname, shale::FileOptions{}, &file);
  if (!s.ok()) return ToLevelDbStatus(s, fname);
  *result = new WritableFileAdapter(env_->fs(), fname, std::move(file),
                                    IsLogFile(fname) ? tap_ : nullptr, SyncSkipped(planted_bugs_));
  return leveldb::Status::OK();
}

bool LevelDbEnv::FileExists(const std::string& fname) { return env_->fs()->FileExists(fname).ok(); }

leveldb::Status LevelDbEnv::GetChildren(const std::string& dir, std::vector<std::string>* result) {
  result->clear();
  return ToLevelDbStatus(env_->fs()->GetChildren(dir, result), dir);
}

leveldb::Status LevelDbEnv::RemoveFile(const std::string& fname) {
  return ToLevelDbStatus(env_->fs()->DeleteFile(fname), fname);
}

leveldb::Status LevelDbEnv::CreateDir(const std::string& dirname) {
  return ToLevelDbStatus(env_->fs()->CreateDirIfMissing(dirname), dirname);
}

leveldb::Status LevelDbEnv::RemoveDir(const std::string& dirname) {
  return ToLevelDbStatus(env_->fs()->DeleteDir(dirname), dirname);
}

leveldb::Status LevelDbEnv::GetFileSize(const std::string& fname, uint64_t* file_size) {
  *file_size = 0;
  return ToLevelDbStatus(env_->fs()->GetFileSize(fname, file_size), fname);
}

leveldb::Status LevelDbEnv::RenameFile(const std::string& src, const std::string& target) {
  return ToLevelDbStatus(RenameWithPlantedBugs(env_->fs(), src, target, planted_bugs_), src);
}

leveldb::Status LevelDbEnv::LockFile(const std::string& fname, leveldb::FileLock** lock) {
  *lock = nullptr;
  std::unique_ptr<shale::FileLock> held;
  const shale::Status s = env_->fs()->LockFile(fname, &held);
  if (!s.ok()) return ToLevelDbStatus(s, "lock " + fname);
  *lock = new FileLockAdapter(std::move(held));
  return leveldb::Status::OK();
}

leveldb::Status LevelDbEnv::UnlockFile(leveldb::FileLock* lock) {
  auto* adapter = static_cast<FileLockAdapter*>(lock);
  const shale::Status s = env_->fs()->UnlockFile(std::move(adapter->lock));
  delete adapter;
  return ToLevelDbStatus(s, "unlock");
}

void LevelDbEnv::Schedule(void (*function)(void* arg), void* arg) {
  mu_->Lock();
  if (!background_started_) {
    background_started_ = true;
    threads_.push_back(env_->runtime()->StartThread("leveldb.bg", [this] { BackgroundMain(); }));
  }
  if (queue_.empty()) work_cv_->Signal();
  queue_.push_back(Work{function, arg});
  mu_->Unlock();
}

void LevelDbEnv::BackgroundMain() {
  while (true) {
    mu_->Lock();
    while (queue_.empty() && !shutting_down_) work_cv_->Wait();
    if (queue_.empty()) {
      mu_->Unlock();
      return;
    }
    const Work work = queue_.front();
    queue_.pop_front();
    mu_->Unlock();
    work.function(work.arg);
  }
}

void LevelDbEnv::StartThread(void (*function)(void* arg), void* arg) {
  mu_->Lock();
  threads_.push_back(
      env_->runtime()->StartThread("leveldb.thread", [function, arg] { function(arg); }));
  mu_->Unlock();
}

leveldb::Status LevelDbEnv::GetTestDirectory(std::string* path) {
  *path = "/leveldbtest";
  (void)CreateDir(*path);
  return leveldb::Status::OK();
}

leveldb::Status LevelDbEnv::NewLogger(const std::string& fname, leveldb::Logger** result) {
  *result = nullptr;
  std::unique_ptr<shale::WritableFile> file;
  const shale::Status s = env_->fs()->ReopenWritableFile(fname, shale::FileOptions{}, &file);
  if (!s.ok()) return ToLevelDbStatus(s, fname);
  *result = new LoggerAdapter(env_->clock(), std::move(file), info_log_trace_);
  return leveldb::Status::OK();
}

uint64_t LevelDbEnv::NowMicros() { return env_->clock()->NowMicros(); }

void LevelDbEnv::SleepForMicroseconds(int micros) {
  env_->runtime()->SleepForMicroseconds(micros > 0 ? static_cast<uint64_t>(micros) : 0);
}

void LevelDbEnv::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  mu_->Lock();
  shutting_down_ = true;
  work_cv_->SignalAll();
  std::vector<std::unique_ptr<shale::Thread>> threads = std::move(threads_);
  mu_->Unlock();
  for (auto& thread : threads) thread->Join();
}

}  // namespace shale::hosted
