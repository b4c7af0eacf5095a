// FlashFileSystem: a FileSystem that keeps the engine's WAL, table and
// MANIFEST files directly on an open-channel SSD (shale/flash_device.h),
// and every other file (CURRENT, LOCK, LOG, temporary files) on a small
// POSIX FileSystem handed to it. It is a storage backend in user space:
// its buffers live in the process, and it manages the flash itself.
//
// On-flash format: engine/flash/flash_format.h (and docs/flash_format.md).
// In short, a file is a chain of chunks; each chunk starts with a START
// sector (file name, file id, owner, position in the chain and in the
// file), holds DATA sectors whose OOB tags give file id, file offset, valid
// bytes and a CRC, and ends, once full, with a CLOSE sector (data bytes,
// next chunk, CRC32C of the chunk's data). Mounting rebuilds every file from
// this alone.
//
// Durability contract (env.h's, with these differences):
//  * Append buffers up to one ws_opt unit in the process. Flush() programs
//    what is buffered (the last sector partly filled, the write padded to
//    ws_min), so a process crash keeps every flushed byte, unless
//    FlashFsOptions::buffer_across_flush keeps it buffered. The device then
//    still holds the last mw_cunits sectors in its cache: a power loss may
//    lose or tear them.
//  * Sync()/Fsync() programs the buffer and then mw_cunits more sectors of
//    padding (rounded up to ws_min; fewer if the chunk fills first), so
//    that every synced byte has left the device cache. That padding is the
//    price of a sync: at most mw_cunits + ws_min - 1 sectors.
//  * Delete removes the name at once and erases (resets) the file's chunks
//    in the background once its last handle closes. A power loss before the
//    erase brings the file back; SyncDir waits for the erases queued so far,
//    so a delete followed by SyncDir is durable.
//  * Rename of a flash file is NotSupported (the engine renames only
//    CURRENT, which lives on the POSIX side). Truncate may only shorten a
//    file; it is a TRUNCATE sector, volatile until Sync.
//  * Files on flash are never direct I/O (the backend is its own buffer
//    cache); they ignore FileOptions::use_direct_io.
//
// Mount (OpenFlashFileSystem) rebuilds the file table: for each chunk with
// a valid START sector of this owner, the chain is read in chain order,
// and a chunk that does not start where the file's contents so far end is
// dropped. A sector that is unreadable or fails its CRC ends a chunk's
// contents (a torn tail), unless a later sector of the chunk continues
// the file past where it stopped, or the chunk's CLOSE counted more data
// than was read: then the damage took data from the middle of the file,
// and that range stays in the file, reading it fails (IOError or
// Corruption naming the file, chunk and sector). Likewise a chunk whose
// chain index skips some and that starts past the file's end follows
// chunks lost whole: the range between stays in the file and reading it
// fails (Corruption naming the file). An OPEN chunk is first padded past its device
// cache (the previous instance may have died with data there), before its
// START is read: a device serves one owner at a time. Chunks that belong to
// no file (a torn START, a file whose first chunk is gone because its
// delete was interrupted) are erased in the background.
//
// Reopening a file first pads its last chunk past the device cache, so a
// Sync through the new handle covers what earlier handles wrote.
//
// Reads go through a bounded page cache of sectors (read_cache_bytes; 0
// turns it off), filled on misses and dropped when a chunk is erased.
//
// Thread safety: as FileSystem; one background thread (from the Runtime)
// erases chunks. Ownership: borrows the device, the small-file system and
// the runtime, which must outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shale/env.h"
#include "shale/flash_device.h"

namespace shale {

struct FlashFsOptions {
  // Written into every chunk this instance starts; chunks of another owner
  // are left alone.
  uint64_t owner_id = 1;
  // Bytes of sectors kept for reads (an LRU of whole sectors); 0: none.
  uint64_t read_cache_bytes = 0;
  // The write buffer holds across Flush(): only a full ws_opt unit, Sync()
  // or Close() programs it, so small appends (WAL records) share units.
  // The cost: a process crash loses what was flushed and not synced, as a
  // power loss does. Off: every Flush() programs the buffer (its last
  // sector part-filled, the unit padded to ws_min).
  bool buffer_across_flush = false;
  // Options::planted_bugs bits (tests only); the flash ones are read here.
  uint64_t planted_bugs = 0;
};

struct FlashFsStats {
  uint64_t bytes_appended = 0;      // what the engine wrote
  uint64_t sectors_programmed = 0;  // every sector this backend wrote, all kinds
  uint64_t data_sectors = 0;
  uint64_t pad_sectors = 0;       // ws_min rounding, sync padding, sealing
  uint64_t metadata_sectors = 0;  // START, CLOSE, TRUNCATE
  uint64_t chunks_allocated = 0;
  uint64_t chunks_sealed = 0;  // closed by padding to free an open slot
  uint64_t resets = 0;
  uint64_t program_failures = 0;  // met and written around
  uint64_t erase_failures = 0;
  uint64_t read_cache_hits = 0;
  uint64_t read_cache_misses = 0;
  uint64_t files_recovered = 0;       // by the last mount
  uint64_t chunks_dropped = 0;        // by the last mount: no file owns them
  uint64_t damaged_ranges_found = 0;  // by the last mount: data lost mid-file
};

class FlashFileSystem : public FileSystem {
 public:
  // A snapshot of the counters.
  virtual FlashFsStats stats() const = 0;
  // The counters without taking the lock. REQUIRES: no thread uses the
  // instance any more (it was shut down, or its process died).
  virtual FlashFsStats final_stats() const = 0;
  // The files whose writers hold appended bytes not yet programmed (they
  // die with the process), sorted. REQUIRES: as final_stats.
  virtual std::vector<std::string> FilesWithUnprogrammedData() const = 0;
  // Waits for queued erases, then stops the background thread. Also done
  // by the destructor. Afterwards creating, deleting and SyncDir fail.
  virtual void Shutdown() = 0;
};

// Mounts the backend: rebuilds the file table from the device (see above).
// REQUIRES: device->geometry().Invalid() is empty and its oob_bytes >= 32.
[[nodiscard]] Status OpenFlashFileSystem(FlashDevice* device, FileSystem* small_files,
                                         Runtime* runtime, const FlashFsOptions& options,
                                         std::unique_ptr<FlashFileSystem>* result);

// Whether path names a file the backend keeps on flash (a WAL, table or
// MANIFEST file by its name).
bool IsFlashFileName(const std::string& path);

}  // namespace shale
