// WritableFileWriter after a failed call: what the file holds past the
// last success is unknown (a short write may have left part of a record),
// so the writer writes nothing more, and every later call, Close included,
// returns the first error.
#include <catch2/catch.hpp>

#include "sim_disk/test_disk_context.h"
#include "util/file_writer.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;

// A file whose appends number from 1; append number `fail_at` writes its
// first `prefix` bytes and fails with NoSpace.
class ShortWriteFile final : public shale::WritableFile {
 public:
  ShortWriteFile(std::unique_ptr<shale::WritableFile> base, int fail_at, size_t prefix)
      : base_(std::move(base)), fail_at_(fail_at), prefix_(prefix) {}
  Status Append(const Slice& data) override {
    if (++appends_ != fail_at_) return base_->Append(data);
    base_->Append(Slice(data.data(), prefix_)).PermitUncheckedError();
    return Status::NoSpace("short write", "/db/t");
  }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    return base_->PositionedAppend(data, offset);
  }
  Status Truncate(uint64_t size) override { return base_->Truncate(size); }
  Status Flush() override { return base_->Flush(); }
  Status Sync() override { return base_->Sync(); }
  Status Fsync() override { return base_->Fsync(); }
  Status Allocate(uint64_t offset, uint64_t len) override { return base_->Allocate(offset, len); }
  Status Close() override { return base_->Close(); }
  uint64_t GetFileSize() const override { return base_->GetFileSize(); }

 private:
  std::unique_ptr<shale::WritableFile> base_;
  const int fail_at_;
  const size_t prefix_;
  int appends_ = 0;
};

TEST_CASE("writer: after a short write nothing more reaches the file, and Close fails too",
          "[sim_disk]") {
  TestDiskContext ctx;
  SimDisk disk(&ctx, LatencyProfile::Zero());
  REQUIRE(disk.CreateDirIfMissing("/db").ok());
  std::unique_ptr<shale::WritableFile> file;
  REQUIRE(disk.NewWritableFile("/db/t", FileOptions(), &file).ok());
  auto failing = std::make_unique<ShortWriteFile>(std::move(file), /*fail_at=*/2, /*prefix=*/3);
  shale::WritableFileWriter writer(std::move(failing), "/db/t", nullptr, /*buffer_bytes=*/16);
  REQUIRE(writer.Append("first").ok());
  REQUIRE(writer.Flush().ok());                               // append 1
  const Status failed = writer.Append(std::string(20, 'x'));  // append 2: 3 bytes land
  REQUIRE(failed.IsNoSpace());
  CHECK(writer.Append("more").ToString() == failed.ToString());
  CHECK(writer.Flush().ToString() == failed.ToString());
  CHECK(writer.Sync().ToString() == failed.ToString());
  CHECK(writer.Close().ToString() == failed.ToString());
  std::string visible;
  REQUIRE(disk.ReadVisible("/db/t", &visible).ok());
  CHECK(visible == "firstxxx");  // nothing re-written after the prefix
}

}  // namespace
}  // namespace shale_test
