#include "flash/flash_writer.h"

#include <algorithm>

#include "shale/options.h"
#include "util/crc32c.h"
#include "util/mutexlock.h"

namespace shale::flash {

namespace {

uint32_t RoundUp(uint32_t n, uint32_t unit) { return (n + unit - 1) / unit * unit; }

}  // namespace

FlashWritableFile::FlashWritableFile(FlashFs* fs, std::shared_ptr<FileEntry> file)
    : fs_(fs), file_(std::move(file)), geometry_(fs->geometry()) {
  MutexLock l(fs_->mu());
  size_ = file_->size;
  buffer_offset_ = size_;
  file_->writer_open = true;
}

FlashWritableFile::~FlashWritableFile() {
  if (!closed_) Close().PermitUncheckedError();
}

Status FlashWritableFile::Usable() const {
  if (closed_) return Status::IOError("flash: write to a closed file", file_->path);
  return error_;
}

Status FlashWritableFile::Append(const Slice& data) {
  Status s = Usable();
  if (!s.ok()) return s;
  buffer_.append(data.data(), data.size());
  size_ += data.size();
  {
    MutexLock l(fs_->mu());
    file_->size = size_;
    file_->tail.append(data.data(), data.size());
    fs_->mutable_stats()->bytes_appended += data.size();
  }
  return Drain(/*flush_partial=*/false);
}

Status FlashWritableFile::PositionedAppend(const Slice& data, uint64_t offset) {
  if (offset != size_) {
    return Status::NotSupported("flash: positioned write inside a file", file_->path);
  }
  return Append(data);
}

Status FlashWritableFile::Allocate(uint64_t offset, uint64_t len) {
  (void)offset;
  (void)len;
  return Usable();  // chunks are taken as the file grows
}

Status FlashWritableFile::Flush() {
  Status s = Usable();
  if (s.ok() && !fs_->buffer_across_flush()) s = Drain(/*flush_partial=*/true);
  return s;
}

Status FlashWritableFile::Sync() {
  Status s = Usable();
  if (s.ok()) s = Drain(/*flush_partial=*/true);
  if (s.ok() && (fs_->planted_bugs() & kBugFlashAckInDeviceCache) == 0) s = PadPastCache();
  return s;
}

Status FlashWritableFile::Truncate(uint64_t size) {
  Status s = Usable();
  if (!s.ok() || size == size_) return s;
  if (size > size_) return Status::NotSupported("flash: truncate can only shorten", file_->path);
  // Everything before the TRUNCATE sector leaves the device cache first,
  // so the file's readable end never points into data the cut removed.
  s = Drain(/*flush_partial=*/true);
  if (s.ok()) s = PadPastCache();
  if (!s.ok()) return s;
  truncate_to_ = size;
  s = Drain(/*flush_partial=*/true);  // until a unit carries the TRUNCATE
  if (!s.ok()) return s;
  size_ = size;
  buffer_offset_ = size;
  MutexLock l(fs_->mu());
  CutExtents(file_.get(), size);
  file_->programmed_end = size;
  return Status::OK();
}

Status FlashWritableFile::Close() {
  if (closed_) return Status::OK();
  Status s = error_.ok() ? Drain(/*flush_partial=*/true) : error_;
  closed_ = true;
  {
    MutexLock l(fs_->mu());
    file_->writer_open = false;
    if (OpenChunk* open = fs_->open_chunk(chunk_)) open->active = false;
  }
  if (next_chunk_ != kNoChunk) fs_->ReleaseChunk(next_chunk_);
  fs_->ReleaseHandle(file_);
  return s;
}

Status FlashWritableFile::Drain(bool flush_partial) {
  for (;;) {
    const bool more = !buffer_.empty() || truncate_to_.has_value();
    if (!more) return Status::OK();
    bool wrote = false;
    Status s = WriteUnit(flush_partial ? Fill::kAll : Fill::kWholeSectorsOnly, 0, &wrote);
    if (!s.ok() || !wrote) return s;
  }
}

Status FlashWritableFile::PadPastCache() {
  if (chunk_ == kNoChunk || cache_start_ >= write_pointer_) return Status::OK();
  const uint32_t write_pointer = write_pointer_;
  bool wrote = false;
  Status s = WriteUnit(Fill::kPadOnly, geometry_.mw_cunits, &wrote);
  if (s.ok() && wrote && (fs_->planted_bugs() & kBugFlashWriteOffPointer) != 0 &&
      chunk_ != kNoChunk) {
    write_pointer_ = write_pointer;  // planted: the padding is forgotten
  }
  return s;
}

Status FlashWritableFile::EnsureChunk() {
  if (chunk_ != kNoChunk) return Status::OK();
  uint32_t previous = kNoChunk;
  {
    MutexLock l(fs_->mu());
    if (!file_->chain.empty()) previous = file_->chain.back();
    chain_index_ = file_->next_chain_index;
  }
  Status s = fs_->OpenChunkFor(file_, previous, next_chunk_, &chunk_);
  if (!s.ok()) {
    chunk_ = kNoChunk;  // a reserved next chunk stays reserved (Close gives it back)
    return s;
  }
  next_chunk_ = kNoChunk;
  write_pointer_ = 0;
  cache_start_ = 0;
  chunk_data_bytes_ = 0;
  chunk_crc_ = 0;
  cached_data_.clear();
  return Status::OK();
}

Status FlashWritableFile::WriteUnit(Fill fill, uint32_t pad_sectors, bool* wrote) {
  *wrote = false;
  Status last_failure;
  for (int attempt = 0; attempt < kMaxProgramAttempts; attempt++) {
    Status s = EnsureChunk();
    if (!s.ok()) return s;
    Unit unit(geometry_);
    if (!PlanUnit(fill, pad_sectors, &unit)) return Status::OK();
    s = fs_->Program(chunk_, write_pointer_, unit.batch);
    if (s.ok()) {
      Committed(unit);
      *wrote = true;
      return Status::OK();
    }
    if (unit.next != kNoChunk) fs_->ReleaseChunk(unit.next);
    if (!s.IsIOError()) {
      error_ = s;  // a device rule: the writer's view of the chunk is wrong
      return s;
    }
    // A program failure closed the chunk early; what it holds is safe.
    last_failure = s;
    Retire();
    if (fill == Fill::kPadOnly) return Status::OK();
  }
  error_ = Status::IOError("flash: program failed repeatedly, last: " + last_failure.ToString(),
                           file_->path);
  return error_;
}

bool FlashWritableFile::PlanUnit(Fill fill, uint32_t pad_sectors, Unit* unit) {
  const uint32_t chunk_end = geometry_.sectors_per_chunk;
  const uint32_t sector_bytes = geometry_.sector_bytes;
  const uint32_t start_slot = write_pointer_ == 0 ? 1 : 0;
  uint32_t n =
      std::min(geometry_.ws_opt - write_pointer_ % geometry_.ws_opt, chunk_end - write_pointer_);
  const auto data_slots = [&](uint32_t count) {
    return count - start_slot - (write_pointer_ + count == chunk_end ? 1 : 0);
  };
  if (fill == Fill::kWholeSectorsOnly) {
    if (buffer_.size() < uint64_t{data_slots(n)} * sector_bytes) return false;
  } else if (fill == Fill::kAll) {
    const uint64_t data_sectors = (buffer_.size() + sector_bytes - 1) / sector_bytes;
    const uint64_t needed = start_slot + data_sectors + (truncate_to_.has_value() ? 1 : 0);
    // Fewer slots than a full unit if that holds it all (never past n).
    if (needed < n) n = std::min(n, RoundUp(static_cast<uint32_t>(needed), geometry_.ws_min));
  } else {
    n = std::min(RoundUp(std::max(pad_sectors, 1u), geometry_.ws_min), chunk_end - write_pointer_);
  }
  BuildUnit(fill, n, unit);
  return true;
}

void FlashWritableFile::BuildUnit(Fill fill, uint32_t n, Unit* unit) {
  const uint32_t chunk_end = geometry_.sectors_per_chunk;
  const uint32_t sector_bytes = geometry_.sector_bytes;
  const uint64_t file_id = file_->id;
  unit->sectors = n;
  unit->data_crc = chunk_crc_;
  unit->data_bytes = chunk_data_bytes_;
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t sector = write_pointer_ + i;
    SectorTag tag;
    tag.file_id = file_id;
    tag.chain_index = chain_index_;
    if (sector == 0) {
      ChunkStart start{fs_->owner_id(), file_id, chain_index_, buffer_offset_, file_->path};
      const std::string payload = EncodeChunkStart(start);
      tag.kind = SectorKind::kStart;
      tag.valid_bytes = static_cast<uint32_t>(payload.size());
      unit->batch.Add(tag, payload);
    } else if (sector == chunk_end - 1) {
      unit->closes = true;
      if (unit->consumed < buffer_.size()) unit->next = fs_->ReserveChunk(chunk_);
      ChunkClose close{file_id, chain_index_, true, unit->data_bytes, unit->next, unit->data_crc};
      const std::string payload = EncodeChunkClose(close);
      tag.kind = SectorKind::kClose;
      tag.valid_bytes = static_cast<uint32_t>(payload.size());
      unit->batch.Add(tag, payload);
    } else if (fill != Fill::kPadOnly && truncate_to_.has_value() && !unit->truncates) {
      const std::string payload = EncodeTruncate(*truncate_to_);
      unit->truncates = true;
      tag.kind = SectorKind::kTruncate;
      tag.valid_bytes = static_cast<uint32_t>(payload.size());
      unit->batch.Add(tag, payload);
    } else if (fill != Fill::kPadOnly && unit->consumed < buffer_.size()) {
      const size_t bytes = std::min<size_t>(sector_bytes, buffer_.size() - unit->consumed);
      const Slice payload(buffer_.data() + unit->consumed, bytes);
      tag.kind = SectorKind::kData;
      tag.file_offset = buffer_offset_ + unit->consumed;
      tag.valid_bytes = static_cast<uint32_t>(bytes);
      unit->batch.Add(tag, payload);
      unit->data_crc = crc32c::Extend(unit->data_crc, payload.data(), bytes);
      unit->data_bytes += bytes;
      unit->extents.push_back({tag.file_offset, chunk_, sector, tag.valid_bytes});
      unit->consumed += bytes;
    } else {
      tag.kind = SectorKind::kPad;
      unit->batch.Add(tag, Slice());
    }
  }
}

void FlashWritableFile::Committed(const Unit& unit) {
  buffer_.erase(0, unit.consumed);
  buffer_offset_ += unit.consumed;
  if (unit.truncates) truncate_to_.reset();
  chunk_crc_ = unit.data_crc;
  chunk_data_bytes_ = unit.data_bytes;
  for (const Extent& e : unit.extents) {
    cached_data_.push_back({e.sector, e.file_offset + e.bytes});
  }
  write_pointer_ += unit.sectors;
  const uint32_t mw = geometry_.mw_cunits;
  cache_start_ = unit.closes
                     ? write_pointer_
                     : std::max(cache_start_, write_pointer_ > mw ? write_pointer_ - mw : 0);
  uint64_t readable = 0;
  while (!cached_data_.empty() && cached_data_.front().first < cache_start_) {
    readable = cached_data_.front().second;
    cached_data_.pop_front();
  }
  MutexLock l(fs_->mu());
  file_->programmed_end = buffer_offset_;
  file_->extents.insert(file_->extents.end(), unit.extents.begin(), unit.extents.end());
  MakeReadable(file_.get(), readable);
  if (OpenChunk* open = fs_->open_chunk(chunk_)) {
    open->write_pointer = write_pointer_;
    open->data_bytes = chunk_data_bytes_;
    open->data_crc = chunk_crc_;
    if (!unit.extents.empty()) open->file_end = buffer_offset_;
  }
  if (unit.closes) {
    fs_->ChunkClosed(chunk_);
    chunk_ = kNoChunk;
    next_chunk_ = unit.next;
  }
}

void FlashWritableFile::Retire() {
  uint64_t readable = 0;
  if (!cached_data_.empty()) readable = cached_data_.back().second;
  cached_data_.clear();
  MutexLock l(fs_->mu());
  MakeReadable(file_.get(), readable);
  const bool holds_data = write_pointer_ > 0;
  if (!holds_data && !file_->chain.empty() && file_->chain.back() == chunk_) {
    file_->chain.pop_back();  // it holds nothing of the file
  }
  fs_->ChunkFailed(chunk_, holds_data);
  chunk_ = kNoChunk;
}

void MakeReadable(FileEntry* file, uint64_t readable) {
  readable = std::min(readable, file->size);
  if (readable <= file->readable_end) return;
  file->tail.erase(0, readable - file->readable_end);
  file->readable_end = readable;
}

void CutExtents(FileEntry* file, uint64_t size) {
  auto& extents = file->extents;
  while (!extents.empty() && extents.back().file_offset >= size) extents.pop_back();
  if (!extents.empty()) {
    Extent& last = extents.back();
    last.bytes = static_cast<uint32_t>(std::min<uint64_t>(last.bytes, size - last.file_offset));
  }
  if (file->readable_end > size) {
    file->readable_end = size;
    file->tail.clear();
  } else {
    file->tail.resize(size - file->readable_end);
  }
  file->size = size;
}

}  // namespace shale::flash
