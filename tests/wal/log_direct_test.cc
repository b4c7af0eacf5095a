// A log written with direct I/O: each Sync pads the log to the file's
// alignment with a Padding fragment, so no later write touches a sector
// that holds synced records, and the zero padding a crash leaves after the
// last record reads as a clean end.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "shale/options.h"
#include "util/random.h"
#include "wal/log_test_util.h"

namespace shale_test {
namespace {

using shale::WALRecoveryMode;

// A direct in-memory file that remembers the lowest offset written since
// the last Sync.
class DirectMemFile final : public MemWritableFile {
 public:
  DirectMemFile(std::string* contents, size_t alignment)
      : MemWritableFile(contents), alignment_(alignment) {}
  bool use_direct_io() const override { return true; }
  size_t GetRequiredBufferAlignment() const override { return alignment_; }
  Status PositionedAppend(const Slice& data, uint64_t offset) override {
    lowest_write_since_sync_ = std::min(lowest_write_since_sync_, offset);
    return MemWritableFile::PositionedAppend(data, offset);
  }
  Status Sync() override {
    lowest_write_since_sync_ = UINT64_MAX;
    return MemWritableFile::Sync();
  }
  uint64_t lowest_write_since_sync() const { return lowest_write_since_sync_; }

 private:
  const size_t alignment_;
  uint64_t lowest_write_since_sync_ = UINT64_MAX;
};

struct DirectLog {
  explicit DirectLog(size_t alignment) {
    auto owned = std::make_unique<DirectMemFile>(&contents, alignment);
    file = owned.get();
    auto dest = std::make_unique<shale::WritableFileWriter>(std::move(owned), "mem.log");
    writer = std::make_unique<shale::log::Writer>(std::move(dest), kTestLogNumber);
  }
  std::string contents;
  DirectMemFile* file = nullptr;
  std::unique_ptr<shale::log::Writer> writer;
};

TEST_CASE("direct log: no write after a sync touches a synced sector", "[wal]") {
  for (const size_t alignment : {size_t{512}, size_t{4096}}) {
    INFO("alignment " << alignment);
    shale::Random rng(alignment);
    DirectLog log(alignment);
    std::vector<std::string> records;
    uint64_t synced_bytes = 0;
    for (int i = 0; i < 400; ++i) {
      const size_t size = rng.OneIn(10) ? rng.Uniform(40000) : rng.Uniform(300);
      records.push_back(std::string(size, static_cast<char>('a' + i % 26)));
      REQUIRE(log.writer->AddRecord(records.back()).ok());
      // Every write since the last sync starts past the synced bytes.
      REQUIRE(log.file->lowest_write_since_sync() >= synced_bytes);
      if (rng.OneIn(3)) {
        REQUIRE(log.writer->Sync().ok());
        synced_bytes = log.writer->size_bytes();
        REQUIRE(synced_bytes % alignment == 0);
      }
    }
    // A crash now: the file holds the last sector's zero padding. Every
    // mode reads every record and ends cleanly.
    REQUIRE(log.contents.size() % alignment == 0);
    for (WALRecoveryMode mode :
         {WALRecoveryMode::kAbsoluteConsistency, WALRecoveryMode::kTolerateCorruptedTailRecords,
          WALRecoveryMode::kPointInTimeRecovery}) {
      const Replayed r = ReplayMem(log.contents, mode);
      REQUIRE(r.status.ok());
      REQUIRE(r.records == records);
      REQUIRE_FALSE(r.result.stopped_at_damage);
    }
    REQUIRE(log.writer->Close().ok());  // cuts the padding off
    REQUIRE(ReplayMem(log.contents, WALRecoveryMode::kAbsoluteConsistency).records == records);
  }
}

TEST_CASE("direct log: a Padding fragment inside a record is corrupt", "[wal]") {
  const std::string contents = Fragment(shale::log::kFirstType, "ab") +
                               Fragment(shale::log::kPaddingType, std::string(10, '\0')) +
                               Fragment(shale::log::kLastType, "cd");
  const Replayed r = ReplayMem(contents, WALRecoveryMode::kAbsoluteConsistency);
  REQUIRE(r.status.IsCorruption());
  REQUIRE(r.records.empty());
}

TEST_CASE("direct log: only a short, aligned zero tail is padding", "[wal]") {
  // 512 bytes: one Full record padded with zeros to the sector's end.
  const std::string record(100, 'r');
  const std::string logged = Fragment(shale::log::kFullType, record);
  const std::string padded = logged + std::string(512 - logged.size(), '\0');
  REQUIRE(ReplayMem(padded, WALRecoveryMode::kAbsoluteConsistency).status.ok());
  // Not ending on a 512-byte boundary, or 4096 zeros or more: a torn or
  // preallocated tail, as before.
  REQUIRE(ReplayMem(padded + std::string(7, '\0'), WALRecoveryMode::kAbsoluteConsistency)
              .status.IsCorruption());
  REQUIRE(ReplayMem(padded + std::string(4096, '\0'), WALRecoveryMode::kAbsoluteConsistency)
              .status.IsCorruption());
  // Zeros inside an unfinished record are a truncated tail.
  std::string torn = Fragment(shale::log::kFirstType, record);
  torn += std::string(512 - torn.size(), '\0');
  REQUIRE(ReplayMem(torn, WALRecoveryMode::kAbsoluteConsistency).status.IsCorruption());
}

}  // namespace
}  // namespace shale_test
