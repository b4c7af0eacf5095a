#include "flash/flash_fs.h"

#include <algorithm>

#include "cache/lru_cache.h"
#include "flash/flash_writer.h"
#include "util/mutexlock.h"
#include "version/filename.h"

namespace shale {

namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string ParentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string TrimSlash(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

bool IsFlashFileName(const std::string& path) {
  uint64_t number = 0;
  FileType type;
  if (!ParseFileName(BaseName(path), &number, &type)) return false;
  return type == FileType::kLogFile || type == FileType::kTableFile ||
         type == FileType::kDescriptorFile;
}

Status OpenFlashFileSystem(FlashDevice* device, FileSystem* small_files, Runtime* runtime,
                           const FlashFsOptions& options,
                           std::unique_ptr<FlashFileSystem>* result) {
  const std::string invalid = device->geometry().Invalid();
  if (!invalid.empty()) return Status::InvalidArgument("flash: bad device geometry", invalid);
  const FlashGeometry& g = device->geometry();
  if (g.oob_bytes < flash::kTagBytes) {
    return Status::InvalidArgument("flash: the device's OOB area is too small for the tags");
  }
  // A chunk holds a START, a CLOSE and at least one DATA sector, and its
  // first and last units are not the same one.
  if (g.sectors_per_chunk < 3 || g.sectors_per_chunk < 2 * g.ws_min) {
    return Status::InvalidArgument(
        "flash: chunks too small for the backend (want >= 3 sectors "
        "and >= 2 * ws_min)");
  }
  auto fs = std::make_unique<flash::FlashFs>(device, small_files, runtime, options);
  Status s = fs->Mount();
  if (!s.ok()) return s;
  *result = std::move(fs);
  return Status::OK();
}

namespace flash {

FlashFs::FlashFs(FlashDevice* device, FileSystem* small_files, Runtime* runtime,
                 const FlashFsOptions& options)
    : device_(device),
      small_(small_files),
      runtime_(runtime),
      options_(options),
      geometry_(device->geometry()),
      alloc_mu_(runtime->NewMutex()),
      mu_(runtime->NewMutex()),
      erase_cv_(runtime->NewCondVar(mu_.get())),
      erased_cv_(runtime->NewCondVar(mu_.get())) {
  if (options.read_cache_bytes > 0) {
    // Not a block cache: its evictions count as no probe.
    read_cache_ =
        std::make_shared<LRUCache>(options.read_cache_bytes, /*num_shard_bits=*/0, runtime);
  }
}

FlashFs::~FlashFs() { Shutdown(); }

void FlashFs::Shutdown() {
  {
    MutexLock l(mu_.get());
    if (shutting_down_) return;
    shutting_down_ = true;
    erase_cv_->SignalAll();
  }
  if (eraser_ != nullptr) eraser_->Join();
}

std::vector<std::string> FlashFs::FilesWithUnprogrammedData() const {
  std::vector<std::string> paths;
  for (const auto& [path, file] : files_) {
    if (file->writer_open && file->size > file->programmed_end) paths.push_back(path);
  }
  return paths;
}

FlashFsStats FlashFs::stats() const {
  MutexLock l(mu_.get());
  return stats_;
}

std::shared_ptr<FileEntry> FlashFs::Find(const std::string& path) const {
  auto it = files_.find(path);
  return it == files_.end() ? nullptr : it->second;
}

// ---- the FileSystem calls

Status FlashFs::NewWritableFile(const std::string& path, const FileOptions& opts,
                                std::unique_ptr<WritableFile>* result) {
  if (!IsFlashFileName(path)) return small_->NewWritableFile(path, opts, result);
  return NewFlashWriter(path, /*reopen=*/false, result);
}

Status FlashFs::ReopenWritableFile(const std::string& path, const FileOptions& opts,
                                   std::unique_ptr<WritableFile>* result) {
  if (!IsFlashFileName(path)) return small_->ReopenWritableFile(path, opts, result);
  return NewFlashWriter(path, /*reopen=*/true, result);
}

Status FlashFs::NewFlashWriter(const std::string& path, bool reopen,
                               std::unique_ptr<WritableFile>* result) {
  if (path.size() > kMaxNameBytes || kStartPayloadBytes + path.size() > geometry_.sector_bytes) {
    return Status::InvalidArgument("flash: path too long for a START sector", path);
  }
  std::shared_ptr<FileEntry> file;
  {
    MutexLock l(mu_.get());
    if (shutting_down_) return Status::IOError("flash: file system shut down", path);
    file = Find(path);
    if (file != nullptr && file->writer_open) {
      return Status::IOError("flash: file already open for writing", path);
    }
    if (file != nullptr && !reopen) {
      Unlink(file);
      file = nullptr;
    }
    if (file == nullptr) {
      file = std::make_shared<FileEntry>();
      file->path = path;
      file->id = next_file_id_++;
      files_[path] = file;
    }
    file->handles++;
    // A reopened file's data must be durable and readable from the device
    // before another writer appends: its last chunk may still be OPEN with
    // sectors in the device cache (a Sync through the new handle would not
    // reach them).
    if (reopen && !file->chain.empty() && geometry_.mw_cunits > 0) {
      Status s = PadInactive(file->chain.back(), geometry_.mw_cunits, /*seal=*/false);
      if (!s.ok()) {
        file->handles--;
        return s;
      }
    }
  }
  *result = std::make_unique<FlashWritableFile>(this, file);
  return Status::OK();
}

Status FlashFs::FileExists(const std::string& path) {
  if (!IsFlashFileName(path)) return small_->FileExists(path);
  MutexLock l(mu_.get());
  return Find(path) != nullptr ? Status::OK() : Status::NotFound(path);
}

Status FlashFs::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  Status s = small_->GetChildren(dir, names);
  if (!s.ok()) return s;
  const std::string parent = TrimSlash(dir);
  {
    MutexLock l(mu_.get());
    for (const auto& [path, file] : files_) {
      if (ParentDir(path) == parent) names->push_back(BaseName(path));
    }
  }
  std::sort(names->begin(), names->end());
  names->erase(std::unique(names->begin(), names->end()), names->end());
  return Status::OK();
}

Status FlashFs::GetFileSize(const std::string& path, uint64_t* size) {
  if (!IsFlashFileName(path)) return small_->GetFileSize(path, size);
  MutexLock l(mu_.get());
  std::shared_ptr<FileEntry> file = Find(path);
  if (file == nullptr) return Status::PathNotFound("flash: no such file", path);
  *size = file->size;
  return Status::OK();
}

Status FlashFs::DeleteFile(const std::string& path) {
  if (!IsFlashFileName(path)) return small_->DeleteFile(path);
  MutexLock l(mu_.get());
  if (shutting_down_) return Status::IOError("flash: file system shut down", path);
  std::shared_ptr<FileEntry> file = Find(path);
  if (file == nullptr) return Status::PathNotFound("flash: no such file", path);
  Unlink(file);
  return Status::OK();
}

Status FlashFs::RenameFile(const std::string& src, const std::string& dst) {
  if (IsFlashFileName(src) || IsFlashFileName(dst)) {
    return Status::NotSupported("flash: files on flash cannot be renamed", src);
  }
  return small_->RenameFile(src, dst);
}

Status FlashFs::CreateDirIfMissing(const std::string& dir) {
  return small_->CreateDirIfMissing(dir);
}

Status FlashFs::DeleteDir(const std::string& dir) {
  {
    MutexLock l(mu_.get());
    const std::string parent = TrimSlash(dir);
    for (const auto& [path, file] : files_) {
      if (ParentDir(path) == parent) return Status::IOError("flash: directory not empty", dir);
    }
  }
  return small_->DeleteDir(dir);
}

Status FlashFs::SyncDir(const std::string& dir) {
  Status s = small_->SyncDir(dir);
  if (!s.ok()) return s;
  // Deletes are durable once their chunks are erased.
  MutexLock l(mu_.get());
  while ((blocks_->queued_resets() > 0 || erases_in_flight_ > 0 || ErasingUnderPadding()) &&
         eraser_ != nullptr && !shutting_down_) {
    erased_cv_->Wait();
  }
  return shutting_down_ ? Status::IOError("flash: file system shut down", dir) : Status::OK();
}

Status FlashFs::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  return small_->LockFile(path, lock);
}

Status FlashFs::UnlockFile(std::unique_ptr<FileLock> lock) {
  return small_->UnlockFile(std::move(lock));
}

// ---- names and erasing

bool FlashFs::ErasingUnderPadding() const {
  for (const auto& [chunk, open] : open_) {
    if (open.erasing && open.sealing) return true;
  }
  return false;
}

void FlashFs::Unlink(const std::shared_ptr<FileEntry>& file) {
  files_.erase(file->path);
  file->deleted = true;
  if (file->handles == 0) QueueChunks(*file);
}

void FlashFs::ReleaseHandle(const std::shared_ptr<FileEntry>& file) {
  MutexLock l(mu_.get());
  file->handles--;
  if (file->deleted && file->handles == 0) QueueChunks(*file);
}

void FlashFs::QueueChunks(const FileEntry& file) {
  for (uint32_t chunk : file.chain) {
    OpenChunk* open = open_chunk(chunk);
    if (open != nullptr) {
      open->erasing = true;
      open->file = nullptr;
      if (open->sealing) continue;  // PadInactive queues it when its padding is done
    }
    blocks_->QueueReset(chunk);
  }
  erase_cv_->Signal();
}

void FlashFs::StartEraser() {
  eraser_ = runtime_->StartThread("flash.eraser", [this] { EraserLoop(); });
}

void FlashFs::EraserLoop() {
  MutexLock l(mu_.get());
  for (;;) {
    uint32_t chunk = kNoChunk;
    if (!blocks_->TakeReset(&chunk)) {
      erased_cv_->SignalAll();
      if (shutting_down_) return;
      erase_cv_->Wait();
      continue;
    }
    erases_in_flight_++;
    Status s;
    {
      MutexUnlock u(mu_.get());
      s = device_->Reset(chunk);
      DropCachedChunk(chunk);
    }
    erases_in_flight_--;
    open_.erase(chunk);
    blocks_->ResetDone(chunk, s.ok());
    stats_.resets++;
    if (!s.ok()) stats_.erase_failures++;
    erased_cv_->SignalAll();
  }
}

// ---- chunks

OpenChunk* FlashFs::open_chunk(uint32_t chunk) {
  auto it = open_.find(chunk);
  return it == open_.end() ? nullptr : &it->second;
}

void FlashFs::ChunkClosed(uint32_t chunk) { open_.erase(chunk); }

void FlashFs::ChunkFailed(uint32_t chunk, bool holds_data) {
  open_.erase(chunk);
  blocks_->MarkGrownBad(chunk);
  stats_.program_failures++;
  if (holds_data) return;
  blocks_->QueueReset(chunk);
  erase_cv_->Signal();
}

uint32_t FlashFs::ReserveChunk(uint32_t previous) {
  MutexLock l(mu_.get());
  uint32_t chunk = kNoChunk;
  return blocks_->Allocate(previous, &chunk) ? chunk : kNoChunk;
}

void FlashFs::ReleaseChunk(uint32_t chunk) {
  MutexLock l(mu_.get());
  blocks_->Release(chunk);
}

Status FlashFs::OpenChunkFor(const std::shared_ptr<FileEntry>& file, uint32_t previous,
                             uint32_t reserved, uint32_t* chunk) {
  MutexLock alloc(alloc_mu_.get());
  MutexLock l(mu_.get());
  while (open_.size() >= geometry_.max_open_chunks) {
    uint32_t victim = kNoChunk;
    bool erasing = false;
    for (const auto& [number, open] : open_) {
      erasing = erasing || open.erasing;
      if (!open.active && !open.erasing && !open.sealing) {
        victim = number;
        break;
      }
    }
    if (victim != kNoChunk) {
      Status s = PadInactive(victim, geometry_.sectors_per_chunk, /*seal=*/true);
      if (!s.ok()) return s;
    } else if (erasing && !shutting_down_) {
      erased_cv_->Wait();  // the eraser frees one
    } else {
      return Status::IOError("flash: every open chunk is being written", file->path);
    }
  }
  if (reserved != kNoChunk) {
    *chunk = reserved;
  } else if (!blocks_->Allocate(previous, chunk)) {
    return Status::NoSpace("flash: no free chunk", file->path);
  }
  OpenChunk& open = open_[*chunk];
  open = OpenChunk();
  open.file = file;
  open.file_id = file->id;
  open.chain_index = file->next_chain_index++;
  open.file_end = file->programmed_end;
  open.active = true;
  file->chain.push_back(*chunk);
  stats_.chunks_allocated++;
  return Status::OK();
}

Status FlashFs::Program(uint32_t chunk, uint32_t sector, const SectorBatch& batch) {
  Status s = device_->Write(chunk, sector, batch.data(), batch.oob());
  if (!s.ok()) return s;
  MutexLock l(mu_.get());
  stats_.sectors_programmed += batch.sectors();
  stats_.data_sectors += batch.count(SectorKind::kData);
  stats_.pad_sectors += batch.count(SectorKind::kPad);
  stats_.metadata_sectors += batch.count(SectorKind::kStart) + batch.count(SectorKind::kClose) +
                             batch.count(SectorKind::kTruncate);
  return Status::OK();
}

Status FlashFs::PadInactive(uint32_t chunk, uint32_t sectors, bool seal) {
  auto it = open_.find(chunk);
  if (it == open_.end() || it->second.active || it->second.sealing || it->second.erasing) {
    return Status::OK();
  }
  it->second.sealing = true;  // neither padded by another nor erased meanwhile
  OpenChunk state = it->second;
  bool closed = false;
  Status s;
  {
    MutexUnlock u(mu_.get());
    s = PadChunk(chunk, &state, sectors, &closed);
  }
  it = open_.find(chunk);  // the sealing mark kept it
  it->second.sealing = false;
  if (!s.ok()) return s;
  it->second.write_pointer = state.write_pointer;
  const bool erase = it->second.erasing;  // its file was deleted meanwhile
  if (!erase && state.file != nullptr) MakeReadable(state.file.get(), state.file_end);
  if (closed) {
    open_.erase(it);
    if (seal) stats_.chunks_sealed++;
  }
  if (erase) {
    blocks_->QueueReset(chunk);
    erase_cv_->Signal();
  }
  return Status::OK();
}

Status FlashFs::PadChunk(uint32_t chunk, OpenChunk* state, uint32_t sectors, bool* closed) {
  const uint32_t chunk_end = geometry_.sectors_per_chunk;
  SectorBatch batch(geometry_.sector_bytes, geometry_.oob_bytes);
  const uint32_t n = std::min(sectors, chunk_end - state->write_pointer);
  for (uint32_t i = 0; i < n; i++) {
    SectorTag tag;
    tag.file_id = state->file_id;
    tag.chain_index = state->chain_index;
    if (state->write_pointer + i == chunk_end - 1) {
      const ChunkClose close{state->file_id,    state->chain_index, state->crc_valid,
                             state->data_bytes, kNoChunk,           state->data_crc};
      const std::string payload = EncodeChunkClose(close);
      tag.kind = SectorKind::kClose;
      tag.valid_bytes = static_cast<uint32_t>(payload.size());
      batch.Add(tag, payload);
    } else {
      tag.kind = SectorKind::kPad;
      batch.Add(tag, Slice());
    }
  }
  Status s = Program(chunk, state->write_pointer, batch);
  if (s.IsIOError()) {  // a program failure: the chunk closed early, all of it flushed
    MutexLock l(mu_.get());
    blocks_->MarkGrownBad(chunk);
    stats_.program_failures++;
    *closed = true;
    return Status::OK();
  }
  if (!s.ok()) return s;
  state->write_pointer += n;
  *closed = state->write_pointer == chunk_end;
  return Status::OK();
}

}  // namespace flash
}  // namespace shale
