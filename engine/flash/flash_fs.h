// FlashFs: the implementation of FlashFileSystem (shale/flash_file_system.h;
// the contract is there). This header is shared by its parts:
//   flash_fs.cc        the FileSystem calls, the file table, erasing
//   flash_writer.cc    FlashWritableFile: the write buffer and chunk chains
//   flash_readers.cc   sequential and random-access readers, the read cache
//   flash_mount.cc     rebuilding the file table from the device
//
// Locking: mu_ guards the file table, every FileEntry, the open-chunk table,
// the block manager and the counters. No device call is made under mu_.
// alloc_mu_ (taken before mu_, never after) serializes opening chunks, so
// that two writers never both seal the same chunk to stay under the
// device's open-chunk limit.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flash/block_manager.h"
#include "flash/flash_format.h"
#include "shale/cache.h"
#include "shale/flash_file_system.h"

namespace shale::flash {

// One DATA sector of a file, as it sits on the device.
struct Extent {
  uint64_t file_offset = 0;
  uint32_t chunk = 0;
  uint32_t sector = 0;
  uint32_t bytes = 0;  // valid bytes from the sector's start
};

// A file on flash, in memory. Guarded by FlashFs::mu_.
struct FileEntry {
  std::string path;
  uint64_t id = 0;
  uint64_t size = 0;
  // DATA sectors in file order; they hold at least [0, readable_end).
  std::vector<Extent> extents;
  // Bytes below this may be read from the device; the rest sit in the
  // device cache or the writer's buffer, and tail holds a copy of them.
  uint64_t readable_end = 0;
  std::string tail;             // bytes [readable_end, size)
  std::vector<uint32_t> chain;  // chunks in chain order
  // The chain index the next chunk gets: past every index this file has
  // used, dropped chunks included (they may not be erased yet).
  uint32_t next_chain_index = 0;
  bool writer_open = false;
  uint64_t programmed_end = 0;  // file offset past the last byte programmed
  bool deleted = false;         // no name any more; erased when handles reach 0
  int handles = 0;              // open readers and writers
};

// A chunk OPEN on the device that this instance wrote or found at mount.
struct OpenChunk {
  std::shared_ptr<FileEntry> file;  // nullptr once the file is gone
  uint64_t file_id = 0;
  uint32_t chain_index = 0;
  uint32_t write_pointer = 0;
  uint64_t data_bytes = 0;
  uint64_t file_end = 0;  // file offset just past its last DATA byte
  uint32_t data_crc = 0;  // unmasked CRC32C of its DATA bytes so far
  bool crc_valid = true;
  bool active = false;   // a writer writes it now: never sealed
  bool sealing = false;  // being padded to its end: not erased meanwhile
  bool erasing = false;  // to be reset: OPEN until it is done
};

// Moves file's readable end up to readable (never past its size), dropping
// the tail copy below it. REQUIRES: FlashFs::mu_ held.
void MakeReadable(FileEntry* file, uint64_t readable);
// Cuts file to size bytes: extents, tail and readable end. REQUIRES:
// FlashFs::mu_ held, size <= file->size.
void CutExtents(FileEntry* file, uint64_t size);

class FlashFs final : public FlashFileSystem {
 public:
  FlashFs(FlashDevice* device, FileSystem* small_files, Runtime* runtime,
          const FlashFsOptions& options);
  ~FlashFs() override;

  // Rebuilds the file table and starts the eraser (flash_mount.cc).
  [[nodiscard]] Status Mount();

  // ---- FileSystem
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

  // ---- FlashFileSystem
  FlashFsStats stats() const override;
  // Both read without mu_ (see their contract: no thread uses the instance,
  // and a dead process may have died holding it), so unchecked.
  FlashFsStats final_stats() const override ABSL_NO_THREAD_SAFETY_ANALYSIS { return stats_; }
  std::vector<std::string> FilesWithUnprogrammedData() const override
      ABSL_NO_THREAD_SAFETY_ANALYSIS;
  void Shutdown() override;

  // ---- for the writer and readers (each takes mu_ itself unless noted)
  FlashDevice* device() const { return device_; }
  const FlashGeometry& geometry() const { return geometry_; }
  uint64_t planted_bugs() const { return options_.planted_bugs; }
  uint64_t owner_id() const { return options_.owner_id; }
  bool buffer_across_flush() const { return options_.buffer_across_flush; }
  Mutex* mu() const ABSL_LOCK_RETURNED(mu_) { return mu_.get(); }
  FlashFsStats* mutable_stats() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return &stats_; }
  // A chunk for a file's next link (previous: its last chunk, or kNoChunk),
  // opened on the device's terms: if the device is at its open-chunk
  // limit, an inactive OPEN chunk is sealed first. The chunk is recorded
  // as OPEN and active for file.
  // reserved: a chunk ReserveChunk gave this file, or kNoChunk to allocate.
  [[nodiscard]] Status OpenChunkFor(const std::shared_ptr<FileEntry>& file, uint32_t previous,
                                    uint32_t reserved, uint32_t* chunk);
  // A free chunk set aside for a file's next link (kNoChunk if none is
  // free); ReleaseChunk gives back one that was never opened.
  uint32_t ReserveChunk(uint32_t previous);
  void ReleaseChunk(uint32_t chunk);
  // Programs a batch at chunk:sector, counting it; the device's status.
  [[nodiscard]] Status Program(uint32_t chunk, uint32_t sector, const SectorBatch& batch);
  // The writer's view of an OPEN chunk changed.
  OpenChunk* open_chunk(uint32_t chunk) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);  // nullptr if not open
  void ChunkClosed(uint32_t chunk) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A program failure closed chunk early. One that holds none of its
  // file's data leaves the chain and is erased (it will go OFFLINE).
  void ChunkFailed(uint32_t chunk, bool holds_data) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A handle of file closed (the eraser may then take a deleted file).
  void ReleaseHandle(const std::shared_ptr<FileEntry>& file);
  // Reads [offset, offset+n) of file into scratch (REQUIRES: within size).
  [[nodiscard]] Status ReadFile(const std::shared_ptr<FileEntry>& file, uint64_t offset, size_t n,
                                char* scratch);

 private:
  // Mount's steps (flash_mount.cc).
  struct ChunkScan;
  [[nodiscard]] Status PadOpenChunks(std::vector<ChunkDescriptor>* report);
  [[nodiscard]] Status ScanChunk(uint32_t chunk, const ChunkDescriptor& d, ChunkScan* scan);
  // Reads the sectors after START into scan's records (data and oob: the
  // chunk's sectors as read; unreadable: which failed to read).
  void ScanRecords(const std::string& data, const std::string& oob,
                   const std::vector<bool>& unreadable, ChunkScan* scan) const;
  static void NoteClose(Slice payload, ChunkScan* scan);
  // Appends bytes that damage at chunk:sector took to file, as extents on
  // that sector (reading them fails); chunk kNoChunk: a chunk lost whole
  // held them. REQUIRES: mu_ held.
  void AddLostRange(uint32_t chunk, uint32_t sector, uint64_t bytes, FileEntry* file)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Groups the scanned chunks into files and fills the file table, the
  // open-chunk table and the erase queue. REQUIRES: mu_ not held.
  void AdoptFiles(std::vector<ChunkScan>* scans);
  void AdoptFile(uint64_t id, const std::vector<const ChunkScan*>& chunks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyChunk(const ChunkScan& scan, FileEntry* file) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool FollowsLostChunk(const ChunkScan& scan, const FileEntry& file, uint32_t previous) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropChunk(const ChunkScan& scan) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::shared_ptr<FileEntry> Find(const std::string& path) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops the name; queues the chunks for erasing once no handle is open.
  void Unlink(const std::shared_ptr<FileEntry>& file) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void QueueChunks(const FileEntry& file) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  [[nodiscard]] Status NewFlashWriter(const std::string& path, bool reopen,
                                      std::unique_ptr<WritableFile>* result);
  // Pads an inactive OPEN chunk by up to sectors (to its end, closing it
  // with a CLOSE sector, when seal), so that nothing it holds stays in the
  // device cache; then its file's data there is readable from the device.
  // The chunk is marked sealing meanwhile: no one else pads it, and a
  // delete meanwhile queues its erase only once the padding is done. A
  // chunk not inactive and OPEN is left alone. REQUIRES: mu_ held (released
  // during the device write).
  [[nodiscard]] Status PadInactive(uint32_t chunk, uint32_t sectors, bool seal)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a deleted file's chunk waits for its padding before its erase.
  bool ErasingUnderPadding() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes sectors of PAD at the write pointer of an OPEN chunk (the last
  // one a CLOSE sector if they reach its end); state is the chunk's, and
  // its write pointer moves. A program failure also ends the padding (the
  // chunk closed early). REQUIRES: neither mutex held by this call's data.
  [[nodiscard]] Status PadChunk(uint32_t chunk, OpenChunk* state, uint32_t sectors, bool* closed);
  // n physically consecutive DATA sectors of file (run[0..n) share a
  // chunk), through the read cache, each checked against its tag
  // (Corruption naming the file if it holds anything else).
  [[nodiscard]] Status ReadRun(const FileEntry& file, const Extent* run, size_t n,
                               std::vector<std::string>* sectors);
  void DropCachedChunk(uint32_t chunk);
  // Mount's first step: no other thread exists yet, so no lock (and no
  // scheduling point in the simulator) is taken.
  void InstallBlockManager(std::unique_ptr<BlockManager> blocks) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    blocks_ = std::move(blocks);
  }
  void EraserLoop();
  void StartEraser();

  FlashDevice* const device_;
  FileSystem* const small_;
  Runtime* const runtime_;
  const FlashFsOptions options_;
  const FlashGeometry geometry_;
  std::unique_ptr<Mutex> alloc_mu_;
  std::unique_ptr<Mutex> mu_;
  std::unique_ptr<CondVar> erase_cv_;   // work queued, or shutting down
  std::unique_ptr<CondVar> erased_cv_;  // the queue drained
  std::map<std::string, std::shared_ptr<FileEntry>> files_ ABSL_GUARDED_BY(mu_);
  std::map<uint32_t, OpenChunk> open_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<BlockManager> blocks_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<Cache> read_cache_;
  FlashFsStats stats_ ABSL_GUARDED_BY(mu_);
  uint64_t next_file_id_ ABSL_GUARDED_BY(mu_) = 1;
  int erases_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<Thread> eraser_;
};

}  // namespace shale::flash
