// Leveled compaction picking with synthetic files (never opened).
#include <catch2/catch.hpp>
#include <memory>
#include <set>

#include "version/version_test_util.h"

namespace shale {
namespace {

using shale_test::IKey;
using shale_test::Numbers;
using shale_test::VersionSetFixture;
using Set = std::set<uint64_t>;

// Picks under the DB mutex; the result is owned by the caller.
std::unique_ptr<Compaction> Pick(VersionSetFixture& t) {
  MutexLock lock(t.mu_.get());
  return std::unique_ptr<Compaction>(t.vset_->PickCompaction());
}

// A manual compaction of level's files in [begin, end], picked under the
// DB mutex; nullptr if none overlaps or one is busy.
std::unique_ptr<Compaction> PickManual(VersionSetFixture& t, int level, const InternalKey* begin,
                                       const InternalKey* end) {
  MutexLock lock(t.mu_.get());
  bool busy = false;
  return std::unique_ptr<Compaction>(t.vset_->CompactRange(level, begin, end, &busy));
}

void Release(VersionSetFixture& t, std::unique_ptr<Compaction>* c) {
  MutexLock lock(t.mu_.get());
  c->reset();  // the destructor releases the inputs
}

TEST_CASE("L0 compacts at the file-count trigger, with its L1 overlap", "[picker]") {
  VersionSetFixture t;
  const uint64_t l1_overlap = t.AddFile(1, IKey("c"), IKey("d"));
  t.AddFile(1, IKey("x"), IKey("y"));
  Set l0;
  for (int i = 0; i < 3; i++) l0.insert(t.AddFile(0, IKey("a"), IKey("m")));
  CHECK_FALSE(t.vset_->NeedsCompaction());
  CHECK(Pick(t) == nullptr);
  l0.insert(t.AddFile(0, IKey("b"), IKey("e")));
  REQUIRE(t.vset_->NeedsCompaction());
  auto c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(c->level() == 0);
  CHECK(c->output_level() == 1);
  CHECK(Numbers(c->inputs(0)) == l0);
  CHECK(Numbers(c->inputs(1)) == Set{l1_overlap});
  CHECK_FALSE(c->IsTrivialMove());
  for (const FileMetaData* f : c->inputs(0)) CHECK(f->being_compacted);
  // A running L0 compaction blocks another one.
  t.AddFile(0, IKey("a"), IKey("b"));
  CHECK(Pick(t) == nullptr);
  Release(t, &c);
  for (const FileMetaData* f : t.vset_->current()->files(0)) CHECK_FALSE(f->being_compacted);
}

TEST_CASE("L0 takes every file overlapping the oldest, transitively", "[picker]") {
  VersionSetFixture t;
  t.options_.level0_file_num_compaction_trigger = 1;
  const uint64_t a = t.AddFile(0, IKey("a"), IKey("b"));  // oldest
  const uint64_t b = t.AddFile(0, IKey("c"), IKey("d"));
  const uint64_t c_ab = t.AddFile(0, IKey("b"), IKey("c"));
  t.AddFile(0, IKey("x"), IKey("y"));
  auto c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(Numbers(c->inputs(0)) == Set{a, b, c_ab});
  // Kept newest first.
  CHECK(c->input(0, 0)->number == c_ab);
  Release(t, &c);
}

TEST_CASE("level scores follow MaxBytesForLevel, round robin by compact pointer", "[picker]") {
  VersionSetFixture t;
  CHECK(t.vset_->MaxBytesForLevel(1) == 10000);
  CHECK(t.vset_->MaxBytesForLevel(2) == 100000);
  const uint64_t f1 = t.AddFile(1, IKey("a"), IKey("b"), 4000);
  const uint64_t f2 = t.AddFile(1, IKey("c"), IKey("d"), 4000);
  CHECK_FALSE(t.vset_->NeedsCompaction());
  const uint64_t f3 = t.AddFile(1, IKey("e"), IKey("f"), 4000);
  const uint64_t f4 = t.AddFile(1, IKey("g"), IKey("h"), 4000);
  const uint64_t g = t.AddFile(2, IKey("c1"), IKey("c2"), 500);
  REQUIRE(t.vset_->NeedsCompaction());

  auto c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(c->level() == 1);
  CHECK(Numbers(c->inputs(0)) == Set{f1});
  CHECK(c->IsTrivialMove());
  Release(t, &c);
  c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(Numbers(c->inputs(0)) == Set{f2});
  CHECK(Numbers(c->inputs(1)) == Set{g});
  CHECK_FALSE(c->IsTrivialMove());
  // While f2 is being compacted (12000 free bytes) another pick takes f3.
  auto c2 = Pick(t);
  REQUIRE(c2 != nullptr);
  CHECK(Numbers(c2->inputs(0)) == Set{f3});
  Release(t, &c);
  Release(t, &c2);
  c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(Numbers(c->inputs(0)) == Set{f4});
  Release(t, &c);
  c = Pick(t);  // wraps around
  REQUIRE(c != nullptr);
  CHECK(Numbers(c->inputs(0)) == Set{f1});
  Release(t, &c);
}

TEST_CASE("the last level never scores, CompactRange rewrites it in place", "[picker]") {
  VersionSetFixture t;
  const uint64_t f = t.AddFile(3, IKey("a"), IKey("b"), 1u << 30);
  CHECK_FALSE(t.vset_->NeedsCompaction());
  MutexLock lock(t.mu_.get());
  bool busy = true;
  std::unique_ptr<Compaction> c(t.vset_->CompactRange(3, nullptr, nullptr, &busy));
  REQUIRE(c != nullptr);
  CHECK_FALSE(busy);
  CHECK(c->output_level() == 3);
  CHECK(Numbers(c->inputs(0)) == Set{f});
  CHECK(c->num_input_files(1) == 0);
  CHECK_FALSE(c->IsTrivialMove());
  CHECK(c->IsBaseLevelForKey("a"));
}

TEST_CASE("CompactRange takes whole user keys across file boundaries", "[picker]") {
  VersionSetFixture t;
  const uint64_t f1 = t.AddFile(1, IKey("a", 9), IKey("c", 5));
  const uint64_t f2 = t.AddFile(1, IKey("c", 4), IKey("e", 1));
  t.AddFile(1, IKey("g"), IKey("h"));
  const uint64_t l2 = t.AddFile(2, IKey("e"), IKey("f"));
  MutexLock lock(t.mu_.get());
  bool busy = true;
  const InternalKey a = IKey("a");
  std::unique_ptr<Compaction> c(t.vset_->CompactRange(1, &a, &a, &busy));
  REQUIRE(c != nullptr);
  CHECK(Numbers(c->inputs(0)) == Set{f1, f2});
  CHECK(Numbers(c->inputs(1)) == Set{l2});
  // Overlapping a running compaction: busy.
  std::unique_ptr<Compaction> again(t.vset_->CompactRange(1, &a, &a, &busy));
  CHECK(again == nullptr);
  CHECK(busy);
  const InternalKey z = IKey("z");
  std::unique_ptr<Compaction> none(t.vset_->CompactRange(1, &z, &z, &busy));
  CHECK(none == nullptr);
  CHECK_FALSE(busy);
}

// A manual compaction's inputs leave a gap in their level; a file that
// lands in the gap while it runs must not be compacted into the output
// level inside the manual compaction's output range, or the two outputs
// would overlap there (the DB then refuses the edit as corruption).
TEST_CASE("a running compaction reserves its output range in the output level", "[picker]") {
  VersionSetFixture t;
  const uint64_t left = t.AddFile(2, IKey("a"), IKey("b"));
  const uint64_t right = t.AddFile(2, IKey("e"), IKey("f"));
  const InternalKey a = IKey("a"), f = IKey("f");
  std::unique_ptr<Compaction> manual = PickManual(t, 2, &a, &f);
  REQUIRE(manual != nullptr);
  CHECK(Numbers(manual->inputs(0)) == Set{left, right});
  CHECK(manual->output_level() == 3);
  const uint64_t gap = t.AddFile(2, IKey("c"), IKey("d"), 1u << 30);
  const uint64_t outside = t.AddFile(2, IKey("x"), IKey("y"), 1u << 30);
  REQUIRE(t.vset_->NeedsCompaction());
  // Only the file outside [a, f] may go to level 3 now.
  auto auto_pick = Pick(t);
  REQUIRE(auto_pick != nullptr);
  CHECK(Numbers(auto_pick->inputs(0)) == Set{outside});
  Release(t, &auto_pick);
  auto blocked = Pick(t);
  if (blocked != nullptr) CHECK(Numbers(blocked->inputs(0)) != Set{gap});
  Release(t, &blocked);
  // So is a second manual compaction over the gap: busy until the first ends.
  {
    MutexLock lock(t.mu_.get());
    bool busy = false;
    const InternalKey c = IKey("c");
    std::unique_ptr<Compaction> again(t.vset_->CompactRange(2, &c, &c, &busy));
    CHECK(again == nullptr);
    CHECK(busy);
  }
  Release(t, &manual);
  MutexLock lock(t.mu_.get());
  bool busy = true;
  const InternalKey c = IKey("c");
  std::unique_ptr<Compaction> after(t.vset_->CompactRange(2, &c, &c, &busy));
  REQUIRE(after != nullptr);
  CHECK(Numbers(after->inputs(0)) == Set{gap});
}

TEST_CASE("IsBaseLevelForKey looks below the output level", "[picker]") {
  VersionSetFixture t;
  t.AddFile(1, IKey("a"), IKey("z"));
  t.AddFile(2, IKey("b"), IKey("c"));  // output level: not consulted
  t.AddFile(3, IKey("m"), IKey("p"));
  MutexLock lock(t.mu_.get());
  bool busy = false;
  std::unique_ptr<Compaction> c(t.vset_->CompactRange(1, nullptr, nullptr, &busy));
  REQUIRE(c != nullptr);
  CHECK(c->IsBaseLevelForKey("a"));
  CHECK(c->IsBaseLevelForKey("b"));
  CHECK_FALSE(c->IsBaseLevelForKey("m"));
  CHECK_FALSE(c->IsBaseLevelForKey("n"));
  CHECK(c->IsBaseLevelForKey("q"));
}

TEST_CASE("big grandparent overlap: no trivial move, outputs cut", "[picker]") {
  VersionSetFixture t;
  const uint64_t f = t.AddFile(1, IKey("a"), IKey("z"));
  // Grandparents (level 3) of 6000 bytes each; the limit is 10 * 1000.
  t.AddFile(3, IKey("b"), IKey("b"), 6000);
  t.AddFile(3, IKey("c", 100), IKey("c", 8), 6000);
  t.AddFile(3, IKey("x"), IKey("x"), 6000);
  MutexLock lock(t.mu_.get());
  bool busy = false;
  std::unique_ptr<Compaction> c(t.vset_->CompactRange(1, nullptr, nullptr, &busy));
  REQUIRE(c != nullptr);
  CHECK(Numbers(c->inputs(0)) == Set{f});
  CHECK_FALSE(c->IsTrivialMove());
  CHECK_FALSE(c->ShouldStopBefore(IKey("a").Encode()));
  CHECK_FALSE(c->ShouldStopBefore(IKey("c", 9).Encode()));  // passed "b": 6000
  // Passing the second grandparent exceeds the limit, but inside user key "c".
  CHECK_FALSE(c->ShouldStopBefore(IKey("c", 7).Encode()));
  CHECK(c->ShouldStopBefore(IKey("d").Encode()));
  CHECK_FALSE(c->ShouldStopBefore(IKey("e").Encode()));
}

TEST_CASE("compaction edits apply: trivial move between levels", "[picker]") {
  VersionSetFixture t;
  const uint64_t f = t.AddFile(1, IKey("a"), IKey("b"), 20000);
  auto c = Pick(t);
  REQUIRE(c != nullptr);
  REQUIRE(c->IsTrivialMove());
  VersionEdit* edit = c->edit();
  c->AddInputDeletions(edit);
  const FileMetaData* in = c->input(0, 0);
  edit->AddFile(c->output_level(), *in);
  {
    MutexLock lock(t.mu_.get());
    REQUIRE(t.vset_->LogAndApply(edit, t.mu_.get()).ok());
    c.reset();
  }
  CHECK(t.LevelNumbers(1).empty());
  CHECK(t.LevelNumbers(2) == Set{f});
  REQUIRE(t.Reopen().ok());
  CHECK(t.LevelNumbers(2) == Set{f});
}

// The file numbered number in level of the current version.
FileMetaData* FileAt(VersionSetFixture& t, int level, uint64_t number) {
  for (FileMetaData* f : t.vset_->current()->files(level)) {
    if (f->number == number) return f;
  }
  FAIL("no file " << number << " in level " << level);
  return nullptr;
}

// Charges seeks to the file until it is marked; returns how many it took.
int ChargeUntilMarked(VersionSetFixture& t, int level, uint64_t number) {
  MutexLock lock(t.mu_.get());
  FileMetaData* f = FileAt(t, level, number);
  for (int charged = 1; charged <= 100000; charged++) {
    if (t.vset_->current()->ChargeSeek({f, level})) return charged;
  }
  FAIL("never marked");
  return 0;
}

TEST_CASE("a file out of seeks is compacted into the next level", "[picker]") {
  VersionSetFixture t;
  const uint64_t f = t.AddFile(1, IKey("c"), IKey("h"), 100);
  t.AddFile(1, IKey("x"), IKey("y"), 100);
  const uint64_t below = t.AddFile(2, IKey("d"), IKey("e"), 100);
  t.AddFile(2, IKey("p"), IKey("q"), 100);
  CHECK_FALSE(t.vset_->NeedsCompaction());
  // At least 100 seeks, however small the file.
  CHECK(ChargeUntilMarked(t, 1, f) == 100);
  {
    MutexLock lock(t.mu_.get());
    // Marked once: more charges do not mark again.
    CHECK_FALSE(t.vset_->current()->ChargeSeek({FileAt(t, 1, f), 1}));
  }
  REQUIRE(t.vset_->NeedsCompaction());
  auto c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(c->level() == 1);
  CHECK(c->output_level() == 2);
  CHECK(Numbers(c->inputs(0)) == Set{f});
  CHECK(Numbers(c->inputs(1)) == Set{below});
  // Its inputs are taken: no second pick of the same file.
  CHECK(Pick(t) == nullptr);
  Release(t, &c);
}

TEST_CASE("seek allowance grows with file size", "[picker]") {
  VersionSetFixture t;
  const uint64_t big = t.AddFile(1, IKey("a"), IKey("b"), 400 * 16384);
  CHECK(ChargeUntilMarked(t, 1, big) == 400);
}

TEST_CASE("a marked L0 file takes the L0 files overlapping it", "[picker]") {
  VersionSetFixture t;
  const uint64_t old_overlap = t.AddFile(0, IKey("a"), IKey("d"));
  t.AddFile(0, IKey("x"), IKey("y"));
  const uint64_t marked = t.AddFile(0, IKey("c"), IKey("f"));
  const uint64_t l1 = t.AddFile(1, IKey("e"), IKey("g"));
  ChargeUntilMarked(t, 0, marked);
  auto c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(c->level() == 0);
  CHECK(Numbers(c->inputs(0)) == Set{old_overlap, marked});
  CHECK(Numbers(c->inputs(1)) == Set{l1});
  Release(t, &c);
}

TEST_CASE("size compactions come before a seek compaction", "[picker]") {
  VersionSetFixture t;
  const uint64_t marked = t.AddFile(2, IKey("a"), IKey("b"));
  ChargeUntilMarked(t, 2, marked);
  Set l0;
  for (int i = 0; i < 4; i++) l0.insert(t.AddFile(0, IKey("m"), IKey("n")));
  {
    MutexLock lock(t.mu_.get());
    // The L0 files' edits made new versions, which forget the mark ...
    CHECK(t.vset_->current()->file_to_compact() == nullptr);
    // ... but the file's seeks stay spent: the next charge marks it again.
    CHECK(t.vset_->current()->ChargeSeek({FileAt(t, 2, marked), 2}));
  }
  auto first = Pick(t);
  REQUIRE(first != nullptr);
  CHECK(first->level() == 0);
  CHECK(Numbers(first->inputs(0)) == l0);
  auto second = Pick(t);
  REQUIRE(second != nullptr);
  CHECK(second->level() == 2);
  CHECK(Numbers(second->inputs(0)) == Set{marked});
  Release(t, &first);
  Release(t, &second);
}

TEST_CASE("a marked file in the last level is never picked", "[picker]") {
  VersionSetFixture t;
  const uint64_t last = t.AddFile(t.options_.num_levels - 1, IKey("a"), IKey("b"));
  ChargeUntilMarked(t, t.options_.num_levels - 1, last);
  CHECK_FALSE(t.vset_->NeedsCompaction());
  CHECK(Pick(t) == nullptr);
}

TEST_CASE("a seek compaction blocked by a running one waits for it", "[picker]") {
  VersionSetFixture t;
  const uint64_t marked = t.AddFile(1, IKey("c"), IKey("d"));
  const uint64_t below = t.AddFile(2, IKey("c"), IKey("e"));
  std::unique_ptr<Compaction> manual = PickManual(t, 2, nullptr, nullptr);
  REQUIRE(manual != nullptr);
  CHECK(Numbers(manual->inputs(0)) == Set{below});
  ChargeUntilMarked(t, 1, marked);
  // Due, but the level below is taken: no pick until the manual one ends
  // (the DB's compaction thread then waits for a job to finish).
  CHECK(t.vset_->NeedsCompaction());
  CHECK(Pick(t) == nullptr);
  Release(t, &manual);
  auto c = Pick(t);
  REQUIRE(c != nullptr);
  CHECK(c->level() == 1);
  CHECK(Numbers(c->inputs(0)) == Set{marked});
  CHECK(Numbers(c->inputs(1)) == Set{below});
  CHECK(t.stats_.seek_compactions.load() == 1);
  Release(t, &c);
}

}  // namespace
}  // namespace shale
