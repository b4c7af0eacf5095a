// The file handles a WindowsDisk hands out: each wraps the SimDisk's handle
// and adds the Windows rules of its calls (windows_disk.h): unbuffered
// alignment, the file pointer, the valid data length, and closing (which
// may end a pending delete). Each is a MediaFile too: a media fault takes
// this layer's rules like the plain call, then goes to the handle below.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>

#include "sim/disk/disk_media.h"
#include "sim/disk/windows_state.h"

namespace shale::sim::windows_internal {
namespace {

// The SimDisk handle's media faults (every SimDisk handle is a MediaFile).
template <typename File>
MediaFile* MediaOf(File* base) {
  MediaFile* media = dynamic_cast<MediaFile*>(base);
  assert(media != nullptr);
  return media;
}

// What every handle shares: its file, its registration, its unbuffered flag.
class WinHandleCore {
 public:
  WinHandleCore(WinState* state, uint64_t id, uint64_t handle, bool unbuffered)
      : state_(state),
        id_(id),
        handle_(handle),
        unbuffered_(unbuffered),
        path_(state->files.at(id).path) {}
  ~WinHandleCore() { Close(); }
  WinHandleCore(const WinHandleCore&) = delete;
  WinHandleCore& operator=(const WinHandleCore&) = delete;

  WinState* state() const { return state_; }
  uint64_t id() const { return id_; }
  bool open() const { return state_->HandleOpen(id_, handle_); }
  bool unbuffered() const { return unbuffered_; }
  size_t alignment() const { return unbuffered_ ? state_->options.sector_bytes : 1; }
  void Enter(const char* api) const { state_->Enter(api, path_); }
  void Close() { state_->CloseHandle(id_, handle_); }

  // Unbuffered handles: offset, length and buffer address must be multiples
  // of the sector size (ERROR_INVALID_PARAMETER).
  Status CheckAligned(const char* api, uint64_t offset, uint64_t length, const void* buffer) const {
    if (!unbuffered_ || !open()) return Status::OK();
    const uint64_t sector = state_->options.sector_bytes;
    const uint64_t address = reinterpret_cast<uintptr_t>(buffer);
    if (offset % sector == 0 && length % sector == 0 && address % sector == 0) {
      return Status::OK();
    }
    return state_->Violate(
        "unbuffered alignment",
        Call(api, path_) + " at offset " + std::to_string(offset) + ", " + std::to_string(length) +
            " bytes",
        "an unbuffered handle needs offset, length and buffer address aligned to the " +
            std::to_string(sector) + "-byte sector",
        Status::InvalidArgument("unbuffered I/O not sector-aligned", path_));
  }

  const std::string& path() const { return path_; }

 private:
  WinState* const state_;
  const uint64_t id_;
  const uint64_t handle_;
  const bool unbuffered_;
  const std::string path_;  // the name it was opened by (for messages)
};

class WinSequentialFile final : public SequentialFile, public MediaFile {
 public:
  WinSequentialFile(WinState* state, uint64_t id, uint64_t handle,
                    std::unique_ptr<SequentialFile> base, bool unbuffered)
      : core_(state, id, handle, unbuffered),
        base_(std::move(base)),
        media_(MediaOf(base_.get())) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    core_.Enter("ReadFile");
    *result = Slice();
    Status s = core_.CheckAligned("ReadFile", position_, n, scratch);
    if (s.ok()) s = base_->Read(n, result, scratch);
    if (s.ok()) position_ += result->size();
    return s;
  }
  Status Skip(uint64_t n) override {
    core_.Enter("SetFilePointerEx");
    const Status s = base_->Skip(n);
    if (s.ok()) position_ += n;
    return s;
  }

  Sizes MediaSizes() const override { return media_->MediaSizes(); }
  void MarkSectorUnreadable(uint64_t sector) override { media_->MarkSectorUnreadable(sector); }

 private:
  WinHandleCore core_;
  std::unique_ptr<SequentialFile> base_;
  MediaFile* const media_;
  uint64_t position_ = 0;  // the file pointer (may pass end of file)
};

class WinRandomAccessFile final : public RandomAccessFile, public MediaFile {
 public:
  WinRandomAccessFile(WinState* state, uint64_t id, uint64_t handle,
                      std::unique_ptr<RandomAccessFile> base, bool unbuffered)
      : core_(state, id, handle, unbuffered),
        base_(std::move(base)),
        media_(MediaOf(base_.get())) {}

  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    core_.Enter("ReadFile");
    *result = Slice();
    const Status s = core_.CheckAligned("ReadFile", offset, n, scratch);
    return s.ok() ? base_->Read(offset, n, result, scratch) : s;
  }
  size_t GetRequiredBufferAlignment() const override { return core_.alignment(); }
  bool use_direct_io() const override { return core_.unbuffered(); }
  Sizes MediaSizes() const override { return media_->MediaSizes(); }
  void MarkSectorUnreadable(uint64_t sector) override { media_->MarkSectorUnreadable(sector); }

 private:
  WinHandleCore core_;
  std::unique_ptr<RandomAccessFile> base_;
  MediaFile* const media_;
};

class WinWritableFile final : public WritableFile, public MediaFile {
 public:
  WinWritableFile(WinState* state, uint64_t id, uint64_t handle, std::unique_ptr<WritableFile> base,
                  bool unbuffered, uint64_t file_pointer)
      : core_(state, id, handle, unbuffered),
        base_(std::move(base)),
        media_(MediaOf(base_.get())),
        pointer_(file_pointer) {}

  // WriteFile without an offset: writes at the file pointer.
  Status Append(const Slice& data) override { return WriteAtPointer(data, std::nullopt); }
  // WriteFile with an OVERLAPPED offset: moves the file pointer.
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    return WriteAt(data, offset, std::nullopt);
  }
  // SetFileInformationByHandle(FileEndOfFileInfo): the pointer stays.
  Status Truncate(uint64_t size) override {
    core_.Enter("SetFileInformationByHandle");
    const Status s = base_->Truncate(size);
    if (s.ok() && core_.open()) {
      uint64_t& valid = core_.state()->files.at(core_.id()).valid_data_bytes;
      valid = std::min(valid, size);
    }
    return s;
  }
  Status Flush() override {
    core_.Enter("Flush");
    return base_->Flush();
  }
  Status Sync() override {
    core_.Enter("FlushFileBuffers");
    return base_->Sync();
  }
  Status Fsync() override {
    core_.Enter("FlushFileBuffers");
    return base_->Fsync();
  }
  // SetFileInformationByHandle(FileAllocationInfo): end of file and valid
  // data length stay.
  Status Allocate(uint64_t offset, uint64_t len) override {
    core_.Enter("SetFileInformationByHandle");
    return base_->Allocate(offset, len);
  }
  Status Close() override {
    core_.Enter("CloseHandle");
    const Status s = base_->Close();
    core_.Close();
    return s;
  }
  uint64_t GetFileSize() const override { return base_->GetFileSize(); }
  size_t GetRequiredBufferAlignment() const override { return core_.alignment(); }
  bool use_direct_io() const override { return core_.unbuffered(); }

  // MediaFile: the same rules as the plain calls.
  Sizes MediaSizes() const override { return media_->MediaSizes(); }
  void MarkSectorUnreadable(uint64_t sector) override { media_->MarkSectorUnreadable(sector); }
  // Dropped pages take the end of file back with them; a pointer that was
  // at the end follows it, so the engine's next append is not blamed for a
  // gap the fault made.
  Status FailSync(const Status& error, FailedSync fate) override {
    core_.Enter("FlushFileBuffers");
    const bool at_end = pointer_ == base_->GetFileSize();
    const Status s = media_->FailSync(error, fate);
    if (at_end && core_.open()) pointer_ = base_->GetFileSize();
    return s;
  }
  Status WriteMisdirected(const Slice& data, std::optional<uint64_t> offset,
                          uint64_t landing_sector) override {
    return offset ? WriteAt(data, *offset, landing_sector) : WriteAtPointer(data, landing_sector);
  }

 private:
  // WriteFile without an offset; its bytes land in sector *landing if set.
  Status WriteAtPointer(const Slice& data, std::optional<uint64_t> landing) {
    core_.Enter("WriteFile");
    const uint64_t at = pointer_;
    Status s = core_.CheckAligned("WriteFile", at, data.size(), data.data());
    if (!s.ok()) return s;
    const uint64_t end = base_->GetFileSize();
    if (core_.open() && at != end) {
      (void)core_.state()->Violate(
          "file pointer", Call("WriteFile", core_.path()),
          "a write without an offset lands at the file pointer (offset " + std::to_string(at) +
              ", left there by an earlier positional write or end-of-file change), not at the "
              "end of file (" +
              std::to_string(end) + "): never mix positional and appending writes on one handle",
          Status::OK());
      s = landing ? media_->WriteMisdirected(data, at, *landing)
                  : base_->PositionedAppend(data, at);
    } else {
      s = landing ? media_->WriteMisdirected(data, std::nullopt, *landing) : base_->Append(data);
    }
    return Wrote(s, at, data.size());
  }
  // WriteFile with an offset; its bytes land in sector *landing if set.
  Status WriteAt(const Slice& data, uint64_t offset, std::optional<uint64_t> landing) {
    core_.Enter("WriteFile");
    Status s = core_.CheckAligned("WriteFile", offset, data.size(), data.data());
    if (s.ok()) {
      s = landing ? media_->WriteMisdirected(data, offset, *landing)
                  : base_->PositionedAppend(data, offset);
    }
    return Wrote(s, offset, data.size());
  }
  Status Wrote(const Status& s, uint64_t offset, uint64_t length) {
    if (!s.ok() || !core_.open()) return s;
    core_.state()->NoteWrite(core_.id(), offset, length);
    pointer_ = offset + length;
    return s;
  }

  WinHandleCore core_;
  std::unique_ptr<WritableFile> base_;
  MediaFile* const media_;
  uint64_t pointer_;
};

class WinFileLock final : public FileLock {
 public:
  WinFileLock(uint64_t id, uint64_t handle, std::unique_ptr<FileLock> base)
      : id_(id), handle_(handle), base_(std::move(base)) {}
  uint64_t id() const { return id_; }
  uint64_t handle() const { return handle_; }
  std::unique_ptr<FileLock> TakeBase() { return std::move(base_); }

 private:
  const uint64_t id_;
  const uint64_t handle_;
  std::unique_ptr<FileLock> base_;
};

}  // namespace

std::unique_ptr<SequentialFile> WrapSequential(WinState* state, uint64_t id, uint64_t handle,
                                               std::unique_ptr<SequentialFile> base,
                                               bool unbuffered) {
  return std::make_unique<WinSequentialFile>(state, id, handle, std::move(base), unbuffered);
}

std::unique_ptr<RandomAccessFile> WrapRandomAccess(WinState* state, uint64_t id, uint64_t handle,
                                                   std::unique_ptr<RandomAccessFile> base,
                                                   bool unbuffered) {
  return std::make_unique<WinRandomAccessFile>(state, id, handle, std::move(base), unbuffered);
}

std::unique_ptr<WritableFile> WrapWritable(WinState* state, uint64_t id, uint64_t handle,
                                           std::unique_ptr<WritableFile> base, bool unbuffered,
                                           uint64_t file_pointer) {
  return std::make_unique<WinWritableFile>(state, id, handle, std::move(base), unbuffered,
                                           file_pointer);
}

std::unique_ptr<FileLock> WrapLock(uint64_t id, uint64_t handle, std::unique_ptr<FileLock> base) {
  return std::make_unique<WinFileLock>(id, handle, std::move(base));
}

void UnwrapLock(std::unique_ptr<FileLock> lock, uint64_t* id, uint64_t* handle,
                std::unique_ptr<FileLock>* base) {
  auto* win = static_cast<WinFileLock*>(lock.get());
  *id = win->id();
  *handle = win->handle();
  *base = win->TakeBase();
}

}  // namespace shale::sim::windows_internal
