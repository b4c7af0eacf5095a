// File names inside a DB directory, and the CURRENT-file switch.
//
//   NNNNNN.log        a write-ahead log (WAL)
//   NNNNNN.sst        a table file
//   MANIFEST-NNNNNN   a version log (VersionEdit records)
//   CURRENT           "MANIFEST-NNNNNN\n": names the live MANIFEST
//   LOCK              the DB lock file
//   LOG               the info log
//   NNNNNN.dbtmp      a temporary file (only while CURRENT is being replaced)
// NNNNNN is a decimal file number, zero-padded to at least 6 digits. All
// file numbers come from one counter (VersionSet::NewFileNumber).
//
// Thread safety: pure functions, except SetCurrentFile, which does I/O
// through the FileSystem (safe to call from any thread; callers serialize
// CURRENT switches themselves - VersionSet does).
#pragma once

#include <cstdint>
#include <string>

#include "shale/env.h"
#include "shale/status.h"
#include "util/stats_counters.h"

namespace shale {

enum class FileType : uint8_t {
  kLogFile,
  kTableFile,
  kDescriptorFile,  // MANIFEST-NNNNNN
  kCurrentFile,
  kDBLockFile,
  kInfoLogFile,
  kTempFile,
};

// Each returns dbname + "/" + the name. REQUIRES: number > 0 for numbered names.
std::string LogFileName(const std::string& dbname, uint64_t number);
std::string TableFileName(const std::string& dbname, uint64_t number);
std::string DescriptorFileName(const std::string& dbname, uint64_t number);
std::string CurrentFileName(const std::string& dbname);
std::string LockFileName(const std::string& dbname);
std::string InfoLogFileName(const std::string& dbname);
std::string TempFileName(const std::string& dbname, uint64_t number);

// Parses a bare file name (no directory). On success sets *number (0 for
// the unnumbered names) and *type and returns true; false for any name that
// is not exactly one of the forms above (including numbers that overflow
// uint64_t, signs, spaces or trailing bytes).
[[nodiscard]] bool ParseFileName(const std::string& filename, uint64_t* number, FileType* type);

// CURRENT's contents: the live MANIFEST's bare name and a newline.
std::string EncodeCurrentFile(uint64_t descriptor_number);
// Parses CURRENT's contents. On success sets *manifest_name (the bare
// name, e.g. "MANIFEST-000005") and *descriptor_number. Corruption if the
// contents do not end in a newline, or what precedes it is not a MANIFEST
// name (the message shows at most kMaxPrintableBytes of it).
[[nodiscard]] Status DecodeCurrentFile(const std::string& contents, std::string* manifest_name,
                                       uint64_t* descriptor_number);

// Bytes read from a possibly damaged file, fit for a message: printable
// ASCII as is, anything else as \xNN; past kMaxPrintableBytes, "...".
constexpr size_t kMaxPrintableBytes = 64;
std::string PrintableBytes(const std::string& bytes);

// Points CURRENT at MANIFEST-<descriptor_number>, durably:
//   1. writes "MANIFEST-NNNNNN\n" to TempFileName(dbname, descriptor_number),
//   2. Sync()s and closes it,
//   3. RenameFile(temp, CURRENT) (atomic),
//   4. SyncDir(dbname) (makes the rename durable), or, where the file
//      system has no directory sync (FileSystem::SyncDirPersistsNames),
//      SyncRenamedFile(CURRENT).
// Each step's failure is returned. If step 1-3 fails, the temp file is
// deleted (best effort) and CURRENT is unchanged. If step 4 fails, CURRENT
// names the new MANIFEST in the file system's volatile state, and after a
// power loss may name either one: callers must keep both MANIFESTs.
// stats (may be nullptr) counts the syncs.
// planted_bugs: Options::planted_bugs (tests only; this reads
// kBugSkipDirSyncAfterCurrent and kBugReuseDeletePendingName).
[[nodiscard]] Status SetCurrentFile(FileSystem* fs, const std::string& dbname,
                                    uint64_t descriptor_number, StatsCounters* stats,
                                    uint64_t planted_bugs = 0);
// SetCurrentFile in two halves, for a caller that marks the point between
// them (a crash there leaves the rename in volatile state only): steps 1-3,
// then step 4. Same errors and planted bugs as SetCurrentFile.
[[nodiscard]] Status RenameCurrentFile(FileSystem* fs, const std::string& dbname,
                                       uint64_t descriptor_number, StatsCounters* stats,
                                       uint64_t planted_bugs);
[[nodiscard]] Status SyncCurrentRename(FileSystem* fs, const std::string& dbname,
                                       StatsCounters* stats, uint64_t planted_bugs);

// Makes the rename that gave path its name durable without a directory
// sync: reopens path and Syncs it (on Windows, FlushFileBuffers commits the
// file's metadata, its name included). stats (may be nullptr) counts it.
[[nodiscard]] Status SyncRenamedFile(FileSystem* fs, const std::string& path, StatsCounters* stats);

}  // namespace shale
