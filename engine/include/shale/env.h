// Env: the engine's one seam to the outside world.
//
// The engine touches files, time, threads, locks and waiting ONLY through an
// Env passed in Options. Two implementations exist: the real backend
// (engine/port/posix_env.cc: POSIX files, std::thread) and the simulator's
// (sim/), which runs every engine thread as a cooperatively scheduled task
// under one seeded scheduler. A CI check (ci/check_seam.sh) rejects any
// direct use of threads, locks, clocks, randomness, getenv or syscalls in
// engine/ outside engine/port/.
//
// An Env is three parts:
//   FileSystem  - files and directories, with an exact durability contract.
//   Clock       - monotonic time in nanoseconds.
//   Runtime     - threads, mutexes, condition variables, sleep, and named
//                 yield/fault points where the simulator may interleave.
//
// Ownership: the Env outlives every DB opened with it. Env::Default() is a
// process-wide singleton that is never destroyed.
// Thread safety: every method of FileSystem, Clock and Runtime is safe to call
// concurrently. A single file object is used by one thread at a time unless
// its class says otherwise.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"  // header-only: clang's lock annotations
#include "shale/slice.h"
#include "shale/status.h"

namespace shale {

// ---------------------------------------------------------------------------
// FileSystem and its durability contract.
//
// The contract is Linux's (ext4/xfs with default mount options):
//  * Data written by Append/PositionedAppend is readable at once by any
//    handle, but is VOLATILE: a power loss may drop it, until Sync()/Fsync()
//    of that file returns OK. A process crash loses nothing that a call has
//    returned from (the page cache survives).
//  * Creating, renaming and deleting a name is VOLATILE until SyncDir() of the
//    parent directory returns OK. Rename is atomic: after any crash the target
//    name refers to the old file or the new one, never a mix or nothing
//    (unless the target did not exist durably before).
//  * A Sync() that fails may have dropped the file's dirty pages: retrying it
//    does not bring them back. Callers must treat the unsynced tail as lost.
//  * A deleted file stays readable through handles that were open before the
//    deletion.
//  * Direct I/O (FileOptions::use_direct_io): offsets, lengths and buffer
//    addresses must be multiples of the file's GetRequiredBufferAlignment().
// ---------------------------------------------------------------------------

struct FileOptions {
  // Bypass the page cache (O_DIRECT; FILE_FLAG_NO_BUFFERING on Windows).
  // Callers must then align as the file's GetRequiredBufferAlignment() says.
  bool use_direct_io = false;
  // Whether the file may be deleted or renamed while this handle is open.
  // POSIX always allows it. On Windows it is FILE_SHARE_DELETE: without it,
  // deleting or renaming the file while this handle is open fails, so the
  // opener must close the handle before anyone deletes the file.
  bool share_delete = true;
  // The part of the engine that opens the file (a static string such as
  // "the table cache"), named in diagnostics. Never nullptr.
  const char* opened_by = "the engine";
  // Serve a random-access file's reads from a read-only memory map of it,
  // as LevelDB does, instead of copying through pread. A file system that
  // cannot map (or will not map more files) reads as usual; direct I/O
  // never maps. See RandomAccessFile::ReadsAreMapped.
  bool use_mmap_reads = false;
  // Append by copying into a shared writable map of the file instead of
  // calling write(2) for each append: a file system that maps writes gives
  // appended bytes to the page cache with no system call, so they survive
  // the process's death as written bytes do. While such a file is open its
  // size may run ahead of what was appended (zero-filled space a crash
  // leaves behind); Close cuts it back. Ignored by file systems that do not
  // map writes, and with direct I/O.
  bool use_mmap_writes = false;
};

// A file read from start to end. Used for WAL and MANIFEST recovery.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to n bytes. *result points into scratch (or into the file's own
  // buffer) and is shorter than n only at end of file.
  // REQUIRES: scratch has room for n bytes.
  [[nodiscard]] virtual Status Read(size_t n, Slice* result, char* scratch) = 0;
  // Skips n bytes; skipping past end of file stops at end of file.
  [[nodiscard]] virtual Status Skip(uint64_t n) = 0;
};

// A file read at arbitrary offsets. Used for SST files.
// Thread safety: Read() may be called concurrently from several threads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to n bytes at offset. *result is shorter than n only at end of
  // file. It points into scratch, or into the file's map when
  // ReadsAreMapped(). REQUIRES: scratch has room for n bytes, unless
  // ReadsAreMapped() (then scratch may be nullptr).
  [[nodiscard]] virtual Status Read(uint64_t offset, size_t n, Slice* result,
                                    char* scratch) const = 0;
  // Whether every Read answers with bytes of a read-only map of the file,
  // valid (and unchanged) until the file object is destroyed, never copying
  // into scratch. Constant for the file's life.
  virtual bool ReadsAreMapped() const { return false; }
  virtual size_t GetRequiredBufferAlignment() const { return 1; }
  virtual bool use_direct_io() const { return false; }
};

// A file written by appending. Used for WAL, MANIFEST, SST, CURRENT.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends data at end of file. Volatile until Sync().
  [[nodiscard]] virtual Status Append(const Slice& data) = 0;
  // Writes data at offset (direct-I/O writers re-write their aligned tail).
  // Volatile until Sync().
  [[nodiscard]] virtual Status PositionedAppend(const Slice& data, uint64_t offset) = 0;
  // Cuts the file to size bytes. Volatile until Sync().
  [[nodiscard]] virtual Status Truncate(uint64_t size) = 0;
  // Pushes user-space buffers (if any) to the file system. Makes nothing durable.
  [[nodiscard]] virtual Status Flush() = 0;
  // fdatasync: makes the file's data and size durable. Does NOT make its name
  // durable (see FileSystem::SyncDir).
  [[nodiscard]] virtual Status Sync() = 0;
  // fsync: as Sync(), plus all metadata.
  [[nodiscard]] virtual Status Fsync() = 0;
  // Reserves space for [offset, offset+len) without changing the file size.
  [[nodiscard]] virtual Status Allocate(uint64_t offset, uint64_t len) = 0;
  // Flushes and closes. Makes nothing durable. Further calls are errors.
  [[nodiscard]] virtual Status Close() = 0;
  virtual uint64_t GetFileSize() const = 0;
  virtual size_t GetRequiredBufferAlignment() const { return 1; }
  virtual bool use_direct_io() const { return false; }
};

// A held lock on a file (the DB's LOCK file).
class FileLock {
 public:
  virtual ~FileLock() = default;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Opens an existing file. NotFound-like IOError (PathNotFound) if absent.
  [[nodiscard]] virtual Status NewSequentialFile(const std::string& path, const FileOptions& opts,
                                                 std::unique_ptr<SequentialFile>* result) = 0;
  [[nodiscard]] virtual Status NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                                                   std::unique_ptr<RandomAccessFile>* result) = 0;
  // Creates the file, or truncates it if it exists. The new name is volatile
  // until SyncDir(parent).
  [[nodiscard]] virtual Status NewWritableFile(const std::string& path, const FileOptions& opts,
                                               std::unique_ptr<WritableFile>* result) = 0;
  // Opens for appending at the current end; creates the file if absent.
  [[nodiscard]] virtual Status ReopenWritableFile(const std::string& path, const FileOptions& opts,
                                                  std::unique_ptr<WritableFile>* result) = 0;

  // OK if it exists, NotFound if not, IOError otherwise.
  [[nodiscard]] virtual Status FileExists(const std::string& path) = 0;
  // Names (not paths) of the entries in dir, excluding "." and "..", in
  // lexicographic order (so callers never depend on directory order).
  [[nodiscard]] virtual Status GetChildren(const std::string& dir,
                                           std::vector<std::string>* names) = 0;
  [[nodiscard]] virtual Status GetFileSize(const std::string& path, uint64_t* size) = 0;

  // Removes the name. Volatile until SyncDir(parent). Open handles keep the
  // data readable.
  [[nodiscard]] virtual Status DeleteFile(const std::string& path) = 0;
  // Atomically replaces dst (if it exists) with src: POSIX rename(2), or
  // MoveFileEx with MOVEFILE_REPLACE_EXISTING on Windows (which fails if dst
  // is open). Volatile until SyncDir(parent).
  [[nodiscard]] virtual Status RenameFile(const std::string& src, const std::string& dst) = 0;
  // Creates dir if missing; OK if it already exists. Volatile until SyncDir
  // of its parent.
  [[nodiscard]] virtual Status CreateDirIfMissing(const std::string& dir) = 0;
  [[nodiscard]] virtual Status DeleteDir(const std::string& dir) = 0;
  // fsync of the directory: makes every create/rename/delete of a name in dir
  // that returned before this call durable.
  [[nodiscard]] virtual Status SyncDir(const std::string& dir) = 0;
  // Whether SyncDir does anything. Windows has no directory sync (SyncDir
  // is accepted and does nothing): names become durable only through the
  // file system's own metadata journal, in the order they were made, and a
  // Sync of a file commits that journal up to the file's own changes. An
  // engine must then never rely on SyncDir to order or persist a name.
  virtual bool SyncDirPersistsNames() const { return true; }

  // Takes an exclusive advisory lock (creating the file if needed). Busy-like
  // IOError if another holder has it.
  [[nodiscard]] virtual Status LockFile(const std::string& path,
                                        std::unique_ptr<FileLock>* lock) = 0;
  // Releases the lock. REQUIRES: lock came from this FileSystem.
  [[nodiscard]] virtual Status UnlockFile(std::unique_ptr<FileLock> lock) = 0;
};

// ---------------------------------------------------------------------------
// Clock
// ---------------------------------------------------------------------------
class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic nanoseconds since an arbitrary origin.
  virtual uint64_t NowNanos() = 0;
  uint64_t NowMicros() { return NowNanos() / 1000; }
};

// ---------------------------------------------------------------------------
// Runtime: threads, locks and waits. Every blocking wait in the engine is a
// Mutex::Lock or a CondVar::Wait from here, so the simulator sees all of them.
// ---------------------------------------------------------------------------

// A non-recursive mutex. REQUIRES: Unlock() by the thread that locked it.
// Annotated for clang's -Wthread-safety: members marked ABSL_GUARDED_BY a
// Mutex are checked at compile time to be touched only with it held.
class ABSL_LOCKABLE Mutex {
 public:
  virtual ~Mutex() = default;
  virtual void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() = 0;
  virtual void Unlock() ABSL_UNLOCK_FUNCTION() = 0;
  // Debug aid: may abort if the calling thread does not hold it; may be a
  // no-op. Tells the compiler's analysis the mutex is held from here on.
  virtual void AssertHeld() ABSL_ASSERT_EXCLUSIVE_LOCK() {}
};

// A condition variable bound to one Mutex at creation.
// REQUIRES: the bound mutex is held for Wait/TimedWait; Signal/SignalAll may
// be called with or without it.
class CondVar {
 public:
  virtual ~CondVar() = default;
  // Atomically releases the mutex and waits; re-acquires before returning.
  // May wake spuriously.
  virtual void Wait() = 0;
  // As Wait, but returns true if it timed out (deadline on the Env's Clock).
  virtual bool TimedWait(uint64_t deadline_nanos) = 0;
  virtual void Signal() = 0;
  virtual void SignalAll() = 0;
};

// A started thread. Destroying it without Join() is a bug (asserted).
class Thread {
 public:
  virtual ~Thread() = default;
  virtual void Join() = 0;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual std::unique_ptr<Mutex> NewMutex() = 0;
  // REQUIRES: mu outlives the CondVar.
  virtual std::unique_ptr<CondVar> NewCondVar(Mutex* mu) = 0;
  // Starts fn on a new thread named name (names show in simulator traces).
  virtual std::unique_ptr<Thread> StartThread(const std::string& name,
                                              std::function<void()> fn) = 0;
  virtual void SleepForMicroseconds(uint64_t micros) = 0;
  // A point where another thread may be scheduled. Free in the real runtime.
  // `name` is a static string such as "write.after_wal_append".
  virtual void YieldPoint(const char* name) { (void)name; }
  // A named fault point (the BUGGIFY idea): returns true when the simulator
  // wants the fault at `name` to fire. Always false in the real runtime.
  virtual bool FaultPoint(const char* name) {
    (void)name;
    return false;
  }
  // Spin-waiting, for a wait that usually ends within microseconds because
  // the thread it waits for is running now (RocksDB's write-thread adaptive
  // yield): blocking and waking cost a futex call and a context switch
  // each. CanSpin() says whether this runtime spins at all. The default, and
  // the simulator, cannot: only the scheduler runs their threads, so a
  // spinning fiber would wait forever. Callers then block as usual.
  virtual bool CanSpin() const { return false; }
  // Waits without blocking, for up to max_micros, until `word` no longer
  // holds `value` (an acquire load); returns true if it changed.
  // REQUIRES: CanSpin().
  virtual bool SpinWhileEqual(const std::atomic<uint64_t>& word, uint64_t value,
                              uint64_t max_micros) {
    (void)max_micros;
    return word.load(std::memory_order_acquire) != value;
  }
  // A hint that [memory, memory + bytes) is long-lived and densely used (a
  // memtable arena block) and should be backed by huge pages where the OS
  // has transparent huge pages: a search over it then misses the TLB far
  // less. The real runtime advises the kernel (madvise MADV_HUGEPAGE); the
  // default, and the simulator, ignore it. Never fails and changes nothing
  // a caller can observe. REQUIRES: memory is aligned to kHugePageBytes.
  static constexpr size_t kHugePageBytes = size_t{2} << 20;
  virtual void AdviseHugePages(char* memory, size_t bytes) {
    (void)memory;
    (void)bytes;
  }
  // FaultPoint as the error of the operation placed after it:
  // IOError("injected fault", name) when it fires, else OK.
  [[nodiscard]] Status InjectedFault(const char* name) {
    return FaultPoint(name) ? Status::IOError("injected fault", name) : Status::OK();
  }

  // Coverage probes (SHALE_PROBE, util/probes.h): a probe's hit adds one
  // to counts[index], once a runtime was given counts; until then (and
  // always in the real runtime) it is one branch that is never taken, and
  // nothing else. Not virtual, so it costs no call. Counting changes no
  // behaviour. REQUIRES: calls to Probe are serialized (the simulator runs
  // one thread at a time); counts has slots entries and outlives every
  // Probe call.
  void CountProbesIn(uint64_t* counts, size_t slots) {
    probe_counts_ = counts;
    probe_slots_ = slots;
  }
  void Probe(size_t index) {
    if (index < probe_slots_) probe_counts_[index]++;
  }

 private:
  uint64_t* probe_counts_ = nullptr;
  size_t probe_slots_ = 0;
};

// ---------------------------------------------------------------------------
// Env bundles the three. Subclass it (or use Env::Default()).
// ---------------------------------------------------------------------------
class Env {
 public:
  Env(FileSystem* fs, Clock* clock, Runtime* runtime) : fs_(fs), clock_(clock), runtime_(runtime) {}
  virtual ~Env() = default;

  FileSystem* fs() const { return fs_; }
  Clock* clock() const { return clock_; }
  Runtime* runtime() const { return runtime_; }

  // The real backend: POSIX files and std::thread. Never destroyed.
  static Env* Default();

 private:
  FileSystem* fs_;
  Clock* clock_;
  Runtime* runtime_;
};

// Reads the whole file at path into *data.
[[nodiscard]] Status ReadFileToString(FileSystem* fs, const std::string& path, std::string* data);
// Writes data to path; if sync, fdatasyncs it (the name is NOT made durable).
[[nodiscard]] Status WriteStringToFile(FileSystem* fs, const Slice& data, const std::string& path,
                                       bool sync);

}  // namespace shale
