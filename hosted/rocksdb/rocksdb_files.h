// The file handles of RocksDbFileSystem (rocksdb_file_system.h): RocksDB
// 7.8.3's FSSequentialFile, FSRandomAccessFile, FSWritableFile and
// FSDirectory over a shale::FileSystem's files, doing at each call what
// RocksDB's own POSIX handles (env/io_posix.cc) do where crash consistency
// depends on it:
//   * Append writes straight to the file system: RocksDB buffers in its own
//     WritableFileWriter above the file, never below it. It writes at the
//     handle's own offset, as write(2) on RocksDB's fd does: when a failed
//     fsync dropped the file's unsynced pages, the file's end moves back
//     but the next append still lands where the last one ended, so the
//     dropped bytes read as a hole of zeros, not as the next record;
//   * Flush does nothing; Sync is fdatasync, Fsync is fsync; Close makes
//     nothing durable, and cuts a file that was prepared for preallocation
//     (Allocate, which reserves space only with allow_fallocate) back to
//     what was written, ignoring a failure to;
//   * RangeSync (bytes_per_sync) only starts writeback, as sync_file_range
//     does: never a durability point;
//   * a reused (recycled) log is written from offset 0 over its old bytes,
//     which stay past what is written, as with an fd opened without
//     O_TRUNC;
//   * a directory's Fsync is fsync of the directory.
// Errors carry the file's path, as RocksDB's IOError(context, path) does:
// a missing path is PathNotFound, anything else IOError (NoSpace kept).
//
// Ownership: each handle owns its shale file. Thread safety: as the
// rocksdb interfaces; in a simulation one task runs at a time.
#pragma once

#include <rocksdb/file_system.h>

#include <memory>
#include <string>

#include "shale/env.h"

namespace shale::hosted {

// What the writable files of one file system have failed with: the first
// error any of them returned, as RocksDB was given it ("" if none). RocksDB
// remembers a failed write in its file writer and later answers only
// "Writer has previous error."; this is the evidence of where that came
// from. Thread safety: as the handles (one task at a time).
struct WriteErrors {
  std::string first;
};

// The status RocksDB's POSIX file system returns for the same failure.
rocksdb::IOStatus ToRocksDbIOStatus(const shale::Status& status, const std::string& path);

std::unique_ptr<rocksdb::FSSequentialFile> NewRocksDbSequentialFile(
    std::string path, std::unique_ptr<shale::SequentialFile> file);
std::unique_ptr<rocksdb::FSRandomAccessFile> NewRocksDbRandomAccessFile(
    std::string path, std::unique_ptr<shale::RandomAccessFile> file);
// reused: a recycled log, written from offset 0 (see above). Each error the
// handle returns is noted in *errors (which outlives it). sync_skipped: the
// planted hosting bug (planted_hosting.h), Sync and Fsync acknowledged
// without syncing; false in real runs.
std::unique_ptr<rocksdb::FSWritableFile> NewRocksDbWritableFile(
    std::string path, std::unique_ptr<shale::WritableFile> file,
    const rocksdb::FileOptions& options, bool reused, WriteErrors* errors,
    bool sync_skipped = false);
std::unique_ptr<rocksdb::FSDirectory> NewRocksDbDirectory(shale::FileSystem* fs, std::string path);

}  // namespace shale::hosted
