// FaultInjectingFs: a FileSystem decorator that injects I/O faults into the
// calls made through it, over any simulated disk (the POSIX SimDisk, the
// WindowsDisk, ...), as Pebble's errorfs wraps any vfs. A FaultPolicy
// (DiskFaultInjector, or a scenario's plan) decides each call's fault; this
// decorator carries it out:
//  * a failed decision: the call is a scheduling point, then fails with the
//    decision's status (made to name the path) and never reaches the disk,
//    so it has no effect. A failed Sync is the exception: it reaches the
//    disk as MediaFile::FailSync, which does the decision's fate to the
//    file's dirty pages (dropped, kept, or marked clean);
//  * extra latency (slow I/O): the calling task waits that long first;
//  * short reads: the read reaches the disk as short_reads + 1 calls, each
//    for what is left (a backend looping on a short pread); for a handle
//    with an alignment, only at aligned splits. The caller still gets every
//    byte (env.h: short only at end of file);
//  * an unreadable sector: MediaFile::MarkSectorUnreadable, then the read;
//  * a misdirected write: MediaFile::WriteMisdirected instead of the write;
//  * a short write: the failed write's leading bytes reach the disk first
//    (for a handle with an alignment, rounded down to it), then the call
//    fails as above.
// Which call is which FaultPolicy::Op: reads kRead; Append,
// PositionedAppend, Truncate and Allocate kWrite; NewWritableFile and
// CreateDirIfMissing kCreate; the other opens and LockFile kOpen;
// DeleteFile and DeleteDir kDelete; RenameFile kRename (path: the source);
// Sync and Fsync kSync; SyncDir kSyncDir. FileExists, GetChildren,
// GetFileSize, Flush, Skip, Close and UnlockFile pass straight through.
// Every fault carried out is folded into the context's trace.
//
// Thread safety: none (the simulation runs one task at a time).
// Ownership: borrows the target, the context and the policy, which must
// outlive it; handles it returns must not outlive it.
// REQUIRES: every file handle the target returns is a sim::MediaFile.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shale/env.h"
#include "sim/disk/disk_media.h"
#include "sim/disk_context.h"

namespace shale::faults {

class FaultPolicy {
 public:
  enum class Op : uint8_t { kOpen, kRead, kWrite, kSync, kSyncDir, kRename, kDelete, kCreate };

  // One call about to be made.
  struct Request {
    Op op = Op::kOpen;
    const std::string* path = nullptr;  // as the caller named it; never null
    // Reads and data writes (Append, PositionedAppend) of an open handle set
    // has_range; the other fields are then the byte range asked for (an
    // Append's offset is the file's size) and the file's page-cache and
    // durable sizes. Otherwise they are all zero.
    bool has_range = false;
    uint64_t offset = 0;
    uint64_t length_bytes = 0;
    uint64_t file_size_bytes = 0;
    uint64_t durable_size_bytes = 0;
    // Data writes: the handle's alignment (direct I/O), or 1; a short
    // write lands whole units of it.
    uint64_t alignment_bytes = 1;
  };

  // What happens to that call. The default is no fault.
  struct Decision {
    // Non-OK: the call fails with it (see the file comment).
    Status status;
    // kSync with a failed status: what happens to the dirty pages.
    sim::FailedSync failed_sync = sim::FailedSync::kDropsPages;
    // Slow I/O: simulated time added before the call.
    uint64_t extra_latency_ns = 0;
    // kRead: how many times the underlying read comes back short.
    uint32_t short_reads = 0;
    // kRead with has_range: this sector (byte offset / kMediaSectorBytes)
    // of the file becomes unreadable, before the read, for good.
    std::optional<uint64_t> unreadable_sector;
    // Data writes with has_range and length_bytes > 0: the bytes land in
    // this sector instead (MediaFile::WriteMisdirected).
    std::optional<uint64_t> misdirect_to_sector;
    // Data writes with has_range that fail: this many leading bytes of the
    // write (fewer than asked) reach the disk first, as when write(2)
    // returns short and the caller's write of the rest fails.
    uint64_t applied_prefix_bytes = 0;

    bool any() const {
      return !status.ok() || extra_latency_ns != 0 || short_reads != 0 ||
             unreadable_sector.has_value() || misdirect_to_sector.has_value() ||
             applied_prefix_bytes != 0;
    }
  };

  virtual ~FaultPolicy() = default;
  virtual Decision Decide(const Request& request) = 0;
};

class FaultInjectingFs final : public FileSystem {
 public:
  // policy may be null (no faults until set_policy).
  FaultInjectingFs(FileSystem* target, sim::DiskContext* context, FaultPolicy* policy = nullptr);
  ~FaultInjectingFs() override;

  // Handles already open see the new policy from their next call.
  // REQUIRES: policy (if not null) outlives this or is replaced first.
  void set_policy(FaultPolicy* policy) { policy_ = policy; }

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
  bool SyncDirPersistsNames() const override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status UnlockFile(std::unique_ptr<FileLock> lock) override;

  // ---- for the handles (fault_injecting_files.cc)
  // Asks the policy (none: no fault), folds a fault into the trace, and
  // waits its extra latency.
  FaultPolicy::Decision Decide(const FaultPolicy::Request& request);
  // The call `name` failed by decision status: a scheduling point, then the
  // status naming path.
  Status Failed(const char* name, const std::string& path, const Status& status);
  sim::DiskContext* context() const { return context_; }

 private:
  // Decides a call without a byte range; OK if it may go on to the target.
  Status Gate(FaultPolicy::Op op, const char* name, const std::string& path);

  FileSystem* const target_;
  sim::DiskContext* const context_;
  FaultPolicy* policy_;
};

}  // namespace shale::faults
