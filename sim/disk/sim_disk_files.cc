// The file handles a SimDisk hands out: sequential, random-access and
// writable files, and locks. Every call runs through DiskState::RunOp, so it
// is a switch point, costs latency and is traced. A handle from a crashed
// process answers DeadHandleError() to everything. Every handle is also a
// MediaFile (disk_media.h): the media faults a decorator may cause.
#include <algorithm>
#include <cstring>
#include <functional>

#include "sim/disk/disk_state.h"

namespace shale::sim::disk_internal {
namespace {

Status ClosedError() { return Status::IOError("file already closed"); }

Status CheckAligned(bool direct, uint64_t offset, uint64_t length, const void* buffer) {
  if (!direct) return Status::OK();
  const uint64_t address = reinterpret_cast<uintptr_t>(buffer);
  if (offset % kDirectIoAlignment != 0 || length % kDirectIoAlignment != 0 ||
      address % kDirectIoAlignment != 0) {
    return Status::InvalidArgument("direct I/O: offset, length and buffer must be 4096-aligned");
  }
  return Status::OK();
}

// What every handle shares: its inode, its incarnation and whether it is
// still registered (open) on the inode.
class HandleCore {
 public:
  HandleCore(DiskState* state, uint64_t id, const std::string& path, bool direct)
      : state_(state), id_(id), path_(path), incarnation_(state->incarnation), direct_(direct) {
    ++state_->inodes.at(id_).open_handles;
  }
  ~HandleCore() { Release(); }
  HandleCore(const HandleCore&) = delete;
  HandleCore& operator=(const HandleCore&) = delete;

  DiskState* state() const { return state_; }
  bool direct() const { return direct_; }
  bool open() const { return open_ && incarnation_ == state_->incarnation; }
  // REQUIRES: open().
  Inode* inode() const { return &state_->inodes.at(id_); }
  uint64_t id() const { return id_; }

  // Unregisters from the inode (once); frees it if nothing else reaches it.
  void Release() {
    if (!open()) return;
    open_ = false;
    --inode()->open_handles;
    state_->MaybeFree(id_);
  }

  OpSpec Spec(const char* name, uint64_t bytes, uint64_t latency_ns) const {
    OpSpec spec;
    spec.name = name;
    spec.path = &path_;
    spec.handle_incarnation = incarnation_;
    spec.bytes = bytes;
    spec.latency_ns = latency_ns;
    return spec;
  }

  MediaFile::Sizes Sizes() const {
    if (!open()) return {};
    return {inode()->visible.size(), inode()->durable.size()};
  }

  void MarkSectorUnreadable(uint64_t sector) const {
    if (!open()) return;
    inode()->unreadable.insert(sector);
    state_->context->Fold(DiskState::HashString("disk.mark_unreadable"));
    state_->context->Fold(sector);
  }

  // Copies up to n visible bytes at offset into scratch.
  Status ReadAt(uint64_t offset, size_t n, Slice* result, char* scratch) const {
    *result = Slice();
    if (!open()) return ClosedError();
    Status s = CheckAligned(direct_, offset, n, scratch);
    if (!s.ok()) return s;
    const std::string& v = inode()->visible;
    const size_t k = offset >= v.size() ? 0 : std::min<uint64_t>(n, v.size() - offset);
    s = DiskState::CheckReadable(*inode(), offset, k);
    if (!s.ok()) return s;
    if (k > 0) std::memcpy(scratch, v.data() + offset, k);
    *result = Slice(scratch, k);
    return Status::OK();
  }

 private:
  DiskState* const state_;
  const uint64_t id_;
  const std::string path_;
  const uint64_t incarnation_;
  const bool direct_;
  bool open_ = true;
};

class SimSequentialFile final : public SequentialFile, public MediaFile {
 public:
  SimSequentialFile(DiskState* state, uint64_t id, const std::string& path, bool direct)
      : core_(state, id, path, direct) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    *result = Slice();
    OpSpec spec = core_.Spec("disk.seq_read", n, core_.state()->ReadLatency(n));
    spec.data = result;
    return core_.state()->RunOp(spec, [&] {
      Status s = core_.ReadAt(pos_, n, result, scratch);
      if (s.ok()) pos_ += result->size();
      return s;
    });
  }

  Status Skip(uint64_t n) override {
    return core_.state()->RunOp(core_.Spec("disk.seq_skip", n, 0), [&] {
      if (!core_.open()) return ClosedError();
      pos_ = std::min<uint64_t>(pos_ + n, core_.inode()->visible.size());
      return Status::OK();
    });
  }

  Sizes MediaSizes() const override { return core_.Sizes(); }
  void MarkSectorUnreadable(uint64_t sector) override { core_.MarkSectorUnreadable(sector); }

 private:
  HandleCore core_;
  uint64_t pos_ = 0;
};

class SimRandomAccessFile final : public RandomAccessFile, public MediaFile {
 public:
  SimRandomAccessFile(DiskState* state, uint64_t id, const std::string& path, bool direct)
      : core_(state, id, path, direct) {}

  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    *result = Slice();
    OpSpec spec = core_.Spec("disk.pread", n, core_.state()->ReadLatency(n));
    spec.data = result;
    return core_.state()->RunOp(spec, [&] { return core_.ReadAt(offset, n, result, scratch); });
  }
  size_t GetRequiredBufferAlignment() const override {
    return core_.direct() ? kDirectIoAlignment : 1;
  }
  bool use_direct_io() const override { return core_.direct(); }
  Sizes MediaSizes() const override { return core_.Sizes(); }
  void MarkSectorUnreadable(uint64_t sector) override { core_.MarkSectorUnreadable(sector); }

 private:
  HandleCore core_;
};

class SimWritableFile final : public WritableFile, public MediaFile {
 public:
  SimWritableFile(DiskState* state, uint64_t id, const std::string& path, bool direct)
      : core_(state, id, path, direct) {}

  Status Append(const Slice& data) override {
    return WriteOp("disk.append", data, std::nullopt, std::nullopt);
  }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    return WriteOp("disk.positioned_append", data, offset, std::nullopt);
  }
  Status Truncate(uint64_t size) override {
    DiskState* st = core_.state();
    return st->RunOp(core_.Spec("disk.truncate", size, st->MetadataLatency()), [&] {
      if (!core_.open()) return ClosedError();
      DiskState::Truncate(core_.inode(), size);
      st->Journal({{}, core_.id(), size});
      return Status::OK();
    });
  }
  Status Flush() override {
    return core_.state()->RunOp(core_.Spec("disk.flush", 0, 0),
                                [&] { return core_.open() ? Status::OK() : ClosedError(); });
  }
  Status Sync() override { return SyncOp("disk.sync"); }
  Status Fsync() override { return SyncOp("disk.fsync"); }
  Status Allocate(uint64_t offset, uint64_t len) override {
    DiskState* st = core_.state();
    return st->RunOp(core_.Spec("disk.allocate", offset + len, st->MetadataLatency()),
                     [&] { return core_.open() ? Status::OK() : ClosedError(); });
  }
  Status Close() override {
    return core_.state()->RunOp(core_.Spec("disk.close", 0, 0), [&] {
      if (!core_.open()) return ClosedError();
      core_.Release();
      return Status::OK();
    });
  }
  uint64_t GetFileSize() const override { return core_.open() ? core_.inode()->visible.size() : 0; }
  size_t GetRequiredBufferAlignment() const override {
    return core_.direct() ? kDirectIoAlignment : 1;
  }
  bool use_direct_io() const override { return core_.direct(); }

 private:
  // MediaFile
  Sizes MediaSizes() const override { return core_.Sizes(); }
  void MarkSectorUnreadable(uint64_t sector) override { core_.MarkSectorUnreadable(sector); }
  Status FailSync(const Status& error, FailedSync fate) override {
    DiskState* st = core_.state();
    return st->RunOp(core_.Spec("disk.sync", 0, st->SyncLatency()), [&] {
      if (!core_.open()) return ClosedError();
      if (fate == FailedSync::kDropsPages) DiskState::DropPending(core_.inode());
      if (fate == FailedSync::kMarksClean) DiskState::MarkClean(core_.inode());
      core_.state()->context->Fold(DiskState::HashString("disk.failed_sync"));
      core_.state()->context->Fold(static_cast<uint64_t>(fate));
      return error;
    });
  }
  Status WriteMisdirected(const Slice& data, std::optional<uint64_t> offset,
                          uint64_t landing_sector) override {
    return WriteOp("disk.append", data, offset, landing_sector);
  }

 private:
  // Writes at offset, or at the end of file if offset is empty; into
  // landing_sector instead, if set (MediaFile::WriteMisdirected).
  Status WriteOp(const char* name, const Slice& data, std::optional<uint64_t> offset,
                 std::optional<uint64_t> landing_sector) {
    DiskState* st = core_.state();
    OpSpec spec = core_.Spec(name, data.size(), st->WriteLatency(data.size()));
    spec.data = &data;
    return st->RunOp(spec, [&] {
      if (!core_.open()) return ClosedError();
      const uint64_t at = offset.value_or(core_.inode()->visible.size());
      Status s = CheckAligned(core_.direct(), at, data.size(), data.data());
      if (!s.ok()) return s;
      if (landing_sector.has_value() && data.size() > 0) {
        const uint64_t own = at / SimDisk::kSectorBytes;
        const uint64_t sector = *landing_sector == own ? own + 1 : *landing_sector;
        const uint64_t target = sector * SimDisk::kSectorBytes + at % SimDisk::kSectorBytes;
        DiskState::WriteMisdirected(core_.inode(), at, data, target);
        st->context->Fold(DiskState::HashString("disk.misdirected"));
        st->context->Fold(target);
      } else {
        DiskState::Write(core_.inode(), at, data);
      }
      return s;
    });
  }

  Status SyncOp(const char* name) {
    DiskState* st = core_.state();
    return st->RunOp(core_.Spec(name, 0, st->SyncLatency()), [&] {
      if (!core_.open()) return ClosedError();
      if (st->fsync_commits_metadata) st->CommitJournal(st->JournalEndForInode(core_.id()));
      DiskState::MakeDurable(core_.inode());
      st->ForgetTruncates(core_.id());
      return Status::OK();
    });
  }

  HandleCore core_;
};

class SimFileLock final : public FileLock {
 public:
  SimFileLock(const std::string& path, uint64_t incarnation)
      : path_(path), incarnation_(incarnation) {}
  const std::string& path() const { return path_; }
  uint64_t incarnation() const { return incarnation_; }

 private:
  const std::string path_;
  const uint64_t incarnation_;
};

}  // namespace

std::unique_ptr<SequentialFile> NewSequentialHandle(DiskState* state, uint64_t id,
                                                    const std::string& path, bool direct) {
  return std::make_unique<SimSequentialFile>(state, id, path, direct);
}

std::unique_ptr<RandomAccessFile> NewRandomAccessHandle(DiskState* state, uint64_t id,
                                                        const std::string& path, bool direct) {
  return std::make_unique<SimRandomAccessFile>(state, id, path, direct);
}

std::unique_ptr<WritableFile> NewWritableHandle(DiskState* state, uint64_t id,
                                                const std::string& path, bool direct) {
  return std::make_unique<SimWritableFile>(state, id, path, direct);
}

std::unique_ptr<FileLock> NewLockHandle(const std::string& path, uint64_t incarnation) {
  return std::make_unique<SimFileLock>(path, incarnation);
}

void LockDetails(const FileLock& lock, std::string* path, uint64_t* incarnation) {
  const auto& sim_lock = static_cast<const SimFileLock&>(lock);
  *path = sim_lock.path();
  *incarnation = sim_lock.incarnation();
}

}  // namespace shale::sim::disk_internal
