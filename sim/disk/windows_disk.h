// WindowsDisk: the NTFS rules a Windows port of an engine must keep, layered
// over a SimDisk. The SimDisk below keeps the inodes, the page cache, the
// metadata journal, crashes and injected faults; this layer adds what Win32
// and NTFS do differently, reports every call that breaks a rule, and then
// behaves as Windows would (the call fails, or the data goes where Windows
// puts it).
//
// Each rule, with the Windows behaviour it follows:
//  * Share modes (CreateFile: dwDesiredAccess, dwShareMode). Every open
//    takes an access (read, write, delete) and a share mode. An open whose
//    access an existing handle's share mode does not allow, or whose share
//    mode does not allow an existing handle's access, fails with
//    ERROR_SHARING_VIOLATION. The engine's files are opened for read or
//    write and always share read and write (RocksDB's port relaxed its
//    share modes to nearly everything for this reason); they share delete
//    only if FileOptions::share_delete. The LOCK file is held open, shared
//    for read and write but not delete.
//  * Delete of an open file (DeleteFile; FILE_DISPOSITION_INFO). Deleting a
//    file that some handle holds without FILE_SHARE_DELETE fails with a
//    sharing violation: RocksDB's "The process cannot access the file
//    because it is being used by another process" when it deletes a table
//    it still holds in its table cache. With share-delete on every handle
//    the delete succeeds but leaves the file *delete pending*: the name
//    stays in the directory (listed, sized), opening or creating it fails
//    with ERROR_ACCESS_DENIED, a second delete fails the same way, and the
//    name goes when the last handle closes. Nothing of a pending delete is
//    on disk: a power loss before that close keeps the file; a process
//    crash closes every handle, which ends the delete.
//  * POSIX-semantics delete (FILE_DISPOSITION_FLAG_POSIX_SEMANTICS, the
//    default on NTFS since Windows 10 1903), if WindowsDiskOptions::
//    posix_delete: with share-delete on every handle, the name goes at once
//    and the handles keep the data, as on Linux. Without share-delete the
//    delete still fails.
//  * Rename (MoveFileEx). Renaming a file some handle holds without
//    share-delete fails (sharing violation). Renaming onto an existing name
//    needs MOVEFILE_REPLACE_EXISTING (else ERROR_ALREADY_EXISTS), and fails
//    with ERROR_ACCESS_DENIED if the target is open. FileSystem::RenameFile
//    is MoveFileEx with the replace flag.
//  * Unbuffered I/O (FILE_FLAG_NO_BUFFERING, FileOptions::use_direct_io).
//    Offset, length and buffer address must be multiples of the volume's
//    sector size (WindowsDiskOptions::sector_bytes: 512 or 4096), else
//    ERROR_INVALID_PARAMETER (InvalidArgument). A write padded to a whole
//    sector leaves the padding in the file, visible to readers, until the
//    writer sets end-of-file (Truncate).
//  * Valid data length and preallocation (SetFileInformationByHandle with
//    FileAllocationInfo; SetFileValidData). Allocate reserves space without
//    moving end-of-file and without zeroing it. NTFS keeps a valid data
//    length per file: bytes past it read as zeros, and a write that starts
//    past it makes the file system zero the gap first. This layer charges
//    that zeroing (zero_fill_ns_per_kib of simulated time per KiB) and
//    counts it (zero_filled_bytes). Extending end-of-file (Truncate to a
//    larger size) does not move the valid data length.
//  * File pointer (ReadFile/WriteFile with an OVERLAPPED offset; the port
//    notes: "the file pointer is not returned to its original position").
//    Every handle has a file pointer. PositionedAppend is WriteFile with an
//    offset and moves the pointer past what it wrote; Append is WriteFile
//    without one and writes AT the pointer, not at the end; Truncate is
//    SetFileInformationByHandle(FileEndOfFileInfo) and leaves the pointer
//    where it was. An Append whose pointer is not at end of file (a
//    positional write or a truncate moved it) breaks the FileSystem
//    contract: it is reported, and the data lands at the pointer.
//  * Durability (FlushFileBuffers). Sync and Fsync make the file's data and
//    metadata durable: they commit the metadata journal up to the file's
//    own last change. There is no directory sync: SyncDir is accepted and
//    does nothing (SyncDirPersistsNames() is false). Creates, renames,
//    deletes and end-of-file changes are journaled by the SimDisk below and
//    reach the disk in call order: a power loss keeps an in-order prefix of
//    them. Unflushed data is lost as on the SimDisk (sector subsets, torn,
//    garbage).
//
// Violations: every call that breaks a rule is recorded (violations()) and
// passed to the sink, naming the rule, the call, the path, the part of the
// engine holding a conflicting handle (FileOptions::opened_by) and the task
// that made the call, e.g. "DeleteFile(/db/000012.sst): open without
// share-delete by the table cache". The call then fails as on Windows (or,
// for the file pointer, writes where Windows would).
//
// Every call makes one switch point here (the SimDisk below makes none), so
// a rule check and the effect it guards are one atomic step. Latency and
// the trace come from the SimDisk; this layer folds its own decisions
// (violations, pending deletes, zero fills) into the trace. Injected faults
// come from a decorator over this layer (faults/fault_injecting_fs.h):
// every handle is a MediaFile that applies this layer's rules to the call
// and passes the media fault to the SimDisk's handle below, and the disk is
// a DiskMedia over the SimDisk's durable data. A pending delete that ends
// when a handle closes is a side effect of the close, which no fault fails.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: borrows the SimDisk and the context, which must outlive it;
// handles it returns must not outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shale/env.h"
#include "sim/disk/sim_disk.h"
#include "sim/disk_context.h"

namespace shale::sim {

namespace windows_internal {
class WinState;
}

struct WindowsDiskOptions {
  // The volume's sector size: unbuffered I/O aligns to it. 512 or 4096.
  uint32_t sector_bytes = 4096;
  // DeleteFile uses POSIX semantics (see the file comment).
  bool posix_delete = false;
  // Simulated time to zero one KiB past the valid data length.
  uint64_t zero_fill_ns_per_kib = 500;
};

// One call that broke a Windows rule.
struct WindowsRuleViolation {
  std::string rule;    // "share mode", "delete of an open file", "delete pending", ...
  std::string call;    // "DeleteFile(/db/000012.sst)"
  std::string detail;  // "open without share-delete by the table cache"
  std::string task;    // the task that made the call; may be empty
  // "DeleteFile(/db/000012.sst): open without share-delete by the table
  // cache [rule: delete of an open file; called by task compaction]"
  std::string ToString() const;
};

class WindowsDisk final : public FileSystem, public DiskMedia {
 public:
  // Turns off base's switch points (this layer makes them) and makes its
  // file syncs commit the metadata journal (FlushFileBuffers).
  // REQUIRES: options.sector_bytes is 512 or 4096.
  WindowsDisk(SimDisk* base, DiskContext* context, const WindowsDiskOptions& options);
  ~WindowsDisk() override;

  // ---- FileSystem (env.h), with the rules above
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
  bool SyncDirPersistsNames() const override { return false; }
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status UnlockFile(std::unique_ptr<FileLock> lock) override;

  // MoveFileEx: RenameFile is MoveFile(src, dst, true).
  Status MoveFile(const std::string& src, const std::string& dst, bool replace_existing);

  // CreateFile of an existing file with any access and share mode (bits of
  // kAccessRead, kAccessWrite, kAccessDelete), held until CloseRaw: the
  // share-mode rule in full, for tests and tools (the engine's opens go
  // through the FileSystem calls). *handle is valid until CloseRaw or a crash.
  static constexpr uint8_t kAccessRead = 1, kAccessWrite = 2, kAccessDelete = 4;
  struct RawHandle {
    uint64_t file = 0;
    uint64_t handle = 0;
  };
  Status OpenRaw(const std::string& path, uint8_t access, uint8_t share, const char* opened_by,
                 RawHandle* handle);
  void CloseRaw(const RawHandle& handle);

  // ---- crashes (use these, not the base's)
  // Every handle closes (the OS closes a dead process's handles), which
  // ends every pending delete; then base->ProcessCrash().
  void ProcessCrash();
  // Pending deletes are forgotten (they never reached the disk); then
  // base->PowerLoss(survive_one_in).
  void PowerLoss(uint64_t survive_one_in, std::optional<size_t> journal_kept = std::nullopt);

  // ---- DiskMedia: the SimDisk's durable data
  std::vector<DurableFile> DurableFiles() const override;
  Status ReadDurable(const std::string& path, std::string* data) const override;
  Status CorruptDurable(const std::string& path, uint64_t byte_offset, int bit) override;

  // ---- what happened
  void set_violation_sink(std::function<void(const WindowsRuleViolation&)> sink);
  const std::vector<WindowsRuleViolation>& violations() const;
  // Whether path names a file that is delete pending.
  bool DeletePending(const std::string& path) const;
  // Bytes zeroed because a write started past the valid data length.
  uint64_t zero_filled_bytes() const;
  // Deletes that left a file delete pending.
  uint64_t pending_deletes() const;
  const WindowsDiskOptions& options() const;

 private:
  // One CreateFile of path with access: the switch point, the share-mode and
  // pending-delete checks, open_base(normalized path, &base) on the SimDisk,
  // then the handle registered and *result = wrap(file id, handle id, base).
  template <typename File, typename OpenBase, typename Wrap>
  Status OpenFile(const std::string& path, const FileOptions& opts, uint8_t access,
                  const OpenBase& open_base, const Wrap& wrap, std::unique_ptr<File>* result);

  std::unique_ptr<windows_internal::WinState> state_;
};

}  // namespace shale::sim
