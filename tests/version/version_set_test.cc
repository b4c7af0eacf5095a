// VersionSet: LogAndApply + Recover on a real directory.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "util/random.h"
#include "version/filename.h"
#include "version/version_test_util.h"

namespace shale {
namespace {

using shale_test::IKey;
using shale_test::VersionSetFixture;

char* KeyName(char* buf, size_t n, uint64_t number, int offset) {
  std::snprintf(buf, n, "k%010llu", static_cast<unsigned long long>(number * 10 + offset));
  return buf;
}

// The model: level -> file numbers.
using Shape = std::map<int, std::set<uint64_t>>;

Shape ShapeOf(const VersionSetFixture& t) {
  Shape shape;
  for (int level = 0; level < t.vset_->NumLevels(); level++) {
    for (uint64_t n : t.LevelNumbers(level)) shape[level].insert(n);
  }
  return shape;
}

TEST_CASE("a new DB recovers empty", "[version_set]") {
  VersionSetFixture t;
  CHECK(t.vset_->LastSequence() == 0);
  CHECK(t.vset_->LogNumber() == 0);
  CHECK(t.vset_->ManifestFileNumber() == 1);
  CHECK(t.vset_->NextFileNumber() >= 2);
  CHECK(t.vset_->LevelSummary() == "files[ 0 0 0 0 ]");
}

TEST_CASE("many edits survive reopen", "[version_set]") {
  VersionSetFixture t;
  Random rnd(42);
  Shape model;
  SequenceNumber seq = 0;
  uint64_t log_number = 0;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 60; i++) {
      VersionEdit edit;
      // Delete a random existing file sometimes.
      if (!model.empty() && rnd.OneIn(3)) {
        auto level_it = model.begin();
        std::advance(level_it, static_cast<long>(rnd.Uniform(model.size())));
        auto file_it = level_it->second.begin();
        std::advance(file_it, static_cast<long>(rnd.Uniform(level_it->second.size())));
        edit.RemoveFile(level_it->first, *file_it);
        level_it->second.erase(file_it);
        if (level_it->second.empty()) model.erase(level_it);
      }
      // Each file covers its own key range, so no level ever overlaps.
      const int level = static_cast<int>(rnd.Uniform(4));
      const uint64_t number = t.vset_->NewFileNumber();
      char lo[32], hi[32];
      edit.AddFile(level, number, 1000 + number, IKey(KeyName(lo, sizeof(lo), number, 0), 5),
                   IKey(KeyName(hi, sizeof(hi), number, 5), 7), 5, 7);
      model[level].insert(number);
      seq += 1 + rnd.Uniform(100);
      t.vset_->SetLastSequence(seq);
      if (rnd.OneIn(5)) {
        log_number = t.vset_->NewFileNumber();
        edit.SetLogNumber(log_number);
      }
      REQUIRE(t.Apply(&edit).ok());
      REQUIRE(ShapeOf(t) == model);
    }
    const uint64_t manifest_before = t.vset_->ManifestFileNumber();
    const uint64_t next_file_before = t.vset_->NextFileNumber();
    REQUIRE(t.Reopen().ok());
    CHECK(ShapeOf(t) == model);
    CHECK(t.vset_->LastSequence() == seq);
    CHECK(t.vset_->LogNumber() == log_number);
    CHECK(t.vset_->ManifestFileNumber() == manifest_before);
    CHECK(t.vset_->NextFileNumber() >= next_file_before);
    // L0 newest first; deeper levels sorted by key.
    const auto& l0 = t.vset_->current()->files(0);
    for (size_t i = 1; i < l0.size(); i++) CHECK(l0[i - 1]->number > l0[i]->number);
    for (int level = 1; level < 4; level++) {
      const auto& files = t.vset_->current()->files(level);
      for (size_t i = 1; i < files.size(); i++) {
        CHECK(t.icmp_.Compare(files[i - 1]->largest.Encode(), files[i]->smallest.Encode()) < 0);
      }
    }
  }
}

TEST_CASE("the MANIFEST records the last allocated sequence, not the published one",
          "[version_set]") {
  VersionSetFixture t;
  {
    MutexLock lock(t.mu_.get());
    t.vset_->SetLastSequence(5);
    t.vset_->SetLastAllocatedSequence(9);  // 6..9 handed out, not yet published
  }
  VersionEdit edit;
  edit.AddFile(0, t.vset_->NewFileNumber(), 100, IKey("a", 6), IKey("b", 9), 6, 9);
  REQUIRE(t.Apply(&edit).ok());
  REQUIRE(t.Reopen().ok());
  CHECK(t.vset_->LastSequence() == 9);
}

TEST_CASE("LogAndApply refuses a table with a sequence never handed out", "[version_set]") {
  VersionSetFixture t;
  VersionEdit edit;
  edit.AddFile(0, t.vset_->NewFileNumber(), 100, IKey("a", 6), IKey("b", 9), 6, 9);
  MutexLock lock(t.mu_.get());
  t.vset_->SetLastSequence(8);
  const uint64_t manifest_size =
      std::filesystem::file_size(DescriptorFileName(t.dir_.path(), t.vset_->ManifestFileNumber()));
  const Status s = t.vset_->LogAndApply(&edit, t.mu_.get());
  CHECK(s.IsCorruption());
  CHECK(t.vset_->current()->files(0).empty());
  CHECK(std::filesystem::file_size(
            DescriptorFileName(t.dir_.path(), t.vset_->ManifestFileNumber())) == manifest_size);
}

TEST_CASE("the first LogAndApply after recovery starts a new MANIFEST", "[version_set]") {
  VersionSetFixture t;
  const uint64_t old_manifest = t.vset_->ManifestFileNumber();
  t.AddFile(1, IKey("a"), IKey("b"));
  const uint64_t new_manifest = t.vset_->ManifestFileNumber();
  CHECK(new_manifest > old_manifest);
  t.AddFile(1, IKey("c"), IKey("d"));
  CHECK(t.vset_->ManifestFileNumber() == new_manifest);  // appended, not switched
  std::string current;
  REQUIRE(ReadFileToString(t.env_->fs(), CurrentFileName(t.dir_.path()), &current).ok());
  CHECK(current == "MANIFEST-" + std::string(6 - std::to_string(new_manifest).size(), '0') +
                       std::to_string(new_manifest) + "\n");
}

TEST_CASE("a torn last MANIFEST record is ignored", "[version_set]") {
  VersionSetFixture t;
  const uint64_t a = t.AddFile(1, IKey("a"), IKey("b"));
  const uint64_t b = t.AddFile(1, IKey("c"), IKey("d"));
  const std::string manifest = DescriptorFileName(t.dir_.path(), t.vset_->ManifestFileNumber());
  t.Close();
  const auto size = std::filesystem::file_size(manifest);
  std::filesystem::resize_file(manifest, size - 3);
  REQUIRE(t.Reopen().ok());
  CHECK(t.LevelNumbers(1) == std::set<uint64_t>{a});
  CHECK(b > a);
  // The recovered DB works: the next edit goes to a fresh MANIFEST.
  t.AddFile(1, IKey("e"), IKey("f"));
  REQUIRE(t.Reopen().ok());
  CHECK(t.LevelNumbers(1).size() == 2);
}

TEST_CASE("Recover rejects a bad CURRENT", "[version_set]") {
  VersionSetFixture t;
  t.Close();
  FileSystem* fs = t.env_->fs();
  const std::string current = CurrentFileName(t.dir_.path());
  SECTION("no newline") {
    REQUIRE(WriteStringToFile(fs, "MANIFEST-000001", current, true).ok());
    CHECK(t.Reopen().IsCorruption());
  }
  SECTION("empty") {
    REQUIRE(WriteStringToFile(fs, "", current, true).ok());
    CHECK(t.Reopen().IsCorruption());
  }
  SECTION("not a MANIFEST name") {
    REQUIRE(WriteStringToFile(fs, "000001.sst\n", current, true).ok());
    CHECK(t.Reopen().IsCorruption());
  }
  SECTION("missing MANIFEST") {
    REQUIRE(WriteStringToFile(fs, "MANIFEST-000099\n", current, true).ok());
    CHECK(t.Reopen().IsCorruption());
  }
  SECTION("missing CURRENT") {
    REQUIRE(fs->DeleteFile(current).ok());
    CHECK_FALSE(t.Reopen().ok());
  }
}

TEST_CASE("Recover rejects a MANIFEST damaged before its tail", "[version_set]") {
  VersionSetFixture t;
  for (int i = 0; i < 5; i++) {
    const std::string k = std::string(1, static_cast<char>('a' + 2 * i));
    t.AddFile(1, IKey(k), IKey(k + "z"));
  }
  const std::string manifest = DescriptorFileName(t.dir_.path(), t.vset_->ManifestFileNumber());
  t.Close();
  std::string data;
  REQUIRE(ReadFileToString(t.env_->fs(), manifest, &data).ok());
  data[20] = static_cast<char>(data[20] ^ 0x40);  // inside the first record
  REQUIRE(WriteStringToFile(t.env_->fs(), data, manifest, true).ok());
  CHECK(t.Reopen().IsCorruption());
}

class OtherComparator final : public Comparator {
 public:
  int Compare(const Slice& a, const Slice& b) const override { return a.compare(b); }
  const char* Name() const override { return "test.OtherComparator"; }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

TEST_CASE("Recover rejects another comparator", "[version_set]") {
  VersionSetFixture t;
  t.Close();
  static OtherComparator other;
  InternalKeyComparator icmp(&other);
  TableOptions topts;
  topts.comparator = &icmp;
  TableCache cache(t.dir_.path(), topts, -1, t.env_, nullptr);
  VersionSet vset(t.dir_.path(), &t.options_, &cache, &icmp, t.env_, nullptr);
  bool save = false;
  CHECK(vset.Recover(&save).IsInvalidArgument());
}

TEST_CASE("AddLiveFiles includes files of referenced old versions", "[version_set]") {
  VersionSetFixture t;
  const uint64_t a = t.AddFile(1, IKey("a"), IKey("b"));
  Version* old = t.vset_->current();
  {
    MutexLock lock(t.mu_.get());
    old->Ref();
  }
  VersionEdit edit;
  edit.RemoveFile(1, a);
  REQUIRE(t.Apply(&edit).ok());
  std::set<uint64_t> live;
  {
    MutexLock lock(t.mu_.get());
    t.vset_->AddLiveFiles(&live);
    CHECK(live.count(a) == 1);
    old->Unref();
    live.clear();
    t.vset_->AddLiveFiles(&live);
    CHECK(live.count(a) == 0);
  }
}

}  // namespace
}  // namespace shale
