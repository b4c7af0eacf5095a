// WindowsDisk's FileSystem calls (the rules are in windows_disk.h).
#include "sim/disk/windows_disk.h"

#include "sim/disk/windows_state.h"

namespace shale::sim {

using windows_internal::Access;
using windows_internal::Call;
using windows_internal::NormalizePath;
using windows_internal::WinFile;

namespace {

// The engine's files share read and write always, delete if asked.
uint8_t ShareOf(const FileOptions& opts) {
  return Access::kRead | Access::kWrite | (opts.share_delete ? Access::kDelete : 0);
}

// The base opens buffered: this layer checks unbuffered alignment itself
// (against its own sector size).
FileOptions Buffered(const FileOptions& opts) {
  FileOptions base = opts;
  base.use_direct_io = false;
  return base;
}

}  // namespace

std::string WindowsRuleViolation::ToString() const {
  return call + ": " + detail + " [rule: " + rule +
         (task.empty() ? "" : "; called by task " + task) + "]";
}

WindowsDisk::WindowsDisk(SimDisk* base, DiskContext* context, const WindowsDiskOptions& options)
    : state_(std::make_unique<windows_internal::WinState>(base, context, options)) {
  base->set_switch_points(false);
  base->set_fsync_commits_metadata(true);
}

WindowsDisk::~WindowsDisk() = default;

template <typename File, typename OpenBase, typename Wrap>
Status WindowsDisk::OpenFile(const std::string& path, const FileOptions& opts, uint8_t access,
                             const OpenBase& open_base, const Wrap& wrap,
                             std::unique_ptr<File>* result) {
  const std::string p = NormalizePath(path);
  state_->Enter("CreateFile", p);
  Status s = state_->CheckOpen("CreateFile", p, access, ShareOf(opts));
  std::unique_ptr<File> base;
  if (s.ok()) s = open_base(p, &base);
  if (!s.ok()) return s;
  const uint64_t id = state_->Track(p);
  const uint64_t handle = state_->AddHandle(id, access, ShareOf(opts), opts.opened_by);
  *result = wrap(id, handle, std::move(base));
  return s;
}

Status WindowsDisk::NewSequentialFile(const std::string& path, const FileOptions& opts,
                                      std::unique_ptr<SequentialFile>* result) {
  return OpenFile(
      path, opts, Access::kRead,
      [&](const std::string& p, std::unique_ptr<SequentialFile>* base) {
        return state_->base->NewSequentialFile(p, Buffered(opts), base);
      },
      [&](uint64_t id, uint64_t handle, std::unique_ptr<SequentialFile> base) {
        return windows_internal::WrapSequential(state_.get(), id, handle, std::move(base),
                                                opts.use_direct_io);
      },
      result);
}

Status WindowsDisk::NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                                        std::unique_ptr<RandomAccessFile>* result) {
  return OpenFile(
      path, opts, Access::kRead,
      [&](const std::string& p, std::unique_ptr<RandomAccessFile>* base) {
        return state_->base->NewRandomAccessFile(p, Buffered(opts), base);
      },
      [&](uint64_t id, uint64_t handle, std::unique_ptr<RandomAccessFile> base) {
        return windows_internal::WrapRandomAccess(state_.get(), id, handle, std::move(base),
                                                  opts.use_direct_io);
      },
      result);
}

// CREATE_ALWAYS: a new, empty file (valid data length 0); pointer at 0.
Status WindowsDisk::NewWritableFile(const std::string& path, const FileOptions& opts,
                                    std::unique_ptr<WritableFile>* result) {
  return OpenFile(
      path, opts, Access::kWrite,
      [&](const std::string& p, std::unique_ptr<WritableFile>* base) {
        return state_->base->NewWritableFile(p, Buffered(opts), base);
      },
      [&](uint64_t id, uint64_t handle, std::unique_ptr<WritableFile> base) {
        state_->files.at(id).valid_data_bytes = 0;
        return windows_internal::WrapWritable(state_.get(), id, handle, std::move(base),
                                              opts.use_direct_io, 0);
      },
      result);
}

// OPEN_ALWAYS, then the pointer moved to the end (appending resumes there).
Status WindowsDisk::ReopenWritableFile(const std::string& path, const FileOptions& opts,
                                       std::unique_ptr<WritableFile>* result) {
  return OpenFile(
      path, opts, Access::kWrite,
      [&](const std::string& p, std::unique_ptr<WritableFile>* base) {
        return state_->base->ReopenWritableFile(p, Buffered(opts), base);
      },
      [&](uint64_t id, uint64_t handle, std::unique_ptr<WritableFile> base) {
        const uint64_t end = base->GetFileSize();
        return windows_internal::WrapWritable(state_.get(), id, handle, std::move(base),
                                              opts.use_direct_io, end);
      },
      result);
}

// GetFileAttributesEx opens the file: a pending delete denies it.
Status WindowsDisk::FileExists(const std::string& path) {
  const std::string p = NormalizePath(path);
  state_->Enter("GetFileAttributesEx", p);
  const Status s = state_->CheckOpen("GetFileAttributesEx", p, 0, 0xff);
  return s.ok() ? state_->base->FileExists(p) : s;
}

// FindFirstFile/FindNextFile: delete-pending names are still listed.
Status WindowsDisk::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  const std::string p = NormalizePath(dir);
  state_->Enter("FindFirstFile", p);
  return state_->base->GetChildren(p, names);
}

Status WindowsDisk::GetFileSize(const std::string& path, uint64_t* size) {
  const std::string p = NormalizePath(path);
  state_->Enter("GetFileAttributesEx", p);
  const Status s = state_->CheckOpen("GetFileAttributesEx", p, 0, 0xff);
  return s.ok() ? state_->base->GetFileSize(p, size) : s;
}

Status WindowsDisk::DeleteFile(const std::string& path) {
  const std::string p = NormalizePath(path);
  state_->Enter("DeleteFile", p);
  WinFile* f = state_->Find(p);
  if (f != nullptr && f->delete_pending) {
    return Status::IOError("access denied (delete pending)", p);  // deleting again: no harm
  }
  if (f != nullptr && !f->handles.empty()) {
    const windows_internal::WinHandle* h = state_->HandleNotSharing(*f, Access::kDelete);
    if (h != nullptr) {
      return state_->Violate("delete of an open file", Call("DeleteFile", p),
                             "open without share-delete " + state_->Holder(*h),
                             Status::IOError("sharing violation", p));
    }
    if (!state_->options.posix_delete) {
      f->delete_pending = true;
      state_->pending_deletes++;
      state_->context->Fold(windows_internal::HashText("windows.delete_pending"));
      return Status::OK();
    }
  }
  const Status s = state_->base->DeleteFile(p);
  if (s.ok()) state_->Unmap(p);
  return s;
}

Status WindowsDisk::RenameFile(const std::string& src, const std::string& dst) {
  return MoveFile(src, dst, /*replace_existing=*/true);
}

Status WindowsDisk::MoveFile(const std::string& src, const std::string& dst,
                             bool replace_existing) {
  const std::string from = NormalizePath(src);
  const std::string to = NormalizePath(dst);
  state_->Enter("MoveFileEx", from);
  const std::string call = Call("MoveFileEx", from + " -> " + to);
  if (WinFile* f = state_->Find(from)) {
    if (f->delete_pending) {
      return state_->Violate("delete pending", call, "the source is delete pending",
                             Status::IOError("access denied (delete pending)", from));
    }
    if (const auto* h = state_->HandleNotSharing(*f, Access::kDelete)) {
      return state_->Violate("rename of an open file", call,
                             "the source is open without share-delete " + state_->Holder(*h),
                             Status::IOError("sharing violation", from));
    }
  }
  if (from != to && state_->base->FileExists(to).ok()) {
    if (!replace_existing) {
      return state_->Violate("rename over an existing name", call,
                             "the target exists and MOVEFILE_REPLACE_EXISTING is not set",
                             Status::IOError("already exists", to));
    }
    if (WinFile* t = state_->Find(to); t != nullptr && (t->delete_pending || !t->handles.empty())) {
      const std::string why =
          t->delete_pending ? "the target is delete pending"
                            : "the target is open " + state_->Holder(t->handles.begin()->second);
      return state_->Violate("rename onto an open file", call, why,
                             Status::IOError("access denied", to));
    }
  }
  const Status s = state_->base->RenameFile(from, to);
  if (!s.ok() || from == to) return s;
  state_->Unmap(to);
  const auto it = state_->by_path.find(from);
  if (it != state_->by_path.end()) {
    const uint64_t id = it->second;
    state_->by_path.erase(it);
    state_->files.at(id).path = to;
    state_->by_path[to] = id;
  }
  return s;
}

Status WindowsDisk::CreateDirIfMissing(const std::string& dir) {
  const std::string p = NormalizePath(dir);
  state_->Enter("CreateDirectory", p);
  return state_->base->CreateDirIfMissing(p);
}

Status WindowsDisk::DeleteDir(const std::string& dir) {
  const std::string p = NormalizePath(dir);
  state_->Enter("RemoveDirectory", p);
  return state_->base->DeleteDir(p);
}

// No directory sync on Windows: accepted, does nothing.
Status WindowsDisk::SyncDir(const std::string& dir) {
  state_->Enter("SyncDir (no-op)", NormalizePath(dir));
  return Status::OK();
}

// The LOCK file is held open (read and write shared, delete not) for as
// long as the lock is held.
Status WindowsDisk::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  const std::string p = NormalizePath(path);
  state_->Enter("LockFileEx", p);
  const uint8_t rw = Access::kRead | Access::kWrite;
  Status s = state_->CheckOpen("CreateFile", p, rw, rw);
  std::unique_ptr<FileLock> base;
  if (s.ok()) s = state_->base->LockFile(p, &base);
  if (!s.ok()) return s;
  const uint64_t id = state_->Track(p);
  const uint64_t handle = state_->AddHandle(id, rw, rw, "the LOCK holder");
  *lock = windows_internal::WrapLock(id, handle, std::move(base));
  return s;
}

Status WindowsDisk::UnlockFile(std::unique_ptr<FileLock> lock) {
  if (lock == nullptr) return Status::InvalidArgument("UnlockFile: null lock");
  uint64_t id = 0;
  uint64_t handle = 0;
  std::unique_ptr<FileLock> base;
  windows_internal::UnwrapLock(std::move(lock), &id, &handle, &base);
  state_->Enter("UnlockFileEx", "");
  const Status s = state_->base->UnlockFile(std::move(base));
  state_->CloseHandle(id, handle);
  return s;
}

void WindowsDisk::ProcessCrash() {
  state_->base->ProcessCrash();
  state_->CloseAll();
}

void WindowsDisk::PowerLoss(uint64_t survive_one_in, std::optional<size_t> journal_kept) {
  state_->Forget();
  state_->base->PowerLoss(survive_one_in, journal_kept);
}

Status WindowsDisk::OpenRaw(const std::string& path, uint8_t access, uint8_t share,
                            const char* opened_by, RawHandle* handle) {
  const std::string p = NormalizePath(path);
  state_->Enter("CreateFile", p);
  Status s = state_->CheckOpen("CreateFile", p, access, share);
  if (s.ok()) s = state_->base->FileExists(p);
  if (!s.ok()) return s;
  handle->file = state_->Track(p);
  handle->handle = state_->AddHandle(handle->file, access, share, opened_by);
  return s;
}

void WindowsDisk::CloseRaw(const RawHandle& handle) {
  state_->CloseHandle(handle.file, handle.handle);
}

void WindowsDisk::set_violation_sink(std::function<void(const WindowsRuleViolation&)> sink) {
  state_->sink = std::move(sink);
}

const std::vector<WindowsRuleViolation>& WindowsDisk::violations() const {
  return state_->violations;
}

bool WindowsDisk::DeletePending(const std::string& path) const {
  const WinFile* f = state_->Find(NormalizePath(path));
  return f != nullptr && f->delete_pending;
}

uint64_t WindowsDisk::zero_filled_bytes() const { return state_->zero_filled_bytes; }
uint64_t WindowsDisk::pending_deletes() const { return state_->pending_deletes; }
const WindowsDiskOptions& WindowsDisk::options() const { return state_->options; }

std::vector<DiskMedia::DurableFile> WindowsDisk::DurableFiles() const {
  return state_->base->DurableFiles();
}
Status WindowsDisk::ReadDurable(const std::string& path, std::string* data) const {
  return state_->base->ReadDurable(path, data);
}
Status WindowsDisk::CorruptDurable(const std::string& path, uint64_t byte_offset, int bit) {
  return state_->base->CorruptDurable(path, byte_offset, bit);
}

}  // namespace shale::sim
