#include "scenarios/real_backend/power_loss_fs.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace shale::scenario {

namespace {

// A handle whose Sync and Fsync are reported to the sink.
class ReportingFile final : public WritableFile {
 public:
  ReportingFile(std::unique_ptr<WritableFile> target, PowerLossEvents* sink, uint64_t inode)
      : target_(std::move(target)), sink_(sink), inode_(inode) {}

  Status Append(const Slice& data) override { return target_->Append(data); }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    return target_->PositionedAppend(data, offset);
  }
  Status Truncate(uint64_t size) override { return target_->Truncate(size); }
  Status Flush() override { return target_->Flush(); }
  Status Sync() override {
    return Reported([this] { return target_->Sync(); });
  }
  Status Fsync() override {
    return Reported([this] { return target_->Fsync(); });
  }
  Status Allocate(uint64_t offset, uint64_t len) override { return target_->Allocate(offset, len); }
  Status Close() override { return target_->Close(); }
  uint64_t GetFileSize() const override { return target_->GetFileSize(); }
  size_t GetRequiredBufferAlignment() const override {
    return target_->GetRequiredBufferAlignment();
  }
  bool use_direct_io() const override { return target_->use_direct_io(); }

 private:
  // The size before the sync starts is what it makes durable: bytes
  // appended meanwhile (by another thread) may miss it.
  template <typename SyncFn>
  Status Reported(const SyncFn& sync) {
    const uint64_t size = target_->GetFileSize();
    sink_->WillSync(inode_);
    const Status s = sync();
    if (s.ok()) sink_->FileSynced(inode_, size);
    return s;
  }

  std::unique_ptr<WritableFile> target_;
  PowerLossEvents* const sink_;
  const uint64_t inode_;
};

}  // namespace

uint64_t InodeOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_ino);
}

Status PowerLossFs::LinkToTrash(const std::string& path, std::string* trash) {
  *trash = trash_dir_ + "/" + trash_tag_ + "-" + std::to_string(trash_count_.fetch_add(1));
  if (::link(path.c_str(), trash->c_str()) != 0) {
    return Status::IOError(path + ": link into the trash: " + std::strerror(errno));
  }
  return Status::OK();
}

Status PowerLossFs::Wrap(const std::string& path, bool created,
                         std::unique_ptr<WritableFile>* result) {
  const uint64_t inode = InodeOf(path);
  if (inode == 0) return Status::IOError(path + ": stat after open: " + std::strerror(errno));
  if (created) sink_->FileCreated(inode);
  *result = std::make_unique<ReportingFile>(std::move(*result), sink_, inode);
  return Status::OK();
}

Status PowerLossFs::NewWritableFile(const std::string& path, const FileOptions& opts,
                                    std::unique_ptr<WritableFile>* result) {
  // Truncating in place could not be undone: the old file goes to the
  // trash, and a new one takes the name.
  if (target_->FileExists(path).ok()) {
    Status s = DeleteFile(path);
    if (!s.ok()) return s;
  }
  sink_->WillCreate(path);
  Status s = target_->NewWritableFile(path, opts, result);
  return s.ok() ? Wrap(path, /*created=*/true, result) : s;
}

Status PowerLossFs::ReopenWritableFile(const std::string& path, const FileOptions& opts,
                                       std::unique_ptr<WritableFile>* result) {
  const bool created = !target_->FileExists(path).ok();
  if (created) sink_->WillCreate(path);
  Status s = target_->ReopenWritableFile(path, opts, result);
  return s.ok() ? Wrap(path, created, result) : s;
}

Status PowerLossFs::DeleteFile(const std::string& path) {
  std::string trash;
  Status s = LinkToTrash(path, &trash);
  if (!s.ok()) return target_->DeleteFile(path);  // absent: the target says so
  sink_->WillDelete(path, trash);
  return target_->DeleteFile(path);
}

Status PowerLossFs::RenameFile(const std::string& src, const std::string& dst) {
  std::string dst_trash;
  if (target_->FileExists(dst).ok()) {
    Status s = LinkToTrash(dst, &dst_trash);
    if (!s.ok()) return s;
  }
  sink_->WillRename(src, dst, dst_trash);
  return target_->RenameFile(src, dst);
}

Status PowerLossFs::SyncDir(const std::string& dir) {
  const uint64_t covered = sink_->NameEventsSoFar();
  const Status s = target_->SyncDir(dir);
  if (s.ok()) sink_->DirSynced(dir, covered);
  return s;
}

}  // namespace shale::scenario
