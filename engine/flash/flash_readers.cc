// Reading files on flash: the two reader handles, the extent walk, and the
// sector cache.
#include <algorithm>
#include <cstring>

#include "flash/flash_fs.h"
#include "util/coding.h"
#include "util/mutexlock.h"

namespace shale::flash {

namespace {

class FlashSequentialFile final : public SequentialFile {
 public:
  FlashSequentialFile(FlashFs* fs, std::shared_ptr<FileEntry> file)
      : fs_(fs), file_(std::move(file)) {}
  ~FlashSequentialFile() override { fs_->ReleaseHandle(file_); }

  Status Read(size_t n, Slice* result, char* scratch) override {
    uint64_t size = 0;
    {
      MutexLock l(fs_->mu());
      size = file_->size;
    }
    const size_t len = pos_ >= size ? 0 : static_cast<size_t>(std::min<uint64_t>(n, size - pos_));
    Status s = fs_->ReadFile(file_, pos_, len, scratch);
    if (!s.ok()) return s;
    pos_ += len;
    *result = Slice(scratch, len);
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    pos_ += n;
    return Status::OK();
  }

 private:
  FlashFs* const fs_;
  const std::shared_ptr<FileEntry> file_;
  uint64_t pos_ = 0;
};

class FlashRandomAccessFile final : public RandomAccessFile {
 public:
  FlashRandomAccessFile(FlashFs* fs, std::shared_ptr<FileEntry> file)
      : fs_(fs), file_(std::move(file)) {}
  ~FlashRandomAccessFile() override { fs_->ReleaseHandle(file_); }

  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    uint64_t size = 0;
    {
      MutexLock l(fs_->mu());
      size = file_->size;
    }
    const size_t len =
        offset >= size ? 0 : static_cast<size_t>(std::min<uint64_t>(n, size - offset));
    Status s = fs_->ReadFile(file_, offset, len, scratch);
    if (!s.ok()) return s;
    *result = Slice(scratch, len);
    return Status::OK();
  }

 private:
  FlashFs* const fs_;
  const std::shared_ptr<FileEntry> file_;
};

std::string CacheKey(uint32_t chunk, uint32_t sector) {
  std::string key;
  PutFixed32(&key, chunk);
  PutFixed32(&key, sector);
  return key;
}

void DeleteSector(const Slice& key, void* value) {
  (void)key;
  delete static_cast<std::string*>(value);
}

}  // namespace

Status FlashFs::NewSequentialFile(const std::string& path, const FileOptions& opts,
                                  std::unique_ptr<SequentialFile>* result) {
  if (!IsFlashFileName(path)) return small_->NewSequentialFile(path, opts, result);
  MutexLock l(mu_.get());
  std::shared_ptr<FileEntry> file = Find(path);
  if (file == nullptr) return Status::PathNotFound("flash: no such file", path);
  file->handles++;
  *result = std::make_unique<FlashSequentialFile>(this, file);
  return Status::OK();
}

Status FlashFs::NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                                    std::unique_ptr<RandomAccessFile>* result) {
  if (!IsFlashFileName(path)) return small_->NewRandomAccessFile(path, opts, result);
  MutexLock l(mu_.get());
  std::shared_ptr<FileEntry> file = Find(path);
  if (file == nullptr) return Status::PathNotFound("flash: no such file", path);
  file->handles++;
  *result = std::make_unique<FlashRandomAccessFile>(this, file);
  return Status::OK();
}

Status FlashFs::ReadFile(const std::shared_ptr<FileEntry>& file, uint64_t offset, size_t n,
                         char* scratch) {
  if (n == 0) return Status::OK();
  uint64_t end = offset + n;
  std::vector<Extent> pieces;  // the DATA sectors below the readable end that [offset, end) needs
  uint64_t device_end = 0;
  {
    MutexLock l(mu_.get());
    // A truncate since the caller read the size: what is gone reads as zeros.
    if (end > file->size) {
      const uint64_t kept = std::max(offset, file->size);
      std::memset(scratch + (kept - offset), 0, end - kept);
      end = kept;
    }
    // The part past the readable end comes from the host's copy.
    device_end = std::min(end, file->readable_end);
    if (end > file->readable_end) {
      const uint64_t from = std::max(offset, file->readable_end);
      std::memcpy(scratch + (from - offset), file->tail.data() + (from - file->readable_end),
                  end - from);
    }
    const auto& extents = file->extents;
    auto it = std::upper_bound(extents.begin(), extents.end(), offset,
                               [](uint64_t at, const Extent& e) { return at < e.file_offset; });
    if (it != extents.begin()) --it;
    for (; it != extents.end() && it->file_offset < device_end; ++it) {
      if (it->file_offset + it->bytes > offset) pieces.push_back(*it);
    }
  }
  // Physically consecutive sectors are read together.
  std::vector<std::string> sectors;
  for (size_t i = 0; i < pieces.size();) {
    size_t j = i + 1;
    while (j < pieces.size() && pieces[i].chunk != kNoChunk && pieces[j].chunk == pieces[i].chunk &&
           pieces[j].sector == pieces[j - 1].sector + 1) {
      j++;
    }
    Status s = ReadRun(*file, &pieces[i], j - i, &sectors);
    if (!s.ok()) return s;
    for (size_t k = i; k < j; k++) {
      const Extent& e = pieces[k];
      const uint64_t from = std::max(offset, e.file_offset);
      const uint64_t to = std::min(device_end, e.file_offset + e.bytes);
      std::memcpy(scratch + (from - offset), sectors[k - i].data() + (from - e.file_offset),
                  to - from);
    }
    i = j;
  }
  return Status::OK();
}

Status FlashFs::ReadRun(const FileEntry& file, const Extent* run, size_t n,
                        std::vector<std::string>* sectors) {
  sectors->assign(n, std::string());
  if (run[0].chunk == kNoChunk) {
    return Status::Corruption("flash: bytes at offset " + std::to_string(run[0].file_offset) +
                                  " were in a chunk lost whole",
                              file.path);
  }
  // Cache hits first; the misses, from the first to the last, in one read.
  size_t first_miss = n, last_miss = 0;
  for (size_t i = 0; i < n; i++) {
    Cache::Handle* h = read_cache_ == nullptr
                           ? nullptr
                           : read_cache_->Lookup(CacheKey(run[i].chunk, run[i].sector));
    if (h != nullptr) {
      (*sectors)[i] = *static_cast<std::string*>(read_cache_->Value(h));
      read_cache_->Release(h);
      continue;
    }
    first_miss = std::min(first_miss, i);
    last_miss = i;
  }
  const size_t misses = first_miss == n ? 0 : last_miss - first_miss + 1;
  {
    MutexLock l(mu_.get());
    stats_.read_cache_hits += n - misses;
    stats_.read_cache_misses += misses;
  }
  if (misses == 0) return Status::OK();
  const uint32_t sector_bytes = geometry_.sector_bytes;
  const uint32_t oob_bytes = geometry_.oob_bytes;
  std::string data(misses * sector_bytes, '\0');
  std::string oob(misses * oob_bytes, '\0');
  Status s = device_->Read(run[first_miss].chunk, run[first_miss].sector,
                           static_cast<uint32_t>(misses), data.data(), oob.data());
  if (!s.ok()) return Status::IOError("flash: " + s.ToString(), file.path);
  for (size_t i = first_miss; i <= last_miss; i++) {
    const Extent& e = run[i];
    const char* sector = data.data() + (i - first_miss) * sector_bytes;
    SectorTag tag;
    if (!DecodeTag(sector, sector_bytes, oob.data() + (i - first_miss) * oob_bytes, oob_bytes,
                   &tag) ||
        tag.kind != SectorKind::kData || tag.file_id != file.id ||
        tag.file_offset != e.file_offset || tag.valid_bytes < e.bytes) {
      return Status::Corruption("flash: chunk " + std::to_string(e.chunk) + " sector " +
                                    std::to_string(e.sector) +
                                    " does not hold what the file expects",
                                file.path);
    }
    (*sectors)[i].assign(sector, sector_bytes);
    if (read_cache_ != nullptr) {
      read_cache_->Release(read_cache_->Insert(CacheKey(e.chunk, e.sector),
                                               new std::string((*sectors)[i]), sector_bytes,
                                               &DeleteSector));
    }
  }
  return Status::OK();
}

void FlashFs::DropCachedChunk(uint32_t chunk) {
  if (read_cache_ == nullptr) return;
  for (uint32_t sector = 0; sector < geometry_.sectors_per_chunk; sector++) {
    read_cache_->Erase(CacheKey(chunk, sector));
  }
}

}  // namespace shale::flash
