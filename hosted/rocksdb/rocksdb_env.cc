// RocksDbEnv and RocksDbClock: see rocksdb_env.h.
#include "hosted/rocksdb/rocksdb_env.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

#include "hosted/rocksdb/rocksdb_file_system.h"
#include "sim/foreign_sync.h"

namespace shale::hosted {

namespace {

constexpr uint64_t kNanosPerMicro = 1000;
constexpr uint64_t kMicrosPerSecond = 1'000'000;
constexpr char kHostName[] = "shale-sim";

const char* PoolName(rocksdb::Env::Priority pri) {
  switch (pri) {
    case rocksdb::Env::Priority::BOTTOM:
      return "rocksdb:bottom";
    case rocksdb::Env::Priority::LOW:
      return "rocksdb:low";
    case rocksdb::Env::Priority::HIGH:
      return "rocksdb:high";
    default:
      return "rocksdb:user";
  }
}

}  // namespace

uint64_t RocksDbClock::NowMicros() {
  return (clock_->NowNanos() + sim::ForeignSync::kRealtimeEpochNanos) / kNanosPerMicro;
}

uint64_t RocksDbClock::NowNanos() { return clock_->NowNanos(); }

void RocksDbClock::SleepForMicroseconds(int micros) {
  runtime_->SleepForMicroseconds(micros > 0 ? static_cast<uint64_t>(micros) : 0);
}

rocksdb::Status RocksDbClock::GetCurrentTime(int64_t* unix_time) {
  *unix_time = static_cast<int64_t>(NowMicros() / kMicrosPerSecond);
  return rocksdb::Status::OK();
}

// As RocksDB's POSIX clock formats it, in UTC rather than the host's zone.
std::string RocksDbClock::TimeToString(uint64_t time) {
  const auto seconds = static_cast<time_t>(time);
  struct tm t;
  gmtime_r(&seconds, &t);
  char buffer[80];
  std::snprintf(buffer, sizeof(buffer), "%04d/%02d/%02d-%02d:%02d:%02d ", t.tm_year + 1900,
                t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec);
  return buffer;
}

RocksDbEnv::RocksDbEnv(shale::Env* env, uint64_t seed)
    : rocksdb::Env(std::make_shared<RocksDbFileSystem>(env->fs(), env->clock()),
                   std::make_shared<RocksDbClock>(env->clock(), env->runtime())),
      env_(env),
      seed_(seed),
      legacy_(rocksdb::NewCompositeEnv(GetFileSystem())),
      threads_mu_(env->runtime()->NewMutex()) {
  for (int pri = 0; pri < Env::Priority::TOTAL; pri++) {
    pools_[pri] = std::make_unique<SimThreadPool>(env->runtime(),
                                                  PoolName(static_cast<Priority>(pri)), /*size=*/1);
  }
}

RocksDbEnv::~RocksDbEnv() = default;

const std::string& RocksDbEnv::first_write_error() const {
  return static_cast<const RocksDbFileSystem&>(*GetFileSystem()).first_write_error();
}

void RocksDbEnv::set_info_log_trace(InfoLogTrace trace) {
  static_cast<RocksDbFileSystem&>(*GetFileSystem()).set_info_log_trace(std::move(trace));
}

void RocksDbEnv::set_planted_bugs(uint64_t planted_bugs) {
  static_cast<RocksDbFileSystem&>(*GetFileSystem()).set_planted_bugs(planted_bugs);
}

rocksdb::Status RocksDbEnv::NewSequentialFile(const std::string& fname,
                                              std::unique_ptr<rocksdb::SequentialFile>* result,
                                              const rocksdb::EnvOptions& options) {
  return legacy_->NewSequentialFile(fname, result, options);
}
rocksdb::Status RocksDbEnv::NewRandomAccessFile(const std::string& fname,
                                                std::unique_ptr<rocksdb::RandomAccessFile>* result,
                                                const rocksdb::EnvOptions& options) {
  return legacy_->NewRandomAccessFile(fname, result, options);
}
rocksdb::Status RocksDbEnv::NewWritableFile(const std::string& fname,
                                            std::unique_ptr<rocksdb::WritableFile>* result,
                                            const rocksdb::EnvOptions& options) {
  return legacy_->NewWritableFile(fname, result, options);
}
rocksdb::Status RocksDbEnv::NewDirectory(const std::string& name,
                                         std::unique_ptr<rocksdb::Directory>* result) {
  return legacy_->NewDirectory(name, result);
}
rocksdb::Status RocksDbEnv::FileExists(const std::string& fname) {
  return legacy_->FileExists(fname);
}
rocksdb::Status RocksDbEnv::GetChildren(const std::string& dir, std::vector<std::string>* result) {
  return legacy_->GetChildren(dir, result);
}
rocksdb::Status RocksDbEnv::DeleteFile(const std::string& fname) {
  return legacy_->DeleteFile(fname);
}
rocksdb::Status RocksDbEnv::CreateDir(const std::string& dirname) {
  return legacy_->CreateDir(dirname);
}
rocksdb::Status RocksDbEnv::CreateDirIfMissing(const std::string& dirname) {
  return legacy_->CreateDirIfMissing(dirname);
}
rocksdb::Status RocksDbEnv::DeleteDir(const std::string& dirname) {
  return legacy_->DeleteDir(dirname);
}
rocksdb::Status RocksDbEnv::GetFileSize(const std::string& fname, uint64_t* file_size) {
  return legacy_->GetFileSize(fname, file_size);
}
rocksdb::Status RocksDbEnv::GetFileModificationTime(const std::string& fname,
                                                    uint64_t* file_mtime) {
  return legacy_->GetFileModificationTime(fname, file_mtime);
}
rocksdb::Status RocksDbEnv::RenameFile(const std::string& src, const std::string& target) {
  return legacy_->RenameFile(src, target);
}
rocksdb::Status RocksDbEnv::LockFile(const std::string& fname, rocksdb::FileLock** lock) {
  return legacy_->LockFile(fname, lock);
}
rocksdb::Status RocksDbEnv::UnlockFile(rocksdb::FileLock* lock) {
  return legacy_->UnlockFile(lock);
}
rocksdb::Status RocksDbEnv::GetTestDirectory(std::string* path) {
  return legacy_->GetTestDirectory(path);
}
rocksdb::Status RocksDbEnv::GetAbsolutePath(const std::string& db_path, std::string* output_path) {
  return legacy_->GetAbsolutePath(db_path, output_path);
}

rocksdb::Status RocksDbEnv::NewLogger(const std::string& fname,
                                      std::shared_ptr<rocksdb::Logger>* result) {
  return GetFileSystem()->NewLogger(fname, rocksdb::IOOptions(), result, nullptr);
}

SimThreadPool* RocksDbEnv::Pool(Priority pri) const {
  return pools_[pri >= 0 && pri < Env::Priority::TOTAL ? pri : Env::Priority::LOW].get();
}

void RocksDbEnv::Schedule(void (*function)(void* arg), void* arg, Priority pri, void* tag,
                          void (*unschedule)(void* arg)) {
  Pool(pri)->Schedule({function, arg, tag, unschedule});
}

int RocksDbEnv::UnSchedule(void* tag, Priority pri) { return Pool(pri)->Unschedule(tag); }

void RocksDbEnv::StartThread(void (*function)(void* arg), void* arg) {
  auto thread = env_->runtime()->StartThread("rocksdb:thread", [function, arg] { function(arg); });
  threads_mu_->Lock();
  threads_.push_back(std::move(thread));
  threads_mu_->Unlock();
}

void RocksDbEnv::WaitForJoin() {
  threads_mu_->Lock();
  std::vector<std::unique_ptr<shale::Thread>> threads = std::move(threads_);
  threads_.clear();
  threads_mu_->Unlock();
  for (auto& thread : threads) thread->Join();
}

unsigned int RocksDbEnv::GetThreadPoolQueueLen(Priority pri) const {
  return static_cast<unsigned int>(Pool(pri)->queue_length());
}

void RocksDbEnv::SetBackgroundThreads(int number, Priority pri) { Pool(pri)->set_size(number); }

int RocksDbEnv::GetBackgroundThreads(Priority pri) { return Pool(pri)->size(); }

void RocksDbEnv::IncBackgroundThreadsIfNeeded(int number, Priority pri) {
  Pool(pri)->GrowTo(number);
}

uint64_t RocksDbEnv::NowMicros() { return GetSystemClock()->NowMicros(); }
uint64_t RocksDbEnv::NowNanos() { return GetSystemClock()->NowNanos(); }
void RocksDbEnv::SleepForMicroseconds(int micros) {
  GetSystemClock()->SleepForMicroseconds(micros);
}
rocksdb::Status RocksDbEnv::GetCurrentTime(int64_t* unix_time) {
  return GetSystemClock()->GetCurrentTime(unix_time);
}
std::string RocksDbEnv::TimeToString(uint64_t time) { return GetSystemClock()->TimeToString(time); }

rocksdb::Status RocksDbEnv::GetHostName(char* name, uint64_t len) {
  if (len < sizeof(kHostName))
    return rocksdb::Status::InvalidArgument("host name buffer too small");
  std::memcpy(name, kHostName, sizeof(kHostName));
  return rocksdb::Status::OK();
}

// The shape of a random uuid, as the kernel's: 8-4-4-4-12 hex digits.
std::string RocksDbEnv::GenerateUniqueId() {
  const uint64_t count = unique_ids_++;
  char id[40];
  std::snprintf(
      id, sizeof(id), "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-8%03" PRIx64 "-%012" PRIx64,
      static_cast<uint64_t>((seed_ >> 32) & 0xffffffffu),
      static_cast<uint64_t>((seed_ >> 16) & 0xffffu), static_cast<uint64_t>(seed_ & 0xfffu),
      static_cast<uint64_t>((count >> 48) & 0xfffu),
      static_cast<uint64_t>(count & 0xffffffffffffull));
  return id;
}

void RocksDbEnv::Shutdown() {
  for (auto& pool : pools_) pool->Shutdown();
  WaitForJoin();
}

}  // namespace shale::hosted
