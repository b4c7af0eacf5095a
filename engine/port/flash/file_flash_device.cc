#include "port/flash/file_flash_device.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "port/posix_files.h"
#include "util/coding.h"

namespace shale {

namespace {

constexpr char kMagic[] = "SHLFDEV1";
constexpr uint64_t kHeaderBytes = 4096;
constexpr uint64_t kRecordBytes = 16;

std::vector<uint32_t> GeometryWords(const FlashGeometry& g) {
  return {g.groups,          g.parallel_units_per_group,
          g.chunks_per_unit, g.sectors_per_chunk,
          g.sector_bytes,    g.oob_bytes,
          g.ws_min,          g.ws_opt,
          g.mw_cunits,       g.max_open_chunks,
          g.max_resets,      g.zeros_past_write_pointer ? 1u : 0u};
}

std::string EncodeHeader(const FlashGeometry& g) {
  std::string header(kMagic, 8);
  for (uint32_t word : GeometryWords(g)) PutFixed32(&header, word);
  header.resize(kHeaderBytes, '\0');
  return header;
}

Status Rule(const std::string& rule, const std::string& call) {
  return Status::InvalidArgument("device rule: " + rule, call);
}

std::string Call(const char* op, uint32_t chunk, uint32_t sector, uint32_t count) {
  return std::string(op) + "(chunk " + std::to_string(chunk) + ", sector " +
         std::to_string(sector) + ", " + std::to_string(count) + " sectors)";
}

}  // namespace

Status FileFlashDevice::Open(const std::string& path, const FlashGeometry& geometry,
                             std::unique_ptr<FileFlashDevice>* result) {
  const std::string invalid = geometry.Invalid();
  if (!invalid.empty()) return Status::InvalidArgument("flash device: " + invalid, path);
  bool created = false;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created = true;
  }
  if (fd < 0) return PosixError("open flash device " + path, errno);
  std::unique_ptr<FileFlashDevice> device(new FileFlashDevice(path, fd, geometry));
  Status s = device->Load(created);
  if (!s.ok()) return s;
  *result = std::move(device);
  return Status::OK();
}

FileFlashDevice::FileFlashDevice(std::string path, int fd, const FlashGeometry& geometry)
    : path_(std::move(path)), fd_(fd), geometry_(geometry), table_(geometry) {}

FileFlashDevice::~FileFlashDevice() { ::close(fd_); }

Status FileFlashDevice::Load(bool created) {
  const std::string header = EncodeHeader(geometry_);
  if (created) {
    Status s = PWrite(0, header.data(), header.size());
    for (uint32_t chunk = 0; s.ok() && chunk < geometry_.chunks(); chunk++) s = SaveRecord(chunk);
    return s;
  }
  std::string found(kHeaderBytes, '\0');
  Status s = PRead(0, found.size(), found.data());
  if (!s.ok()) return s;
  if (found.compare(0, 8, kMagic, 8) != 0) {
    return Status::Corruption("flash device: not a device file", path_);
  }
  if (found != header) {
    return Status::InvalidArgument("flash device: the file holds another geometry", path_);
  }
  std::string records(geometry_.chunks() * kRecordBytes, '\0');
  s = PRead(kHeaderBytes, records.size(), records.data());
  for (uint32_t chunk = 0; s.ok() && chunk < geometry_.chunks(); chunk++) {
    const char* r = records.data() + chunk * kRecordBytes;
    ChunkDescriptor d;
    d.state = static_cast<ChunkState>(r[0]);
    d.write_pointer = DecodeFixed32(r + 4);
    d.wear = DecodeFixed32(r + 8);
    const uint32_t end = geometry_.sectors_per_chunk;
    const bool valid =
        (d.state == ChunkState::kFree && d.write_pointer == 0) ||
        (d.state == ChunkState::kOpen && d.write_pointer > 0 && d.write_pointer < end) ||
        (d.state == ChunkState::kClosed && d.write_pointer <= end) ||
        (d.state == ChunkState::kOffline && d.write_pointer == 0);
    if (!valid) return Status::Corruption("flash device: a damaged chunk record", path_);
    table_.Restore(chunk, d, r[1] != 0);
  }
  return s;
}

Status FileFlashDevice::SaveRecord(uint32_t chunk) {
  const ChunkDescriptor& d = table_.descriptor(chunk);
  char record[kRecordBytes] = {};
  record[0] = static_cast<char>(d.state);
  record[1] = table_.grown_bad(chunk) ? 1 : 0;
  EncodeFixed32(record + 4, d.write_pointer);
  EncodeFixed32(record + 8, d.wear);
  return PWrite(kHeaderBytes + chunk * kRecordBytes, record, kRecordBytes);
}

uint64_t FileFlashDevice::DataOffset(uint32_t chunk, uint32_t sector) const {
  const uint64_t records = uint64_t{geometry_.chunks()} * kRecordBytes;
  const uint64_t index = uint64_t{chunk} * geometry_.sectors_per_chunk + sector;
  return kHeaderBytes + records + index * geometry_.sector_bytes;
}

uint64_t FileFlashDevice::OobOffset(uint32_t chunk, uint32_t sector) const {
  const uint64_t index = uint64_t{chunk} * geometry_.sectors_per_chunk + sector;
  return DataOffset(geometry_.chunks(), 0) + index * geometry_.oob_bytes;
}

Status FileFlashDevice::PRead(uint64_t offset, size_t n, char* out) const {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, out + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return PosixError("read flash device " + path_, errno);
    if (r == 0) {  // past the end of a sparse file: never written
      std::memset(out + got, 0, n - got);
      break;
    }
    got += static_cast<size_t>(r);
  }
  return Status::OK();
}

Status FileFlashDevice::PWrite(uint64_t offset, const char* data, size_t n) const {
  size_t put = 0;
  while (put < n) {
    const ssize_t w = ::pwrite(fd_, data + put, n - put, static_cast<off_t>(offset + put));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return PosixError("write flash device " + path_, errno);
    put += static_cast<size_t>(w);
  }
  return Status::OK();
}

Status FileFlashDevice::ReportChunks(std::vector<ChunkDescriptor>* report) {
  std::lock_guard<std::mutex> l(mu_);
  *report = table_.Report();
  return Status::OK();
}

Status FileFlashDevice::Write(uint32_t chunk, uint32_t sector, const Slice& data,
                              const Slice& oob) {
  const uint32_t count = static_cast<uint32_t>(data.size() / geometry_.sector_bytes);
  if (data.size() % geometry_.sector_bytes != 0 ||
      oob.size() != uint64_t{count} * geometry_.oob_bytes) {
    return Status::InvalidArgument("flash device: data or OOB of the wrong size", path_);
  }
  std::lock_guard<std::mutex> l(mu_);
  if (std::string rule = table_.CheckWrite(chunk, sector, count); !rule.empty()) {
    return Rule(rule, Call("Write", chunk, sector, count));
  }
  Status s = PWrite(DataOffset(chunk, sector), data.data(), data.size());
  if (s.ok()) s = PWrite(OobOffset(chunk, sector), oob.data(), oob.size());
  if (!s.ok()) {
    // A failed write is this device's program failure: the chunk closes
    // early, as the contract says (the backend writes around it).
    table_.ApplyProgramFailure(chunk);
    (void)SaveRecord(chunk);
    return s;
  }
  table_.ApplyWrite(chunk, count);
  return SaveRecord(chunk);
}

Status FileFlashDevice::Read(uint32_t chunk, uint32_t sector, uint32_t count, char* data,
                             char* oob) {
  std::lock_guard<std::mutex> l(mu_);
  if (std::string rule = table_.CheckRead(chunk, sector, count); !rule.empty()) {
    return Rule(rule, Call("Read", chunk, sector, count));
  }
  const ChunkDescriptor& d = table_.descriptor(chunk);
  if (d.state == ChunkState::kOffline) {
    return Status::IOError("flash device: read of an OFFLINE chunk", path_);
  }
  if (table_.ReadsPastWritePointer(chunk, sector, count) && !geometry_.zeros_past_write_pointer) {
    return Status::IOError("flash device: read past the write pointer", path_);
  }
  // Sectors past the write pointer read as zeros.
  const uint32_t written =
      sector >= d.write_pointer ? 0 : std::min(count, d.write_pointer - sector);
  std::memset(data, 0, uint64_t{count} * geometry_.sector_bytes);
  if (oob != nullptr) std::memset(oob, 0, uint64_t{count} * geometry_.oob_bytes);
  if (written == 0) return Status::OK();
  Status s = PRead(DataOffset(chunk, sector), uint64_t{written} * geometry_.sector_bytes, data);
  if (s.ok() && oob != nullptr) {
    s = PRead(OobOffset(chunk, sector), uint64_t{written} * geometry_.oob_bytes, oob);
  }
  return s;
}

Status FileFlashDevice::Reset(uint32_t chunk) {
  std::lock_guard<std::mutex> l(mu_);
  if (std::string rule = table_.CheckReset(chunk); !rule.empty()) {
    return Rule(rule, "Reset(chunk " + std::to_string(chunk) + ")");
  }
  const bool failed = table_.ResetWillFail(chunk);
  table_.ApplyReset(chunk, failed);
  Status s = SaveRecord(chunk);
  if (s.ok() && failed) return Status::IOError("flash device: erase failure (worn out)", path_);
  return s;
}

}  // namespace shale
