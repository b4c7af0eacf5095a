// SimDisk: an in-memory FileSystem with the Linux semantics engines rely on
// (what a page cache, fsync and rename promise), the crashes that break them, and latency in simulated
// time. It keeps exactly the contract stated in engine/include/shale/env.h:
//
//  * Each file (inode) has a page-cache view (what reads see) and a durable
//    view. Writes change the page-cache view at once and are remembered as
//    pending, sector by sector (kSectorBytes). Sync()/Fsync() of a handle
//    makes that inode's page-cache view durable (data and size).
//  * Each directory has a page-cache entry table (name -> inode) and a
//    durable one. Create, rename and delete change the page-cache table at
//    once and are journaled (see "Metadata" below). Rename is atomic.
//  * A deleted file stays readable through handles opened before the delete;
//    the inode is freed when its last handle closes and no name remains.
//  * A Sync that fails (MediaFile::FailSync, injected) does what its fate
//    says with the inode's pending writes:
//      - kDropsPages: they are dropped and the page-cache view
//        reverts to the durable view (Linux may evict the dirty pages after
//        a failed fsync; retrying does not bring them back);
//      - kKeepsPages: they stay pending, so a retry may write them;
//      - kMarksClean: Linux >= 4.13's behaviour (ext4, xfs): the pages are
//        marked clean and stay readable, a retried Sync returns OK with
//        nothing to write, and a power loss loses them.
//
// Metadata (the model of a journaling file system: one ordered log per file
// system, as xfs's log and ext4's jbd2 journal are):
//  * Every create (NewWritableFile of a new name, LockFile), rename, unlink,
//    mkdir, rmdir and truncate (Truncate, or NewWritableFile over an existing
//    file) appends one record to the journal, in call order.
//  * SyncDir(dir) commits the journal up to and including the last record
//    that touches dir (an entry of dir, or dir's own name): those records
//    and every earlier one, in any directory, become durable. This is xfs's
//    rule (fsync forces the log up to the inode's last change); ext4 commits
//    its whole running transaction, which only ever makes more durable, so
//    every ext4 outcome is also an outcome here.
//  * A file Sync/Fsync makes that file's data and size durable. Only if
//    set_fsync_commits_metadata(true) does it also commit the journal up to
//    the file's last record (its names, its size), as ext4 and xfs do. By
//    default it does not, which is all POSIX promises: a new file's name is
//    durable only once its directory is synced.
//  * At a power loss an in-order PREFIX of the uncommitted records is
//    durable: the log reaches the disk in order, but where the flushing
//    stopped is drawn (nothing, everything, or a uniform cut). So "the WAL's
//    unlink is durable but the later MANIFEST rename is not" can happen, and
//    "the later rename is durable but the earlier create is not" cannot.
//  * A durable truncate cuts (or zero-extends) the durable data before the
//    surviving sector writes are applied; dirty pages past a truncated end
//    are discarded at the truncate. A file sync makes its truncates moot.
//  * The journal commits by itself when it holds kMaxJournalRecords records.
//  * LockFile is exclusive per path within the simulated machine.
//
// Crashes:
//  * ProcessCrash(): every open handle becomes dead (any later call on it
//    returns IOError); locks are released; page-cache views survive.
//  * PowerLoss(): ProcessCrash(), then a prefix of the journal becomes
//    durable (see "Metadata"), then every directory reverts to its durable
//    table and every inode to its durable view (data AND size: pending
//    appends and extensions, and truncates the prefix did not reach, are
//    undone), except that each pending
//    sector write survives with probability 1/survive_one_in (drawn from the
//    context's PRNG, in a fixed order: inode creation order, then write
//    order). A surviving write is applied over the durable view, to the
//    sector's DIRTY RANGE only (the bytes the unsynced writes changed):
//    powersafe overwrite, as modern drives promise (SQLite's PSOW): a write
//    cut short by power loss never harms bytes of the sector it did not
//    write, so synced data sharing a sector with an unsynced append stays.
//      - whole (3 in 4): the dirty range's page-cache bytes; the file grows
//        to cover them if they lie past its durable end;
//      - torn (1 in 8): only a prefix of the dirty range (shorter than
//        whole); the file grows to cover the prefix;
//      - garbage (1 in 8): the dirty range is filled with PRNG bytes.
//    A gap between the old end and a surviving sector reads as zeros (a
//    hole). Consecutive writes to the same sector are one pending write (the
//    page is written back once). Inodes no durable name reaches are freed.
//    last_power_loss() lists what survived.
//  * Direct I/O handles (FileOptions::use_direct_io) reject with
//    InvalidArgument any offset, length or buffer address that is not a
//    multiple of 4096 (GetRequiredBufferAlignment()).
//  * Paths: "/a/b" names b in directory "/a"; the parent is everything before
//    the last '/'; a missing leading '/' is implied and a trailing '/' is
//    ignored. The root ("" or "/") always exists durably. Directories exist
//    only once created (CreateDirIfMissing); creating a file in a missing
//    directory is PathNotFound.
//  * Injected faults: the SimDisk injects none by itself. A fault-injecting
//    FileSystem decorator (faults/fault_injecting_fs.h) fails calls before
//    they reach it, and causes media faults through the DiskMedia interface
//    (disk_media.h) the SimDisk and its handles implement:
//      - unreadable ("sticky") sectors: a read whose returned bytes touch one
//        fails with IOError until a truncate frees the sector (its block
//        goes back to the file system, as NewWritableFile over the path
//        does); crashes, power losses and rewrites in place do not heal it;
//      - misdirected writes: the intended range keeps its old bytes (zeros
//        past the old end; the file still grows to cover it) and the data is
//        written at the other offset instead (the file grows to cover that
//        too); both are ordinary pending writes until synced;
//      - bit flips (CorruptDurable): one bit of durable data changes; if its
//        sector has no pending write the page cache sees it too (a clean
//        page is re-read from the media).
//    Each is folded into the trace.
//
// Every call is a scheduling point (context->SwitchPoint) and costs latency
// (context->Delay) from the LatencyProfile; every call and crash is folded
// into the context's trace hash. Iteration is over sorted containers only.
//
// Thread safety: none; the simulation runs one task at a time.
// Ownership: the SimDisk owns every inode; handles it returns must not
// outlive it. It does not own the context.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "shale/env.h"
#include "sim/disk/disk_media.h"
#include "sim/disk_context.h"

namespace shale::sim {

namespace disk_internal {
class DiskState;
}

// Latency per operation in simulated nanoseconds: fixed + per-KiB.
struct LatencyProfile {
  uint64_t read_ns = 0, read_per_kib_ns = 0;
  uint64_t write_ns = 0, write_per_kib_ns = 0;
  uint64_t sync_ns = 0;
  uint64_t metadata_ns = 0;  // open, create, rename, delete, list, sync dir

  static LatencyProfile NVMe();
  static LatencyProfile SataSsd();
  static LatencyProfile Hdd();
  static LatencyProfile Zero();
};

class SimDisk final : public FileSystem, public DiskMedia {
 public:
  static constexpr size_t kSectorBytes = kMediaSectorBytes;

  SimDisk(DiskContext* context, const LatencyProfile& latency);
  ~SimDisk() override;

  // ---- FileSystem (see env.h for each call's contract)
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
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status UnlockFile(std::unique_ptr<FileLock> lock) override;

  // ---- crashes
  void ProcessCrash();
  // REQUIRES: survive_one_in >= 1 (1 = every pending sector write survives).
  // journal_kept: how many uncommitted metadata records become durable
  // (clamped to the journal's length); unset: drawn from the context's PRNG.
  void PowerLoss(uint64_t survive_one_in, std::optional<size_t> journal_kept = std::nullopt);

  // Whether a file Sync/Fsync also commits the metadata journal (see
  // "Metadata" above). Default false.
  void set_fsync_commits_metadata(bool commits);
  // Metadata operations journaled and not yet committed.
  size_t uncommitted_metadata_ops() const;

  // ---- for a disk layered over this one (WindowsDisk)
  // Off: calls make no switch point. The layer makes one before each call
  // instead, so its own checks and this disk's effect are one atomic step.
  // Default on.
  void set_switch_points(bool on);
  // Unlinks the visible file path as a side effect of another call (a
  // Windows handle close that ends a pending delete): journaled like
  // DeleteFile, but no switch point, hook or latency. NotFound if absent.
  Status UnlinkQuietly(const std::string& path);

  // What the last PowerLoss() let survive of the pending sector writes, in
  // the order they were decided (inode creation order, then write order).
  // Only sectors of inodes that still have a durable name are listed.
  struct SurvivingSector {
    enum class Fate : uint8_t { kWhole, kTorn, kGarbage };
    std::vector<std::string> paths;  // the inode's names after the power loss, sorted
    uint64_t sector = 0;             // byte offset / kSectorBytes
    Fate fate = Fate::kWhole;
    uint64_t applied_bytes = 0;  // bytes written into the sector
  };
  const std::vector<SurvivingSector>& last_power_loss() const;
  // How much of the journal the last PowerLoss() made durable.
  struct MetadataKept {
    size_t kept = 0;
    size_t uncommitted = 0;
  };
  MetadataKept last_power_loss_metadata() const;
  // The durable names, sorted, of every file the last PowerLoss() left with
  // a hole: bytes, inside both its size before and its size after the
  // power loss, that differ from what readers saw before it. A lost write
  // under a size that a durable truncate or a later surviving sector kept,
  // a garbled sector, and a torn sector whose remainder an older surviving
  // write of the same sector fills all make one; a file cut short at a
  // torn or lost tail does not.
  const std::vector<std::string>& last_power_loss_holes() const;

  // ---- injected media faults (DiskMedia; faults/ decides when; see the
  // file comment)
  Status CorruptDurable(const std::string& path, uint64_t byte_offset, int bit) override;
  // Makes sector `sector` (byte offset / kSectorBytes) of the file visibly
  // named path unreadable for good. NotFound if no such visible file.
  Status MarkSectorUnreadable(const std::string& path, uint64_t sector);
  std::vector<DurableFile> DurableFiles() const override;

  // For tests and reports: the page-cache / durable contents of a path
  // (NotFound if no such name in that view).
  Status ReadVisible(const std::string& path, std::string* data) const;
  // Whether path is a name in the page-cache view now (no disk call, no
  // scheduling point): for checkers, between a task's calls.
  bool HasVisibleName(const std::string& path) const;
  // The files (not directories) visibly named in dir, sorted, as full
  // paths; empty if dir is not visible. No disk call, as HasVisibleName.
  std::vector<std::string> VisibleChildren(const std::string& dir) const;
  Status ReadDurable(const std::string& path, std::string* data) const override;

 private:
  // All state lives in disk_internal::DiskState (sim/disk/disk_state.h),
  // shared with the file handles.
  std::unique_ptr<disk_internal::DiskState> state_;
};

}  // namespace shale::sim
