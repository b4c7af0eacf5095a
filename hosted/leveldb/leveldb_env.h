// LevelDbEnv: a leveldb::Env (LevelDB 1.23, Debian's libleveldb1d, used as
// shipped) over Shale's seam: files on a shale::FileSystem (a simulated
// disk wearing the fault decorator, in a campaign), time from a
// shale::Clock, background work on a shale::Runtime's threads.
//
// Crash consistency depends on what an Env syncs and when, so every call
// that matters does what LevelDB 1.23's own POSIX Env (util/env_posix.cc)
// does, call for call:
//   * a writable file buffers appends in 64 KiB of user memory and writes
//     them out when the buffer fills, on Flush, Sync and Close (a crash
//     loses what is still buffered, as a killed process does);
//   * Sync of a file whose name starts with "MANIFEST" first syncs its
//     directory, then writes the buffer out and fdatasyncs the file; no
//     other call ever syncs a directory (renames, creates and deletes are
//     never synced by the Env);
//   * NewWritableFile truncates, NewAppendableFile appends (creating);
//   * RenameFile is rename(2) and RemoveFile unlink(2), unsynced;
//   * Schedule runs work in FIFO order on one background thread, started
//     at the first Schedule; StartThread starts a thread per call;
//   * the info log appends one line per message and flushes it, unsynced.
// Two differences, neither visible to crash consistency: random-access
// files read through the file system (LevelDB maps up to 1,000 of them;
// the bytes read are the same), and CreateDir of an existing directory
// succeeds (LevelDB's mkdir fails with EEXIST, which every caller in 1.23
// ignores). Errors carry the path, as PosixError's do: a missing file is
// NotFound, anything else IOError.
//
// Ownership: the shale::Env outlives this. Thread safety: as leveldb::Env;
// in a simulation one task runs at a time.
// REQUIRES: Shutdown() before destruction, once no DB uses this Env.
#pragma once

#include <leveldb/env.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hosted/leveldb/leveldb_log_tap.h"
#include "shale/env.h"

namespace shale::hosted {

class LevelDbEnv final : public leveldb::Env {
 public:
  // planted_bugs: shale::PlantedBug bits of the hosting layer
  // (kBugHostedSyncSkipped), for checker self-tests; 0 in real runs.
  explicit LevelDbEnv(shale::Env* env, uint64_t planted_bugs = 0);
  ~LevelDbEnv() override;

  leveldb::Status NewSequentialFile(const std::string& fname,
                                    leveldb::SequentialFile** result) override;
  leveldb::Status NewRandomAccessFile(const std::string& fname,
                                      leveldb::RandomAccessFile** result) override;
  leveldb::Status NewWritableFile(const std::string& fname,
                                  leveldb::WritableFile** result) override;
  leveldb::Status NewAppendableFile(const std::string& fname,
                                    leveldb::WritableFile** result) override;
  bool FileExists(const std::string& fname) override;
  leveldb::Status GetChildren(const std::string& dir, std::vector<std::string>* result) override;
  leveldb::Status RemoveFile(const std::string& fname) override;
  leveldb::Status CreateDir(const std::string& dirname) override;
  leveldb::Status RemoveDir(const std::string& dirname) override;
  leveldb::Status GetFileSize(const std::string& fname, uint64_t* file_size) override;
  leveldb::Status RenameFile(const std::string& src, const std::string& target) override;
  leveldb::Status LockFile(const std::string& fname, leveldb::FileLock** lock) override;
  leveldb::Status UnlockFile(leveldb::FileLock* lock) override;
  void Schedule(void (*function)(void* arg), void* arg) override;
  void StartThread(void (*function)(void* arg), void* arg) override;
  leveldb::Status GetTestDirectory(std::string* path) override;
  leveldb::Status NewLogger(const std::string& fname, leveldb::Logger** result) override;
  uint64_t NowMicros() override;
  void SleepForMicroseconds(int micros) override;

  // From now on, every append to a file named "*.log" is also told to tap
  // (nullptr: none). REQUIRES: tap outlives every file opened after.
  void set_log_tap(LevelDbLogTap* tap) { tap_ = tap; }
  // From now on, each line a Logger from NewLogger writes is also given to
  // trace, without its time stamp (empty: none).
  void set_info_log_trace(std::function<void(const std::string& line)> trace) {
    info_log_trace_ = std::move(trace);
  }

  // Stops the background thread once its queue is empty, and joins every
  // thread this Env started. REQUIRES: called from a task of the runtime;
  // no DB uses this Env any more; at most once.
  void Shutdown();

 private:
  struct Work {
    void (*function)(void*);
    void* arg;
  };
  void BackgroundMain();

  shale::Env* const env_;
  const uint64_t planted_bugs_;
  std::unique_ptr<shale::Mutex> mu_;
  std::unique_ptr<shale::CondVar> work_cv_;
  std::deque<Work> queue_;                               // guarded by mu_
  bool background_started_ = false;                      // guarded by mu_
  bool shutting_down_ = false;                           // guarded by mu_
  std::vector<std::unique_ptr<shale::Thread>> threads_;  // guarded by mu_
  std::function<void(const std::string& line)> info_log_trace_;
  bool shut_down_ = false;
  LevelDbLogTap* tap_ = nullptr;
};

// Converts a Shale file-system status to the one LevelDB's POSIX Env
// returns for the same failure: NotFound for a missing path, IOError
// otherwise, each naming context.
leveldb::Status ToLevelDbStatus(const shale::Status& status, const std::string& context);

}  // namespace shale::hosted
