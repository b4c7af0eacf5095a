// RocksDbEnv: a rocksdb::Env (RocksDB 7.8.3, Debian's librocksdb7.8, used
// as shipped) over Shale's seam, for one process's life in a simulation:
//   * files through RocksDbFileSystem (rocksdb_file_system.h), the Env's
//     own FileSystem, so RocksDB's file calls reach it directly;
//   * time through RocksDbClock, on the simulated clock: NowMicros and
//     GetCurrentTime are realtime (from ForeignSync's epoch, as the
//     interposer answers gettimeofday), NowNanos is monotonic, sleeps are
//     simulated;
//   * background work on SimThreadPool workers (tasks), one pool per
//     priority, with RocksDB's default sizes (one thread each) and its
//     rules for growing, unscheduling and queue length; StartThread runs a
//     task, WaitForJoin joins them;
//   * the host's identity: the host name is "shale-sim", and unique ids
//     (the DB's identity) come from the seed and a count, never from the
//     kernel's random uuid.
// RocksDB also reaches threads, clocks and randomness past its Env (the
// periodic-task timer, std::random_device for session ids): the
// interposer answers those calls (docs/hosting_rocksdb.md).
//
// Ownership: the shale::Env outlives this. Thread safety: as rocksdb::Env.
// REQUIRES: Shutdown, from a task, once no DB uses this Env; a crash
// abandons an Env instead, with its process.
#pragma once

#include <rocksdb/env.h>
#include <rocksdb/system_clock.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hosted/rocksdb/rocksdb_file_system.h"
#include "hosted/sim_thread_pool.h"
#include "shale/env.h"

namespace shale::hosted {

class RocksDbClock final : public rocksdb::SystemClock {
 public:
  RocksDbClock(shale::Clock* clock, shale::Runtime* runtime) : clock_(clock), runtime_(runtime) {}
  const char* Name() const override { return "ShaleClock"; }
  uint64_t NowMicros() override;
  uint64_t NowNanos() override;
  void SleepForMicroseconds(int micros) override;
  rocksdb::Status GetCurrentTime(int64_t* unix_time) override;
  std::string TimeToString(uint64_t time) override;

 private:
  shale::Clock* const clock_;
  shale::Runtime* const runtime_;
};

class RocksDbEnv final : public rocksdb::Env {
 public:
  // seed: where unique ids come from (the run's seed).
  RocksDbEnv(shale::Env* env, uint64_t seed);
  ~RocksDbEnv() override;

  const char* Name() const override { return "ShaleEnv"; }

  // The legacy file interface, through the same FileSystem.
  rocksdb::Status NewSequentialFile(const std::string& fname,
                                    std::unique_ptr<rocksdb::SequentialFile>* result,
                                    const rocksdb::EnvOptions& options) override;
  rocksdb::Status NewRandomAccessFile(const std::string& fname,
                                      std::unique_ptr<rocksdb::RandomAccessFile>* result,
                                      const rocksdb::EnvOptions& options) override;
  rocksdb::Status NewWritableFile(const std::string& fname,
                                  std::unique_ptr<rocksdb::WritableFile>* result,
                                  const rocksdb::EnvOptions& options) override;
  rocksdb::Status NewDirectory(const std::string& name,
                               std::unique_ptr<rocksdb::Directory>* result) override;
  rocksdb::Status FileExists(const std::string& fname) override;
  rocksdb::Status GetChildren(const std::string& dir, std::vector<std::string>* result) override;
  rocksdb::Status DeleteFile(const std::string& fname) override;
  rocksdb::Status CreateDir(const std::string& dirname) override;
  rocksdb::Status CreateDirIfMissing(const std::string& dirname) override;
  rocksdb::Status DeleteDir(const std::string& dirname) override;
  rocksdb::Status GetFileSize(const std::string& fname, uint64_t* file_size) override;
  rocksdb::Status GetFileModificationTime(const std::string& fname, uint64_t* file_mtime) override;
  rocksdb::Status RenameFile(const std::string& src, const std::string& target) override;
  rocksdb::Status LockFile(const std::string& fname, rocksdb::FileLock** lock) override;
  rocksdb::Status UnlockFile(rocksdb::FileLock* lock) override;
  rocksdb::Status GetTestDirectory(std::string* path) override;
  rocksdb::Status GetAbsolutePath(const std::string& db_path, std::string* output_path) override;
  // The info log: the FileSystem's (rocksdb_file_system.h), not the
  // library's own, whose lines carry the addresses of its objects.
  rocksdb::Status NewLogger(const std::string& fname,
                            std::shared_ptr<rocksdb::Logger>* result) override;

  // Threads.
  void Schedule(void (*function)(void* arg), void* arg, Priority pri = LOW, void* tag = nullptr,
                void (*unschedule)(void* arg) = nullptr) override;
  int UnSchedule(void* tag, Priority pri) override;
  void StartThread(void (*function)(void* arg), void* arg) override;
  void WaitForJoin() override;
  unsigned int GetThreadPoolQueueLen(Priority pri = LOW) const override;
  void SetBackgroundThreads(int number, Priority pri = LOW) override;
  int GetBackgroundThreads(Priority pri = LOW) override;
  void IncBackgroundThreadsIfNeeded(int number, Priority pri) override;

  // Time and identity.
  uint64_t NowMicros() override;
  uint64_t NowNanos() override;
  void SleepForMicroseconds(int micros) override;
  rocksdb::Status GetCurrentTime(int64_t* unix_time) override;
  std::string TimeToString(uint64_t time) override;
  rocksdb::Status GetHostName(char* name, uint64_t len) override;
  std::string GenerateUniqueId() override;

  // Joins every pool worker and started thread. At most once.
  void Shutdown();

  // RocksDbFileSystem::first_write_error of this Env's file system.
  const std::string& first_write_error() const;
  // RocksDbFileSystem::set_info_log_trace of this Env's file system.
  void set_info_log_trace(InfoLogTrace trace);
  // RocksDbFileSystem::set_planted_bugs of this Env's file system.
  void set_planted_bugs(uint64_t planted_bugs);

  uint64_t seed() const { return seed_; }
  // 0, 1, 2, ...: how many session ids this process has handed out
  // (rocksdb_open.h).
  uint64_t NextSessionCount() { return session_ids_++; }

 private:
  SimThreadPool* Pool(Priority pri) const;

  shale::Env* const env_;
  const uint64_t seed_;
  uint64_t unique_ids_ = 0;
  uint64_t session_ids_ = 0;
  std::unique_ptr<rocksdb::Env> legacy_;  // file calls only, over the same FileSystem
  std::array<std::unique_ptr<SimThreadPool>, Env::Priority::TOTAL> pools_;
  std::unique_ptr<shale::Mutex> threads_mu_;
  std::vector<std::unique_ptr<shale::Thread>> threads_;  // guarded by threads_mu_
};

}  // namespace shale::hosted
