// RocksDbFileSystem: a rocksdb::FileSystem (RocksDB 7.8.3, Debian's
// librocksdb7.8, used as shipped) over a shale::FileSystem: a simulated
// disk wearing the fault decorator, in a campaign.
//
// Every call that crash consistency depends on does what RocksDB's own
// POSIX file system (env/fs_posix.cc, env/io_posix.cc) does; the file
// handles' rules are in rocksdb_files.h. Here:
//   * NewWritableFile creates or truncates; ReopenWritableFile appends;
//     ReuseWritableFile renames the old log to the new name (unsynced) and
//     writes over it from offset 0;
//   * RenameFile is rename(2), DeleteFile unlink(2), CreateDir mkdir(2)
//     (IOError if the name exists), none of them synced: a directory is
//     made durable only by its FSDirectory's Fsync, when RocksDB asks;
//   * GetChildren lists in name order (the file system's), without "."
//     and "..", and FileExists answers NotFound for a missing file;
//   * LockFile takes the file system's exclusive lock, so a second Open of
//     the same DB fails as RocksDB's does;
//   * the info log (NewLogger) appends each line as it is logged, never
//     synced, stamped with the simulated time; the digits of every "0x"
//     number in it (RocksDB logs its objects' addresses) are masked, since
//     a file's bytes reach the trace hash.
// What it leaves at RocksDB's defaults: GetFreeSpace, LinkFile,
// NumFileLinks, NewRandomRWFile and Truncate by name are not supported (so
// no-space recovery never starts its thread, and the features that need
// them say so), and a file's modification time is NotSupported.
//
// Ownership: the shale::FileSystem and Clock outlive this. Thread safety:
// as rocksdb::FileSystem; in a simulation one task runs at a time.
#pragma once

#include <rocksdb/file_system.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hosted/rocksdb/rocksdb_files.h"
#include "shale/env.h"

namespace shale::hosted {

// Where a traced run's info log lines go (see set_info_log_trace).
using InfoLogTrace = std::function<void(const std::string& line)>;

class RocksDbFileSystem final : public rocksdb::FileSystem {
 public:
  RocksDbFileSystem(shale::FileSystem* fs, shale::Clock* clock) : fs_(fs), clock_(clock) {}

  const char* Name() const override { return "ShaleFileSystem"; }

  rocksdb::IOStatus NewSequentialFile(const std::string& fname, const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& fname,
                                        const rocksdb::FileOptions& options,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                        rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname,
                                       const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus FileExists(const std::string& fname, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetChildren(const std::string& dir, const rocksdb::IOOptions& options,
                                std::vector<std::string>* result,
                                rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& dirname,
                                       const rocksdb::IOOptions& options,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFileSize(const std::string& fname, const rocksdb::IOOptions& options,
                                uint64_t* file_size, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFileModificationTime(const std::string& fname,
                                            const rocksdb::IOOptions& options, uint64_t* file_mtime,
                                            rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LockFile(const std::string& fname, const rocksdb::IOOptions& options,
                             rocksdb::FileLock** lock, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus UnlockFile(rocksdb::FileLock* lock, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetTestDirectory(const rocksdb::IOOptions& options, std::string* path,
                                     rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewLogger(const std::string& fname, const rocksdb::IOOptions& options,
                              std::shared_ptr<rocksdb::Logger>* result,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetAbsolutePath(const std::string& db_path, const rocksdb::IOOptions& options,
                                    std::string* output_path,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus IsDirectory(const std::string& path, const rocksdb::IOOptions& options,
                                bool* is_dir, rocksdb::IODebugContext* dbg) override;

  // The first error a file this file system opened for writing returned
  // ("" if none): what a later "Writer has previous error." stands for.
  const std::string& first_write_error() const { return write_errors_.first; }

  // Where the lines of info logs opened from now on go too, as "rocksdb
  // LOG: <line>" (a run's trace; never hashed). REQUIRES: before Open.
  void set_info_log_trace(InfoLogTrace trace) { info_log_trace_ = std::move(trace); }
  // The hosting layer's planted bugs its files and renames carry
  // (planted_hosting.h); 0 in real runs. REQUIRES: before Open.
  void set_planted_bugs(uint64_t planted_bugs) { planted_bugs_ = planted_bugs; }

 private:
  // NewWritableFile (truncating) or ReopenWritableFile (appending).
  rocksdb::IOStatus OpenWritable(const std::string& fname, const rocksdb::FileOptions& options,
                                 bool reopen, std::unique_ptr<rocksdb::FSWritableFile>* result);

  shale::FileSystem* const fs_;
  shale::Clock* const clock_;
  WriteErrors write_errors_;
  InfoLogTrace info_log_trace_;
  uint64_t planted_bugs_ = 0;
};

}  // namespace shale::hosted
