// FileFlashDevice: an open-channel SSD kept in one real file, so that the
// flash backend runs with real threads and real I/O (`shale bench
// --fs=flash`, real-backend runs). It enforces the same chunk rules as the
// simulated device, through the same flash::ChunkTable
// (engine/flash/chunk_table.h): a call that breaks one fails with
// InvalidArgument "device rule: ...". It has no latency model, no power
// loss and no injected failures; a reset past max_resets still takes a
// chunk OFFLINE.
//
// File layout (little-endian):
//   [0, 4096)          header: "SHLFDEV1", then the geometry's fields as
//                      u32 (groups, units per group, chunks per unit,
//                      sectors per chunk, sector bytes, OOB bytes, ws_min,
//                      ws_opt, mw_cunits, max open chunks, max resets,
//                      zeros past write pointer)
//   then per chunk     16 bytes: state u8, grown bad u8, 2 zero bytes,
//                      write pointer u32, wear u32, 4 zero bytes
//   then sector data   chunks x sectors x sector_bytes, chunk by chunk
//   then OOB           chunks x sectors x oob_bytes
// The file is sparse where nothing was written. A chunk's record is
// rewritten after each write and reset, after its data: a process killed
// in between leaves data the record does not count, never the reverse.
//
// Thread safety: every method may be called concurrently (one mutex).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flash/chunk_table.h"
#include "shale/flash_device.h"

namespace shale {

class FileFlashDevice final : public FlashDevice {
 public:
  // Opens the device file at path, creating it with geometry if absent. An
  // existing file must hold the same geometry (else InvalidArgument).
  [[nodiscard]] static Status Open(const std::string& path, const FlashGeometry& geometry,
                                   std::unique_ptr<FileFlashDevice>* result);
  ~FileFlashDevice() override;

  const FlashGeometry& geometry() const override { return geometry_; }
  Status ReportChunks(std::vector<ChunkDescriptor>* report) override;
  Status Write(uint32_t chunk, uint32_t sector, const Slice& data, const Slice& oob) override;
  Status Read(uint32_t chunk, uint32_t sector, uint32_t count, char* data, char* oob) override;
  Status Reset(uint32_t chunk) override;

 private:
  FileFlashDevice(std::string path, int fd, const FlashGeometry& geometry);
  [[nodiscard]] Status Load(bool created);
  [[nodiscard]] Status SaveRecord(uint32_t chunk);
  uint64_t DataOffset(uint32_t chunk, uint32_t sector) const;
  uint64_t OobOffset(uint32_t chunk, uint32_t sector) const;
  [[nodiscard]] Status PRead(uint64_t offset, size_t n, char* out) const;
  [[nodiscard]] Status PWrite(uint64_t offset, const char* data, size_t n) const;

  const std::string path_;
  const int fd_;
  const FlashGeometry geometry_;
  std::mutex mu_;
  flash::ChunkTable table_;  // guarded by mu_
};

}  // namespace shale
