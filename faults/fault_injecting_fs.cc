// FaultInjectingFs: the FileSystem calls (opens and the name space). The
// handles are in fault_injecting_files.cc.
#include "faults/fault_injecting_fs.h"

#include "faults/fault_injecting_files.h"
#include "util/hash.h"

namespace shale::faults {

using Op = FaultPolicy::Op;
namespace internal = fault_fs_internal;

FaultInjectingFs::FaultInjectingFs(FileSystem* target, sim::DiskContext* context,
                                   FaultPolicy* policy)
    : target_(target), context_(context), policy_(policy) {}

FaultInjectingFs::~FaultInjectingFs() = default;

FaultPolicy::Decision FaultInjectingFs::Decide(const FaultPolicy::Request& request) {
  if (policy_ == nullptr) return {};
  FaultPolicy::Decision d = policy_->Decide(request);
  if (!d.any()) return d;
  static constexpr char kTraceName[] = "fault.decision";
  context_->Fold(Hash64(kTraceName, sizeof(kTraceName) - 1));
  context_->Fold(static_cast<uint64_t>(request.op));
  context_->Fold(static_cast<uint64_t>(d.status.code()));
  context_->Fold(static_cast<uint64_t>(d.failed_sync));
  context_->Fold(d.extra_latency_ns);
  context_->Fold(d.short_reads);
  context_->Fold(d.unreadable_sector.value_or(UINT64_MAX));
  context_->Fold(d.misdirect_to_sector.value_or(UINT64_MAX));
  context_->Fold(d.applied_prefix_bytes);
  if (d.extra_latency_ns != 0) context_->Delay(d.extra_latency_ns);
  return d;
}

Status FaultInjectingFs::Failed(const char* name, const std::string& path, const Status& status) {
  context_->SwitchPoint(name);
  return sim::NamingPath(status, path);
}

Status FaultInjectingFs::Gate(Op op, const char* name, const std::string& path) {
  FaultPolicy::Request request;
  request.op = op;
  request.path = &path;
  const FaultPolicy::Decision d = Decide(request);
  return d.status.ok() ? Status::OK() : Failed(name, path, d.status);
}

Status FaultInjectingFs::NewSequentialFile(const std::string& path, const FileOptions& opts,
                                           std::unique_ptr<SequentialFile>* result) {
  Status s = Gate(Op::kOpen, "fault.open_sequential", path);
  std::unique_ptr<SequentialFile> base;
  if (s.ok()) s = target_->NewSequentialFile(path, opts, &base);
  if (s.ok()) *result = internal::WrapSequential(this, path, std::move(base));
  return s;
}

Status FaultInjectingFs::NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                                             std::unique_ptr<RandomAccessFile>* result) {
  Status s = Gate(Op::kOpen, "fault.open_random", path);
  std::unique_ptr<RandomAccessFile> base;
  if (s.ok()) s = target_->NewRandomAccessFile(path, opts, &base);
  if (s.ok()) *result = internal::WrapRandomAccess(this, path, std::move(base));
  return s;
}

Status FaultInjectingFs::NewWritableFile(const std::string& path, const FileOptions& opts,
                                         std::unique_ptr<WritableFile>* result) {
  Status s = Gate(Op::kCreate, "fault.create", path);
  std::unique_ptr<WritableFile> base;
  if (s.ok()) s = target_->NewWritableFile(path, opts, &base);
  if (s.ok()) *result = internal::WrapWritable(this, path, std::move(base));
  return s;
}

Status FaultInjectingFs::ReopenWritableFile(const std::string& path, const FileOptions& opts,
                                            std::unique_ptr<WritableFile>* result) {
  Status s = Gate(Op::kOpen, "fault.reopen", path);
  std::unique_ptr<WritableFile> base;
  if (s.ok()) s = target_->ReopenWritableFile(path, opts, &base);
  if (s.ok()) *result = internal::WrapWritable(this, path, std::move(base));
  return s;
}

Status FaultInjectingFs::FileExists(const std::string& path) { return target_->FileExists(path); }

Status FaultInjectingFs::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  return target_->GetChildren(dir, names);
}

Status FaultInjectingFs::GetFileSize(const std::string& path, uint64_t* size) {
  return target_->GetFileSize(path, size);
}

Status FaultInjectingFs::DeleteFile(const std::string& path) {
  const Status s = Gate(Op::kDelete, "fault.delete", path);
  return s.ok() ? target_->DeleteFile(path) : s;
}

Status FaultInjectingFs::RenameFile(const std::string& src, const std::string& dst) {
  const Status s = Gate(Op::kRename, "fault.rename", src);
  return s.ok() ? target_->RenameFile(src, dst) : s;
}

Status FaultInjectingFs::CreateDirIfMissing(const std::string& dir) {
  const Status s = Gate(Op::kCreate, "fault.mkdir", dir);
  return s.ok() ? target_->CreateDirIfMissing(dir) : s;
}

Status FaultInjectingFs::DeleteDir(const std::string& dir) {
  const Status s = Gate(Op::kDelete, "fault.rmdir", dir);
  return s.ok() ? target_->DeleteDir(dir) : s;
}

Status FaultInjectingFs::SyncDir(const std::string& dir) {
  const Status s = Gate(Op::kSyncDir, "fault.sync_dir", dir);
  return s.ok() ? target_->SyncDir(dir) : s;
}

bool FaultInjectingFs::SyncDirPersistsNames() const { return target_->SyncDirPersistsNames(); }

Status FaultInjectingFs::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  const Status s = Gate(Op::kOpen, "fault.lock", path);
  return s.ok() ? target_->LockFile(path, lock) : s;
}

Status FaultInjectingFs::UnlockFile(std::unique_ptr<FileLock> lock) {
  return target_->UnlockFile(std::move(lock));
}

}  // namespace shale::faults
