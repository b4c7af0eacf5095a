// PowerLossFs: a FileSystem over the real POSIX one that reports, to a
// PowerLossEvents sink outside the process, everything a power loss could
// undo: the names it creates, deletes and renames, the directories it
// syncs, and the files it syncs (by inode, with the size the sync made
// durable). A PowerLossLedger fed those reports can then, after the
// process is killed, cut the real files back to what a power loss at that
// moment may have left (in the spirit of RocksDB's FaultInjectionTestFS,
// whose state lives in the process, and of LazyFS, whose lives in a FUSE
// daemon; here it lives in the parent that kills the child).
//
// So that a name change can be undone, nothing is ever lost before the
// parent has decided: a delete first hard-links the file into a trash
// directory beside the DB's (named by the sink's report), and so does a
// rename over an existing file, for the file it replaces. Creating over an
// existing name deletes (into the trash) and creates anew. Trash is never
// emptied by the child: the parent removes it with the run's directory.
//
// Every report of a name change is sent before the change, and every sync
// is reported after it returns (with the size from before it started), so
// a kill between the two leaves the sink cautious, never wrong.
//
// Thread safety: as the wrapped FileSystem (safe to call concurrently);
// the sink must be too. Ownership: borrows target and sink, which outlive
// it and every handle it returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shale/env.h"
#include "shale/file_system_wrapper.h"

namespace shale::scenario {

// Where PowerLossFs reports. Methods are called from engine threads.
class PowerLossEvents {
 public:
  virtual ~PowerLossEvents() = default;
  // Name changes, before they are made (each one is a "name event").
  virtual void WillCreate(const std::string& path) = 0;
  // trash: where the file is hard-linked first (it keeps the data).
  virtual void WillDelete(const std::string& path, const std::string& trash) = 0;
  // dst_trash: where the file dst named is hard-linked first ("" if none).
  virtual void WillRename(const std::string& src, const std::string& dst,
                          const std::string& dst_trash) = 0;
  // Name events reported so far (those a SyncDir starting now covers).
  virtual uint64_t NameEventsSoFar() = 0;
  // SyncDir(dir) returned OK: the first name_events name events in dir are
  // durable.
  virtual void DirSynced(const std::string& dir, uint64_t name_events) = 0;
  // A new file with this inode exists (created, not reopened): none of its
  // bytes is durable yet, whatever a file that once had the inode synced.
  virtual void FileCreated(uint64_t inode) = 0;
  // A Sync or Fsync of the file with this inode is about to start.
  virtual void WillSync(uint64_t inode) = 0;
  // It returned OK: the file's first size_bytes bytes are durable.
  virtual void FileSynced(uint64_t inode, uint64_t size_bytes) = 0;
};

class PowerLossFs final : public FileSystemWrapper {
 public:
  // trash_dir: an existing directory on the same file system as every
  // path used through this one; trash names start with trash_tag, which no
  // other PowerLossFs on that directory uses.
  PowerLossFs(FileSystem* target, PowerLossEvents* sink, std::string trash_dir,
              std::string trash_tag)
      : FileSystemWrapper(target),
        target_(target),
        sink_(sink),
        trash_dir_(std::move(trash_dir)),
        trash_tag_(std::move(trash_tag)) {}

  // The calls that change names or make data durable are watched; every
  // other call passes straight through (FileSystemWrapper).
  Status NewWritableFile(const std::string& path, const FileOptions& opts,
                         std::unique_ptr<WritableFile>* result) override;
  Status ReopenWritableFile(const std::string& path, const FileOptions& opts,
                            std::unique_ptr<WritableFile>* result) override;
  Status DeleteFile(const std::string& path) override;
  Status RenameFile(const std::string& src, const std::string& dst) override;
  Status SyncDir(const std::string& dir) override;

 private:
  // Hard-links path to a fresh trash name, returned in *trash.
  Status LinkToTrash(const std::string& path, std::string* trash);
  // Wraps a handle the target opened at path, so its syncs are reported;
  // created: the open made a new file (reported as such).
  Status Wrap(const std::string& path, bool created, std::unique_ptr<WritableFile>* result);

  FileSystem* const target_;
  PowerLossEvents* const sink_;
  const std::string trash_dir_;
  const std::string trash_tag_;
  std::atomic<uint64_t> trash_count_{0};
};

// The inode of the file at path, or 0 if it cannot be stat'ed.
uint64_t InodeOf(const std::string& path);

}  // namespace shale::scenario
