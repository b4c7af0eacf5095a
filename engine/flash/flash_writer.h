// FlashWritableFile: appends to a file on flash through a write buffer of
// one ws_opt unit (see shale/flash_file_system.h for the durability
// contract, flash_format.h for the sectors it writes).
//
// The writer owns the chain's last chunk while it is open: it knows the
// chunk's write pointer, where the device cache starts, and which of its
// DATA sectors may still sit in that cache. Each device write is one unit:
// at most ws_opt sectors, a multiple of ws_min, that starts at the write
// pointer and never crosses the chunk's end. A unit whose first slot is
// sector 0 carries the START sector; one whose last slot is the chunk's
// last sector carries the CLOSE sector (the chunk is then full and closed).
// The slots between hold DATA from the buffer, then PAD.
//
// A program failure closes the chunk early (the device keeps what came
// before); the writer retires it and writes the same unit into a fresh
// chunk, up to kMaxProgramAttempts times.
//
// Thread safety: one thread at a time (as WritableFile).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flash/flash_fs.h"

namespace shale::flash {

class FlashWritableFile final : public WritableFile {
 public:
  // Appends to file (reopen: after its recovered contents, in a new chunk).
  // REQUIRES: the caller registered this handle in file->handles.
  FlashWritableFile(FlashFs* fs, std::shared_ptr<FileEntry> file);
  ~FlashWritableFile() override;

  Status Append(const Slice& data) override;
  // Only at the end of the file (offset == size); else NotSupported.
  Status PositionedAppend(const Slice& data, uint64_t offset) override;
  Status Truncate(uint64_t size) override;
  Status Flush() override;
  Status Sync() override;
  Status Fsync() override { return Sync(); }
  Status Allocate(uint64_t offset, uint64_t len) override;
  Status Close() override;
  uint64_t GetFileSize() const override { return size_; }

  static constexpr int kMaxProgramAttempts = 4;

 private:
  enum class Fill : uint8_t { kWholeSectorsOnly, kAll, kPadOnly };
  // One device write being put together.
  struct Unit {
    explicit Unit(const FlashGeometry& g) : batch(g.sector_bytes, g.oob_bytes) {}
    SectorBatch batch;
    uint32_t sectors = 0;
    size_t consumed = 0;      // buffer bytes it carries
    uint32_t data_crc = 0;    // the chunk's CRC with this unit's DATA
    uint64_t data_bytes = 0;  // the chunk's DATA bytes with this unit's
    std::vector<Extent> extents;
    bool closes = false;       // it carries the CLOSE sector
    bool truncates = false;    // it carries the TRUNCATE sector
    uint32_t next = kNoChunk;  // reserved for the next link (closes only)
  };
  // Writes one unit (see the file comment), retrying a program failure in
  // a fresh chunk. kWholeSectorsOnly writes only if the buffer fills every
  // DATA slot; kAll writes the buffer (and a pending TRUNCATE), padded to
  // ws_min; kPadOnly writes pad_sectors of PAD (rounded up to ws_min, cut
  // at the chunk's end). *wrote says whether a unit was written.
  [[nodiscard]] Status WriteUnit(Fill fill, uint32_t pad_sectors, bool* wrote);
  // How many slots the next unit has; false if kWholeSectorsOnly has too
  // little to write.
  bool PlanUnit(Fill fill, uint32_t pad_sectors, Unit* unit);
  void BuildUnit(Fill fill, uint32_t sectors, Unit* unit);
  // The unit is on the device: the buffer, chunk and file views follow.
  void Committed(const Unit& unit);
  // A program failure closed chunk_ early: it leaves the writer, and what
  // it holds has left the device cache.
  void Retire();
  [[nodiscard]] Status EnsureChunk();
  // Programs the buffer: whole units, and with flush_partial the rest too.
  [[nodiscard]] Status Drain(bool flush_partial);
  // Pads until nothing written so far sits in the device cache.
  [[nodiscard]] Status PadPastCache();
  [[nodiscard]] Status Usable() const;

  FlashFs* const fs_;
  const std::shared_ptr<FileEntry> file_;
  const FlashGeometry geometry_;
  std::string buffer_;          // appended, not yet programmed
  uint64_t buffer_offset_ = 0;  // file offset of buffer_[0]
  uint64_t size_ = 0;
  uint32_t chunk_ = kNoChunk;       // the chain's last chunk, if this writer opened it
  uint32_t next_chunk_ = kNoChunk;  // reserved for the chain's next link
  uint32_t chain_index_ = 0;        // of chunk_, or of the next chunk to open
  uint32_t write_pointer_ = 0;
  uint32_t cache_start_ = 0;
  uint64_t chunk_data_bytes_ = 0;
  uint32_t chunk_crc_ = 0;
  // DATA sectors of chunk_ that may be in the device cache: (sector, file
  // offset just past its bytes), oldest first.
  std::deque<std::pair<uint32_t, uint64_t>> cached_data_;
  std::optional<uint64_t> truncate_to_;  // a TRUNCATE not yet written
  Status error_;                         // sticky: a write the device refused
  bool closed_ = false;
};

}  // namespace shale::flash
