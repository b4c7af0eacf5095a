// WinState: what a WindowsDisk knows beyond its SimDisk, shared by the disk
// and its handles. Internal to sim/disk; the contract is windows_disk.h.
//
// Model:
//  * files: id -> WinFile, for every file this layer has opened since the
//    last power loss. A WinFile holds the open handles (access, share mode,
//    who opened them), whether a delete is pending, and the valid data
//    length. by_path maps each current name to its WinFile; a rename moves
//    the mapping, a delete removes it.
//  * Handle ids are never reused, and a crash clears every handle, so a
//    handle of a crashed process finds itself gone and touches nothing.
//
// Thread safety: none (one simulated task runs at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "shale/env.h"
#include "sim/disk/sim_disk.h"
#include "sim/disk/windows_disk.h"
#include "sim/disk_context.h"

namespace shale::sim::windows_internal {

// CreateFile's access and share bits, as one mask type.
enum Access : uint8_t {
  kRead = WindowsDisk::kAccessRead,
  kWrite = WindowsDisk::kAccessWrite,
  kDelete = WindowsDisk::kAccessDelete,
};

struct WinHandle {
  uint8_t access = 0;
  uint8_t share = 0;
  std::string opened_by;  // FileOptions::opened_by, or "the LOCK holder"
  std::string task;       // the task that opened it
};

struct WinFile {
  std::string path;                       // current name; empty once the name is gone
  std::map<uint64_t, WinHandle> handles;  // by handle id
  bool delete_pending = false;
  uint64_t valid_data_bytes = 0;
};

class WinState {
 public:
  WinState(SimDisk* base, DiskContext* context, const WindowsDiskOptions& options);

  // The switch point every call starts with; also folds the call's name.
  void Enter(const char* call, const std::string& path);

  // Records a violation (and folds it), then returns error.
  Status Violate(const std::string& rule, const std::string& call, const std::string& detail,
                 const Status& error);

  // The WinFile named path, or nullptr.
  WinFile* Find(const std::string& path);
  // The WinFile named path, created (valid data length = the file's size)
  // if this layer has not seen it. REQUIRES: base has a file at path.
  uint64_t Track(const std::string& path);

  // Checks an open of path with access and share against its handles and
  // pending delete. OK, or the violation's error.
  Status CheckOpen(const char* api, const std::string& path, uint8_t access, uint8_t share);
  // Registers a handle on file id; returns its handle id.
  uint64_t AddHandle(uint64_t id, uint8_t access, uint8_t share, const char* opened_by);
  // Unregisters handle (if still registered); a last close ends a pending
  // delete (the base unlinks the name).
  void CloseHandle(uint64_t id, uint64_t handle);
  bool HandleOpen(uint64_t id, uint64_t handle) const;

  // The first handle of file id whose share mode lacks bits, or nullptr.
  const WinHandle* HandleNotSharing(const WinFile& file, uint8_t bits) const;
  // "by the table cache (task client0)".
  static std::string Holder(const WinHandle& handle);
  // Unmaps path (its name is gone); the WinFile stays while handles do.
  void Unmap(const std::string& path);
  // Drops WinFiles with no name and no handles.
  void Collect(uint64_t id);

  // A write of length bytes at offset on file id: charges and counts the
  // zeroing of any gap past the valid data length, then moves it.
  void NoteWrite(uint64_t id, uint64_t offset, uint64_t length);

  // Clears every handle (a process crash): pending deletes end.
  void CloseAll();
  // Forgets everything (a power loss): pending deletes never happened.
  void Forget();

  SimDisk* const base;
  DiskContext* const context;
  const WindowsDiskOptions options;
  std::map<uint64_t, WinFile> files;
  std::map<std::string, uint64_t> by_path;
  std::vector<WindowsRuleViolation> violations;
  std::function<void(const WindowsRuleViolation&)> sink;
  uint64_t zero_filled_bytes = 0;
  uint64_t pending_deletes = 0;

 private:
  uint64_t next_file_ = 1;
  uint64_t next_handle_ = 1;
};

// Normalized as SimDisk does ("/a/b", no trailing '/').
std::string NormalizePath(const std::string& path);
// "DeleteFile(/db/000012.sst)".
std::string Call(const char* api, const std::string& path);
uint64_t HashText(const std::string& text);

// Handle factories (windows_files.cc). Each wraps a base handle, registered
// as handle `handle` of file `id`.
std::unique_ptr<SequentialFile> WrapSequential(WinState* state, uint64_t id, uint64_t handle,
                                               std::unique_ptr<SequentialFile> base,
                                               bool unbuffered);
std::unique_ptr<RandomAccessFile> WrapRandomAccess(WinState* state, uint64_t id, uint64_t handle,
                                                   std::unique_ptr<RandomAccessFile> base,
                                                   bool unbuffered);
std::unique_ptr<WritableFile> WrapWritable(WinState* state, uint64_t id, uint64_t handle,
                                           std::unique_ptr<WritableFile> base, bool unbuffered,
                                           uint64_t file_pointer);
std::unique_ptr<FileLock> WrapLock(uint64_t id, uint64_t handle, std::unique_ptr<FileLock> base);
// The parts of a lock made by WrapLock.
void UnwrapLock(std::unique_ptr<FileLock> lock, uint64_t* id, uint64_t* handle,
                std::unique_ptr<FileLock>* base);

}  // namespace shale::sim::windows_internal
