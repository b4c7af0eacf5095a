#include "scenarios/crash_recovery/flash_synced_sizes.h"

#include <algorithm>
#include <utility>

namespace shale::scenario {

namespace {

// Forwards every call, keeping the record: appends grow the size, a
// truncate cuts it and what must be kept, a sync promises the size.
class TrackedFile final : public WritableFile {
 public:
  TrackedFile(std::unique_ptr<WritableFile> file, std::shared_ptr<SyncedSizes::Record> record)
      : file_(std::move(file)), record_(std::move(record)) {}

  Status Append(const Slice& data) override {
    Status s = file_->Append(data);
    if (s.ok()) record_->size_bytes += data.size();
    return s;
  }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    Status s = file_->PositionedAppend(data, offset);
    if (s.ok()) record_->size_bytes = std::max(record_->size_bytes, offset + data.size());
    return s;
  }
  Status Truncate(uint64_t size) override {
    // Cut before it is known to have happened: a failed truncate may
    // still have cut.
    record_->synced_bytes = std::min(record_->synced_bytes, size);
    Status s = file_->Truncate(size);
    if (s.ok()) record_->size_bytes = size;
    return s;
  }
  Status Flush() override { return file_->Flush(); }
  Status Sync() override { return Promised(file_->Sync()); }
  Status Fsync() override { return Promised(file_->Fsync()); }
  Status Allocate(uint64_t offset, uint64_t len) override { return file_->Allocate(offset, len); }
  Status Close() override { return file_->Close(); }
  uint64_t GetFileSize() const override { return file_->GetFileSize(); }
  size_t GetRequiredBufferAlignment() const override { return file_->GetRequiredBufferAlignment(); }
  bool use_direct_io() const override { return file_->use_direct_io(); }

 private:
  Status Promised(Status s) {
    if (s.ok()) record_->synced_bytes = record_->size_bytes;
    return s;
  }

  std::unique_ptr<WritableFile> file_;
  std::shared_ptr<SyncedSizes::Record> record_;
};

}  // namespace

std::unique_ptr<WritableFile> SyncedSizes::Track(const std::string& path, bool created,
                                                 uint64_t size,
                                                 std::unique_ptr<WritableFile> file) {
  std::shared_ptr<Record>& record = records_[path];
  if (created || record == nullptr) record = std::make_shared<Record>();
  record->size_bytes = size;
  return std::make_unique<TrackedFile>(std::move(file), record);
}

void SyncedSizes::Deleted(const std::string& path) { records_.erase(path); }

std::vector<SyncedSizes::Loss> SyncedSizes::Check(FileSystem* fs) const {
  std::vector<Loss> losses;
  for (const auto& [path, record] : records_) {
    if (record->synced_bytes == 0 || !fs->FileExists(path).ok()) continue;
    uint64_t size = 0;
    if (fs->GetFileSize(path, &size).ok() && size < record->synced_bytes) {
      losses.push_back({path, record->synced_bytes, size});
    }
  }
  return losses;
}

}  // namespace shale::scenario
