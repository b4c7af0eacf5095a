// Mounting: rebuilding the file table from the device alone (the rules are
// in shale/flash_file_system.h, the sectors in flash_format.h).
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "flash/flash_fs.h"
#include "shale/options.h"
#include "util/crc32c.h"
#include "util/mutexlock.h"
#include "version/filename.h"

namespace shale::flash {

// What one chunk holds, read back sector by sector.
struct FlashFs::ChunkScan {
  uint32_t chunk = 0;
  enum class Owner : uint8_t { kOurs, kForeign, kNone } owner = Owner::kNone;
  ChunkStart start;
  bool open = false;  // OPEN on the device now
  uint32_t write_pointer = 0;
  // The chunk's DATA and TRUNCATE sectors in write order, and the sectors
  // between them that are unreadable or fail their check (damaged): a
  // torn tail a power loss left, or damage at rest (ApplyChunk tells them
  // apart).
  struct Record {
    SectorKind kind = SectorKind::kData;
    uint32_t sector = 0;
    uint64_t file_offset = 0;  // DATA: where; TRUNCATE: the new size
    uint32_t bytes = 0;
    bool damaged = false;  // then only sector is set
  };
  std::vector<Record> records;
  uint32_t data_crc = 0;
  uint64_t data_bytes = 0;        // of the DATA sectors read whole
  bool damaged = false;           // some record is
  bool has_close = false;         // a CLOSE of this chunk was read
  uint64_t close_data_bytes = 0;  // the DATA bytes that CLOSE counted
  bool close_mismatch = false;    // an undamaged chunk whose CLOSE disagrees
};

namespace {

bool IsLogName(const std::string& path) {
  const size_t slash = path.rfind('/');
  uint64_t number = 0;
  FileType type;
  return ParseFileName(slash == std::string::npos ? path : path.substr(slash + 1), &number,
                       &type) &&
         type == FileType::kLogFile;
}

// Reads [0, count) of chunk into data/oob; (*unreadable)[i] says whether
// sector i could not be read (its bytes are then zeros).
Status ReadChunk(FlashDevice* device, uint32_t chunk, uint32_t count, std::string* data,
                 std::string* oob, std::vector<bool>* unreadable) {
  const FlashGeometry& g = device->geometry();
  data->assign(uint64_t{count} * g.sector_bytes, '\0');
  oob->assign(uint64_t{count} * g.oob_bytes, '\0');
  unreadable->assign(count, false);
  if (count == 0) return Status::OK();
  if (device->Read(chunk, 0, count, data->data(), oob->data()).ok()) return Status::OK();
  for (uint32_t sector = 0; sector < count; sector++) {
    char* sector_data = data->data() + uint64_t{sector} * g.sector_bytes;
    char* sector_oob = oob->data() + uint64_t{sector} * g.oob_bytes;
    Status s = device->Read(chunk, sector, 1, sector_data, sector_oob);
    if (s.IsInvalidArgument()) return s;  // a device rule: a bug here
    if (s.ok()) continue;
    (*unreadable)[sector] = true;
    std::memset(sector_data, 0, g.sector_bytes);
    std::memset(sector_oob, 0, g.oob_bytes);
  }
  return Status::OK();
}

}  // namespace

Status FlashFs::Mount() {
  std::vector<ChunkDescriptor> report;
  Status s = device_->ReportChunks(&report);
  if (!s.ok()) return s;
  if (report.size() != geometry_.chunks()) {
    return Status::IOError("flash: chunk report of the wrong length");
  }
  InstallBlockManager(std::make_unique<BlockManager>(geometry_, report, options_.planted_bugs));
  const std::vector<ChunkDescriptor> found = report;
  s = PadOpenChunks(&report);
  if (!s.ok()) return s;
  std::vector<ChunkScan> scans;
  for (uint32_t chunk = 0; chunk < report.size(); chunk++) {
    const ChunkDescriptor& d = report[chunk];
    if (d.state == ChunkState::kFree || d.state == ChunkState::kOffline) continue;
    ChunkScan scan;
    s = ScanChunk(chunk, d, &scan);
    if (!s.ok()) return s;
    if ((options_.planted_bugs & kBugFlashRecoveryIgnoresOob) != 0 &&
        found[chunk].state == ChunkState::kOpen && IsLogName(scan.start.name)) {
      scan.records.clear();  // planted: a log's open chunk is not scanned
    }
    scans.push_back(std::move(scan));
  }
  AdoptFiles(&scans);
  StartEraser();
  return Status::OK();
}

Status FlashFs::PadOpenChunks(std::vector<ChunkDescriptor>* report) {
  if (geometry_.mw_cunits == 0) return Status::OK();
  for (uint32_t chunk = 0; chunk < report->size(); chunk++) {
    ChunkDescriptor& d = (*report)[chunk];
    if (d.state != ChunkState::kOpen || d.write_pointer == 0) continue;
    // The previous instance may have died with sectors in the device
    // cache; padding pushes them out so they can be read.
    OpenChunk state;
    state.write_pointer = d.write_pointer;
    state.crc_valid = false;
    bool closed = false;
    Status s = PadChunk(chunk, &state, geometry_.mw_cunits, &closed);
    if (!s.ok()) return s;
    d.write_pointer = state.write_pointer;
    if (closed) d.state = ChunkState::kClosed;
  }
  return Status::OK();
}

Status FlashFs::ScanChunk(uint32_t chunk, const ChunkDescriptor& d, ChunkScan* scan) {
  scan->chunk = chunk;
  scan->open = d.state == ChunkState::kOpen;
  scan->write_pointer = d.write_pointer;
  // An OPEN chunk's last mw_cunits sectors are in the device cache: the
  // mount's own padding (PadOpenChunks), never read.
  const uint32_t cached = scan->open ? std::min(d.write_pointer, geometry_.mw_cunits) : 0;
  std::string data, oob;
  std::vector<bool> unreadable;
  Status s = ReadChunk(device_, chunk, d.write_pointer - cached, &data, &oob, &unreadable);
  if (!s.ok() || unreadable.empty() || unreadable[0]) return s;
  SectorTag tag;
  if (!DecodeTag(data.data(), geometry_.sector_bytes, oob.data(), geometry_.oob_bytes, &tag) ||
      tag.kind != SectorKind::kStart ||
      !DecodeChunkStart(Slice(data.data(), tag.valid_bytes), &scan->start) ||
      scan->start.file_id != tag.file_id || scan->start.chain_index != tag.chain_index) {
    return Status::OK();  // a torn or garbage START: no file's
  }
  if (scan->start.owner_id != options_.owner_id) {
    scan->owner = ChunkScan::Owner::kForeign;
    return Status::OK();
  }
  scan->owner = ChunkScan::Owner::kOurs;
  ScanRecords(data, oob, unreadable, scan);
  return Status::OK();
}

void FlashFs::ScanRecords(const std::string& data, const std::string& oob,
                          const std::vector<bool>& unreadable, ChunkScan* scan) const {
  const uint32_t sector_bytes = geometry_.sector_bytes;
  const uint32_t oob_bytes = geometry_.oob_bytes;
  const bool verify_crc = (options_.planted_bugs & kBugFlashMountAcceptsBadCrc) == 0;
  for (uint32_t sector = 1; sector < unreadable.size(); sector++) {
    const char* sector_data = data.data() + uint64_t{sector} * sector_bytes;
    SectorTag tag;
    const bool whole = !unreadable[sector] && DecodeTag(sector_data, sector_bytes,
                                                        oob.data() + uint64_t{sector} * oob_bytes,
                                                        oob_bytes, &tag, verify_crc);
    if (whole && tag.kind == SectorKind::kPad) continue;  // mount padding carries no file id
    ChunkScan::Record record{tag.kind, sector, tag.file_offset, tag.valid_bytes};
    const bool ours = whole && tag.file_id == scan->start.file_id &&
                      tag.chain_index == scan->start.chain_index &&
                      tag.kind != SectorKind::kStart &&
                      (tag.kind != SectorKind::kTruncate ||
                       DecodeTruncate(Slice(sector_data, tag.valid_bytes), &record.file_offset));
    if (ours && tag.kind == SectorKind::kClose) {
      NoteClose(Slice(sector_data, tag.valid_bytes), scan);
      return;
    }
    if (!ours) {
      scan->records.push_back({SectorKind::kData, sector, 0, 0, /*damaged=*/true});
      scan->damaged = true;
      continue;
    }
    if (tag.kind == SectorKind::kData) {
      scan->data_crc = crc32c::Extend(scan->data_crc, sector_data, tag.valid_bytes);
      scan->data_bytes += tag.valid_bytes;
    }
    scan->records.push_back(record);
  }
}

void FlashFs::NoteClose(Slice payload, ChunkScan* scan) {
  ChunkClose close;
  const bool decoded = DecodeChunkClose(payload, &close);
  if (decoded && close.file_id == scan->start.file_id) {
    scan->has_close = true;
    scan->close_data_bytes = close.data_bytes;
  }
  // With damage in the chunk, the CLOSE is expected to disagree: ApplyChunk
  // takes the bytes it counted as evidence of what the damage took.
  scan->close_mismatch =
      !scan->damaged && (!decoded || (close.crc_valid && (close.data_crc != scan->data_crc ||
                                                          close.data_bytes != scan->data_bytes)));
}

// Whether scan, the chunk of file after the one with chain index
// previous (which joined the file), starts past the file's end with chain
// indexes missing between them: the missing chunks were lost whole and
// held [file->size, start offset). A chunk that failed with nothing
// programmed skips an index but no bytes; a deleted file's erase takes its
// first chunk first and a mount drops a file's chunks last first, so an
// interrupted erase never leaves a later chunk after a gap.
bool FlashFs::FollowsLostChunk(const ChunkScan& scan, const FileEntry& file,
                               uint32_t previous) const {
  return !file.chain.empty() && scan.start.chain_index > previous + 1 &&
         scan.start.start_offset > file.size &&
         (options_.planted_bugs & kBugFlashMountIgnoresLostChunk) == 0;
}

// Applies one chunk's records to a file being rebuilt: DATA that continues
// the file, TRUNCATE cuts. Stops at DATA that does not continue it.
// Damaged sectors followed by a record that starts past the file's end,
// or at the chunk's end under a CLOSE that counted more DATA bytes than
// were read, held data the damage took: that range stays in the file as
// extents on the damaged sector, so reading it fails and names the file.
// Damage with no such evidence is a torn tail, the file's end.
void FlashFs::ApplyChunk(const ChunkScan& scan, FileEntry* file) {
  const ChunkScan::Record* damage = nullptr;  // the first since the last record applied
  uint64_t data_bytes = 0;                    // DATA bytes of the chunk applied or lost
  for (const ChunkScan::Record& r : scan.records) {
    if (r.damaged) {
      if (damage == nullptr) damage = &r;
      continue;
    }
    if (damage != nullptr && r.file_offset > file->size) {
      data_bytes += r.file_offset - file->size;
      AddLostRange(scan.chunk, damage->sector, r.file_offset - file->size, file);
    }
    damage = nullptr;
    if (r.kind == SectorKind::kTruncate) {
      if (r.file_offset < file->size) CutExtents(file, r.file_offset);
      continue;
    }
    if (r.file_offset != file->size) return;  // a gap: the file ends here
    file->extents.push_back({r.file_offset, scan.chunk, r.sector, r.bytes});
    file->size += r.bytes;
    file->readable_end = file->size;
    file->programmed_end = file->size;
    data_bytes += r.bytes;
  }
  if (damage != nullptr && scan.has_close && scan.close_data_bytes > data_bytes) {
    AddLostRange(scan.chunk, damage->sector, scan.close_data_bytes - data_bytes, file);
  }
}

// chunk kNoChunk: the range was in a chunk lost whole; reading it fails.
void FlashFs::AddLostRange(uint32_t chunk, uint32_t sector, uint64_t bytes, FileEntry* file) {
  stats_.damaged_ranges_found++;
  while (bytes > 0) {  // extents of at most a sector each, as reads expect
    const auto piece = static_cast<uint32_t>(std::min<uint64_t>(bytes, geometry_.sector_bytes));
    file->extents.push_back({file->size, chunk, sector, piece});
    file->size += piece;
    bytes -= piece;
  }
  file->readable_end = file->size;
  file->programmed_end = file->size;
}

void FlashFs::AdoptFiles(std::vector<ChunkScan>* scans) {
  MutexLock l(mu_.get());
  std::map<uint64_t, std::vector<const ChunkScan*>> by_file;
  uint64_t max_id = 0;
  for (const ChunkScan& scan : *scans) {
    if (scan.owner == ChunkScan::Owner::kForeign) continue;
    if (scan.owner == ChunkScan::Owner::kNone) {
      DropChunk(scan);
      continue;
    }
    max_id = std::max(max_id, scan.start.file_id);
    by_file[scan.start.file_id].push_back(&scan);
  }
  next_file_id_ = max_id + 1;
  for (auto& [id, chunks] : by_file) {
    std::sort(chunks.begin(), chunks.end(), [](const ChunkScan* a, const ChunkScan* b) {
      return a->start.chain_index < b->start.chain_index;
    });
    AdoptFile(id, chunks);
  }
  stats_.files_recovered = files_.size();
}

void FlashFs::AdoptFile(uint64_t id, const std::vector<const ChunkScan*>& chunks) {
  auto file = std::make_shared<FileEntry>();
  file->path = chunks.front()->start.name;
  file->id = id;
  file->next_chain_index = chunks.back()->start.chain_index + 1;
  // A file whose first chunk is gone was being erased: it is gone too.
  const bool head = chunks.front()->start.start_offset == 0;
  // Dropped last first: an erase cut short by a crash leaves a prefix of
  // them, never a later one after a gap (FollowsLostChunk).
  std::vector<const ChunkScan*> dropped;
  bool previous_joined = false;  // the chunk before in chain order joined the file
  uint32_t previous = 0;         // its chain index
  for (const ChunkScan* scan : chunks) {
    const bool ours = head && scan->start.name == file->path && !scan->close_mismatch;
    if (ours && previous_joined && FollowsLostChunk(*scan, *file, previous)) {
      AddLostRange(kNoChunk, 0, scan->start.start_offset - file->size, file.get());
    }
    previous = scan->start.chain_index;
    previous_joined = ours && scan->start.start_offset == file->size;
    if (!previous_joined) {
      dropped.push_back(scan);
      continue;
    }
    ApplyChunk(*scan, file.get());
    file->chain.push_back(scan->chunk);
    if (!scan->open) continue;
    OpenChunk& open = open_[scan->chunk];
    open.file = file;
    open.file_id = id;
    open.chain_index = scan->start.chain_index;
    open.write_pointer = scan->write_pointer;
    open.data_bytes = scan->data_bytes;
    open.data_crc = scan->data_crc;
    open.file_end = file->size;
  }
  for (auto it = dropped.rbegin(); it != dropped.rend(); ++it) DropChunk(**it);
  if (file->chain.empty()) return;
  std::shared_ptr<FileEntry>& slot = files_[file->path];
  if (slot != nullptr) {  // two files of one name: the newer one was made over the older
    QueueChunks(*slot);
    stats_.chunks_dropped += slot->chain.size();
  }
  slot = file;
}

void FlashFs::DropChunk(const ChunkScan& scan) {
  if (scan.open) open_[scan.chunk].erasing = true;
  blocks_->QueueReset(scan.chunk);
  stats_.chunks_dropped++;
}

}  // namespace shale::flash
