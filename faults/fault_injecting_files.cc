// The handles of a FaultInjectingFs: each call asks the policy, then either
// fails, or goes to the handle below, carrying out the decision's media
// effects there (fault_injecting_fs.h).
#include "faults/fault_injecting_files.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <functional>

namespace shale::faults::fault_fs_internal {
namespace {

using Op = FaultPolicy::Op;
using Decision = FaultPolicy::Decision;

template <typename File>
sim::MediaFile* MediaOf(File* base) {
  sim::MediaFile* media = dynamic_cast<sim::MediaFile*>(base);
  assert(media != nullptr);  // REQUIRES of FaultInjectingFs
  return media;
}

// What every handle shares: the decorator, the path, the media below.
class Core {
 public:
  Core(FaultInjectingFs* fs, const std::string& path, sim::MediaFile* media)
      : fs_(fs), path_(path), media_(media) {}

  // Decides a call on this handle; offset and length set a byte range.
  Decision Decide(Op op, std::optional<uint64_t> offset = std::nullopt, uint64_t length = 0,
                  uint64_t alignment = 1) const {
    FaultPolicy::Request request;
    request.op = op;
    request.path = &path_;
    if (offset.has_value()) {
      const sim::MediaFile::Sizes sizes = media_->MediaSizes();
      request.has_range = true;
      request.offset = *offset;
      request.length_bytes = length;
      request.file_size_bytes = sizes.visible_bytes;
      request.durable_size_bytes = sizes.durable_bytes;
      request.alignment_bytes = alignment;
    }
    return fs_->Decide(request);
  }
  Status Failed(const char* name, const Status& status) const {
    return fs_->Failed(name, path_, status);
  }
  sim::MediaFile* media() const { return media_; }

 private:
  FaultInjectingFs* const fs_;
  const std::string path_;
  sim::MediaFile* const media_;
};

// Where a read of n bytes coming back short `short_reads` times splits:
// the ends of all parts but the last, each a multiple of alignment, in
// (0, n). Fewer splits if n has fewer aligned points.
std::vector<size_t> SplitPoints(size_t n, uint32_t short_reads, size_t alignment) {
  std::vector<size_t> ends;
  const size_t units = n / std::max<size_t>(alignment, 1);
  const size_t parts = std::min<size_t>(short_reads + 1, units);
  for (size_t i = 1; i < parts; ++i) ends.push_back(units * i / parts * alignment);
  return ends;
}

// Reads n bytes as read_part(offset within the read, length, out, dest)
// calls split at `ends`, gathering them into scratch; stops at a part that
// comes back short (end of file).
Status ReadInParts(size_t n, const std::vector<size_t>& ends, char* scratch, Slice* result,
                   const std::function<Status(size_t, size_t, Slice*, char*)>& read_part) {
  size_t done = 0;
  for (size_t i = 0; i <= ends.size(); ++i) {
    const size_t end = i < ends.size() ? ends[i] : n;
    const size_t want = end - done;
    Slice part;
    const Status s = read_part(done, want, &part, scratch + done);
    if (!s.ok()) return s;
    if (part.data() != scratch + done && part.size() > 0) {
      std::memmove(scratch + done, part.data(), part.size());
    }
    done += part.size();
    if (part.size() < want) break;  // short at end of file
  }
  *result = Slice(scratch, done);
  return Status::OK();
}

// A sequential handle does not tell its alignment: it splits at multiples
// of the largest any disk asks of direct I/O.
constexpr size_t kSequentialSplitBytes = 4096;

class FaultySequentialFile final : public SequentialFile {
 public:
  FaultySequentialFile(FaultInjectingFs* fs, const std::string& path,
                       std::unique_ptr<SequentialFile> base)
      : core_(fs, path, MediaOf(base.get())), base_(std::move(base)) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    *result = Slice();
    const Decision d = core_.Decide(Op::kRead, position_, n);
    if (!d.status.ok()) return core_.Failed("fault.seq_read", d.status);
    if (d.unreadable_sector.has_value()) core_.media()->MarkSectorUnreadable(*d.unreadable_sector);
    const Status s = ReadInParts(n, SplitPoints(n, d.short_reads, kSequentialSplitBytes), scratch,
                                 result, [this](size_t, size_t length, Slice* part, char* dest) {
                                   return base_->Read(length, part, dest);
                                 });
    if (s.ok()) position_ += result->size();
    return s;
  }
  Status Skip(uint64_t n) override {
    const Status s = base_->Skip(n);
    if (s.ok()) position_ = std::min(position_ + n, core_.media()->MediaSizes().visible_bytes);
    return s;
  }

 private:
  Core core_;
  std::unique_ptr<SequentialFile> base_;
  uint64_t position_ = 0;  // for the policy's view of the range
};

class FaultyRandomAccessFile final : public RandomAccessFile {
 public:
  FaultyRandomAccessFile(FaultInjectingFs* fs, const std::string& path,
                         std::unique_ptr<RandomAccessFile> base)
      : core_(fs, path, MediaOf(base.get())), base_(std::move(base)) {}

  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    *result = Slice();
    const Decision d = core_.Decide(Op::kRead, offset, n);
    if (!d.status.ok()) return core_.Failed("fault.pread", d.status);
    if (d.unreadable_sector.has_value()) core_.media()->MarkSectorUnreadable(*d.unreadable_sector);
    return ReadInParts(n, SplitPoints(n, d.short_reads, base_->GetRequiredBufferAlignment()),
                       scratch, result,
                       [this, offset](size_t from, size_t length, Slice* part, char* dest) {
                         return base_->Read(offset + from, length, part, dest);
                       });
  }
  size_t GetRequiredBufferAlignment() const override { return base_->GetRequiredBufferAlignment(); }
  bool use_direct_io() const override { return base_->use_direct_io(); }

 private:
  Core core_;
  std::unique_ptr<RandomAccessFile> base_;
};

class FaultyWritableFile final : public WritableFile {
 public:
  FaultyWritableFile(FaultInjectingFs* fs, const std::string& path,
                     std::unique_ptr<WritableFile> base)
      : core_(fs, path, MediaOf(base.get())), base_(std::move(base)) {}

  Status Append(const Slice& data) override { return Write(data, std::nullopt); }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    return Write(data, offset);
  }
  Status Truncate(uint64_t size) override {
    const Decision d = core_.Decide(Op::kWrite);
    return d.status.ok() ? base_->Truncate(size) : core_.Failed("fault.truncate", d.status);
  }
  Status Flush() override { return base_->Flush(); }
  Status Sync() override {
    return SyncCall([this] { return base_->Sync(); });
  }
  Status Fsync() override {
    return SyncCall([this] { return base_->Fsync(); });
  }
  Status Allocate(uint64_t offset, uint64_t len) override {
    const Decision d = core_.Decide(Op::kWrite);
    return d.status.ok() ? base_->Allocate(offset, len) : core_.Failed("fault.allocate", d.status);
  }
  Status Close() override { return base_->Close(); }
  uint64_t GetFileSize() const override { return base_->GetFileSize(); }
  size_t GetRequiredBufferAlignment() const override { return base_->GetRequiredBufferAlignment(); }
  bool use_direct_io() const override { return base_->use_direct_io(); }

 private:
  // Append (offset empty) or PositionedAppend.
  Status Write(const Slice& data, std::optional<uint64_t> offset) {
    const uint64_t at = offset.value_or(core_.media()->MediaSizes().visible_bytes);
    const Decision d = core_.Decide(Op::kWrite, at, data.size(), Alignment());
    if (!d.status.ok()) {
      WritePrefix(data, offset, d.applied_prefix_bytes);
      return core_.Failed("fault.write", d.status);
    }
    if (d.misdirect_to_sector.has_value() && data.size() > 0) {
      return core_.media()->WriteMisdirected(data, offset, *d.misdirect_to_sector);
    }
    return offset.has_value() ? base_->PositionedAppend(data, *offset) : base_->Append(data);
  }

  uint64_t Alignment() const {
    return base_->use_direct_io() ? std::max<size_t>(base_->GetRequiredBufferAlignment(), 1) : 1;
  }

  // A short write's leading bytes; a direct-I/O handle writes whole
  // alignment units only. The call fails whatever this one returns.
  void WritePrefix(const Slice& data, std::optional<uint64_t> offset, uint64_t prefix_bytes) {
    const uint64_t align = Alignment();
    const uint64_t bytes = std::min<uint64_t>(prefix_bytes, data.size()) / align * align;
    if (bytes == 0) return;
    const Slice prefix(data.data(), bytes);
    const Status s =
        offset.has_value() ? base_->PositionedAppend(prefix, *offset) : base_->Append(prefix);
    s.PermitUncheckedError();
  }

  Status SyncCall(const std::function<Status()>& sync) {
    const Decision d = core_.Decide(Op::kSync);
    return d.status.ok() ? sync() : core_.media()->FailSync(d.status, d.failed_sync);
  }

  Core core_;
  std::unique_ptr<WritableFile> base_;
};

}  // namespace

std::unique_ptr<SequentialFile> WrapSequential(FaultInjectingFs* fs, const std::string& path,
                                               std::unique_ptr<SequentialFile> base) {
  return std::make_unique<FaultySequentialFile>(fs, path, std::move(base));
}

std::unique_ptr<RandomAccessFile> WrapRandomAccess(FaultInjectingFs* fs, const std::string& path,
                                                   std::unique_ptr<RandomAccessFile> base) {
  return std::make_unique<FaultyRandomAccessFile>(fs, path, std::move(base));
}

std::unique_ptr<WritableFile> WrapWritable(FaultInjectingFs* fs, const std::string& path,
                                           std::unique_ptr<WritableFile> base) {
  return std::make_unique<FaultyWritableFile>(fs, path, std::move(base));
}

}  // namespace shale::faults::fault_fs_internal
