// The file handles a SimDisk hands out: sequential, random-access and
// writable files, and locks. Every call runs through DiskState::RunOp, so it
// is a switch point, may fail by hook, costs latency and is traced. A handle
// from a crashed process answers DeadHandleError() to everything.
#include <algorithm>
#include <cstring>
#include <functional>

#include "sim/disk/disk_state.h"

namespace shale::sim::disk_internal {
namespace {

using Op = DiskFaultHooks::Op;

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

  OpSpec Spec(const char* name, std::optional<Op> hook, uint64_t bytes,
              uint64_t latency_ns) const {
    OpSpec spec;
    spec.name = name;
    spec.hook = hook;
    spec.path = &path_;
    spec.handle_incarnation = incarnation_;
    spec.bytes = bytes;
    spec.latency_ns = latency_ns;
    return spec;
  }

  // The hook's view of a read or data write of length bytes at *offset (read
  // when the hook is asked: a sequential file's position or an append's end).
  std::function<void(DiskFaultHooks::Request*)> Describe(const uint64_t* offset,
                                                         uint64_t length) const {
    return [this, offset, length](DiskFaultHooks::Request* request) {
      if (!open()) return;
      request->has_range = true;
      request->offset = *offset;
      request->length_bytes = length;
      request->file_size_bytes = inode()->visible.size();
      request->durable_size_bytes = inode()->durable.size();
    };
  }

  // Copies up to n visible bytes at offset into scratch, after marking the
  // sector the hook made unreadable (if any).
  Status ReadAt(uint64_t offset, size_t n, Slice* result, char* scratch,
                const DiskFaultHooks::Decision& decision) const {
    *result = Slice();
    if (!open()) return ClosedError();
    Status s = CheckAligned(direct_, offset, n, scratch);
    if (!s.ok()) return s;
    if (decision.unreadable_sector.has_value()) {
      inode()->unreadable.insert(*decision.unreadable_sector);
    }
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

class SimSequentialFile final : public SequentialFile {
 public:
  SimSequentialFile(DiskState* state, uint64_t id, const std::string& path, bool direct)
      : core_(state, id, path, direct) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    *result = Slice();
    DiskFaultHooks::Decision decision;
    OpSpec spec = core_.Spec("disk.seq_read", Op::kRead, n, core_.state()->ReadLatency(n));
    spec.describe = core_.Describe(&pos_, n);
    spec.decision = &decision;
    spec.data = result;
    return core_.state()->RunOp(spec, [&] {
      Status s = core_.ReadAt(pos_, n, result, scratch, decision);
      if (s.ok()) pos_ += result->size();
      return s;
    });
  }

  Status Skip(uint64_t n) override {
    return core_.state()->RunOp(core_.Spec("disk.seq_skip", std::nullopt, n, 0), [&] {
      if (!core_.open()) return ClosedError();
      pos_ = std::min<uint64_t>(pos_ + n, core_.inode()->visible.size());
      return Status::OK();
    });
  }

 private:
  HandleCore core_;
  uint64_t pos_ = 0;
};

class SimRandomAccessFile final : public RandomAccessFile {
 public:
  SimRandomAccessFile(DiskState* state, uint64_t id, const std::string& path, bool direct)
      : core_(state, id, path, direct) {}

  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    *result = Slice();
    DiskFaultHooks::Decision decision;
    OpSpec spec = core_.Spec("disk.pread", Op::kRead, n, core_.state()->ReadLatency(n));
    spec.describe = core_.Describe(&offset, n);
    spec.decision = &decision;
    spec.data = result;
    return core_.state()->RunOp(
        spec, [&] { return core_.ReadAt(offset, n, result, scratch, decision); });
  }
  size_t GetRequiredBufferAlignment() const override {
    return core_.direct() ? kDirectIoAlignment : 1;
  }
  bool use_direct_io() const override { return core_.direct(); }

 private:
  HandleCore core_;
};

class SimWritableFile final : public WritableFile {
 public:
  SimWritableFile(DiskState* state, uint64_t id, const std::string& path, bool direct)
      : core_(state, id, path, direct) {}

  Status Append(const Slice& data) override {
    return WriteOp("disk.append", data, std::nullopt);
  }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    return WriteOp("disk.positioned_append", data, offset);
  }
  Status Truncate(uint64_t size) override {
    DiskState* st = core_.state();
    return st->RunOp(core_.Spec("disk.truncate", Op::kWrite, size, st->MetadataLatency()), [&] {
      if (!core_.open()) return ClosedError();
      DiskState::Truncate(core_.inode(), size);
      st->Journal({{}, core_.id(), size});
      return Status::OK();
    });
  }
  Status Flush() override {
    return core_.state()->RunOp(core_.Spec("disk.flush", std::nullopt, 0, 0), [&] {
      return core_.open() ? Status::OK() : ClosedError();
    });
  }
  Status Sync() override { return SyncOp("disk.sync"); }
  Status Fsync() override { return SyncOp("disk.fsync"); }
  Status Allocate(uint64_t offset, uint64_t len) override {
    DiskState* st = core_.state();
    return st->RunOp(core_.Spec("disk.allocate", Op::kWrite, offset + len, st->MetadataLatency()),
                     [&] { return core_.open() ? Status::OK() : ClosedError(); });
  }
  Status Close() override {
    return core_.state()->RunOp(core_.Spec("disk.close", std::nullopt, 0, 0), [&] {
      if (!core_.open()) return ClosedError();
      core_.Release();
      return Status::OK();
    });
  }
  uint64_t GetFileSize() const override {
    return core_.open() ? core_.inode()->visible.size() : 0;
  }
  size_t GetRequiredBufferAlignment() const override {
    return core_.direct() ? kDirectIoAlignment : 1;
  }
  bool use_direct_io() const override { return core_.direct(); }

 private:
  // Writes at offset, or at the end of file if offset is empty.
  Status WriteOp(const char* name, const Slice& data, std::optional<uint64_t> offset) {
    DiskState* st = core_.state();
    DiskFaultHooks::Decision decision;
    uint64_t at = 0;  // where the write goes; settled when the hook is asked
    OpSpec spec = core_.Spec(name, Op::kWrite, data.size(), st->WriteLatency(data.size()));
    const auto describe = core_.Describe(&at, data.size());
    spec.describe = [&](DiskFaultHooks::Request* request) {
      if (core_.open()) at = offset.value_or(core_.inode()->visible.size());
      describe(request);
    };
    spec.decision = &decision;
    spec.data = &data;
    return st->RunOp(spec, [&] {
      if (!core_.open()) return ClosedError();
      at = offset.value_or(core_.inode()->visible.size());
      Status s = CheckAligned(core_.direct(), at, data.size(), data.data());
      if (!s.ok()) return s;
      if (decision.misdirect_to.has_value() && data.size() > 0) {
        DiskState::WriteMisdirected(core_.inode(), at, data, *decision.misdirect_to);
      } else {
        DiskState::Write(core_.inode(), at, data);
      }
      return s;
    });
  }

  // A failed (injected) sync drops the dirty pages, as Linux may.
  Status SyncOp(const char* name) {
    DiskState* st = core_.state();
    OpSpec spec = core_.Spec(name, Op::kSync, 0, st->SyncLatency());
    spec.on_injected_failure = [this](const DiskFaultHooks::Decision& d) {
      if (!core_.open()) return;
      using FailedSync = DiskFaultHooks::Decision::FailedSync;
      if (d.failed_sync == FailedSync::kDropsPages) DiskState::DropPending(core_.inode());
      if (d.failed_sync == FailedSync::kMarksClean) DiskState::MarkClean(core_.inode());
    };
    return st->RunOp(spec, [&] {
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
