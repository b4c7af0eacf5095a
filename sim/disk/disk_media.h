// DiskMedia and MediaFile: what a simulated disk lets a fault-injecting
// FileSystem decorator (faults/fault_injecting_fs.h) do to its media.
//
// Failing a call needs nothing from the disk: the decorator returns the
// error and never makes the call. But some faults happen below the file
// system, where only the disk can put them: what a failed sync does to the
// dirty pages, a sector that can no longer be read, a write the device put
// at the wrong place, and bits that rot in durable data. Every simulated
// disk (the POSIX SimDisk, and layers over it such as the WindowsDisk)
// implements these two interfaces, so one decorator serves them all.
//
//  * MediaFile is implemented by every file handle the disk returns, beside
//    SequentialFile, RandomAccessFile or WritableFile (the decorator finds
//    it with dynamic_cast). A layer over another disk forwards to the
//    handle below after applying its own rules to the call.
//  * DiskMedia is implemented by the disk itself: crash-time damage to
//    durable data, chosen from the files that have any.
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shale/env.h"

namespace shale::sim {

// The media's unit of damage: a misdirected write moves by whole sectors;
// an unreadable sector spans this many bytes.
inline constexpr uint64_t kMediaSectorBytes = 512;

// What a failed Sync/Fsync does with the file's dirty pages (sim_disk.h, "A
// Sync that fails").
enum class FailedSync : uint8_t { kDropsPages, kKeepsPages, kMarksClean };

// An I/O error made to name the file it hit, as a POSIX Env reports errno
// (an error that already names it, and any other status, is unchanged).
inline Status NamingPath(const Status& s, const std::string& path) {
  if (!s.IsIOError() || s.message().find(path) != std::string::npos) return s;
  if (s.IsNoSpace()) return Status::NoSpace(s.message(), path);
  if (s.IsPathNotFound()) return Status::PathNotFound(s.message(), path);
  return Status::IOError(s.message(), path);
}

class MediaFile {
 public:
  virtual ~MediaFile() = default;

  struct Sizes {
    uint64_t visible_bytes = 0;  // what reads see (the page cache)
    uint64_t durable_bytes = 0;  // what a power loss would keep, before its survivors
  };
  // The file's sizes now; zeros for a closed or dead handle. No scheduling
  // point, latency or trace.
  virtual Sizes MediaSizes() const = 0;

  // Sector `sector` (byte offset / kMediaSectorBytes) of the file becomes
  // unreadable for good: any read whose bytes touch it fails. Folded into
  // the trace; no scheduling point or latency. Nothing on a closed handle.
  virtual void MarkSectorUnreadable(uint64_t sector) = 0;

  // A Sync (or Fsync) call that fails with error (non-OK) and does `fate`
  // to the dirty pages: the same scheduling point, latency and trace as the
  // call itself, and the same rules a layer applies to it.
  // REQUIRES: a writable handle; other handles return InvalidArgument.
  virtual Status FailSync(const Status& error, FailedSync fate) {
    (void)error;
    (void)fate;
    return Status::InvalidArgument("FailSync on a handle that does not write");
  }

  // An Append (offset empty) or PositionedAppend(offset) call whose bytes
  // the device puts in sector landing_sector, at their offset within their
  // sector (the next sector, if landing_sector is where they were meant to
  // go). The intended range keeps its old bytes (zeros past the old end;
  // the file still grows to cover it). Everything else, including the
  // layer's own rules and the call's result, is as for the plain call.
  // REQUIRES: a writable handle; other handles return InvalidArgument.
  virtual Status WriteMisdirected(const Slice& data, std::optional<uint64_t> offset,
                                  uint64_t landing_sector) {
    (void)data;
    (void)offset;
    (void)landing_sector;
    return Status::InvalidArgument("WriteMisdirected on a handle that does not write");
  }
};

class DiskMedia {
 public:
  virtual ~DiskMedia() = default;

  struct DurableFile {
    std::string path;
    uint64_t size_bytes = 0;
  };
  // Every durably named file with its durable size, sorted by path.
  virtual std::vector<DurableFile> DurableFiles() const = 0;
  // The durable contents of path. NotFound if no such durable name.
  virtual Status ReadDurable(const std::string& path, std::string* data) const = 0;
  // Flips bit `bit` of byte `byte_offset` of path's durable data (a clean
  // page cache sees it too). NotFound if no such durable file;
  // InvalidArgument if byte_offset is past its durable end or bit > 7.
  virtual Status CorruptDurable(const std::string& path, uint64_t byte_offset, int bit) = 0;
};

}  // namespace shale::sim
