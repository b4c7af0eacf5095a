// DiskFaultInjector: each kind fires at about its rate on the operations it
// is eligible for, counts match what the caller observed, and the draws are
// deterministic per seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <vector>

#include "faults/disk_fault_injector.h"
#include "faults/fault_fixture.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Slice;
using shale::Status;
using shale::faults::FaultConfig;
using shale::faults::FaultKind;
using shale::faults::FaultKindName;

constexpr int kOps = 20000;
constexpr uint64_t kOneIn = 50;  // expected 400 per kOps; sd ~20

// Runs kOps operations of one kind's eligible sort on fx; returns how many
// failed with an injected status.
using Driver = std::function<int(FaultFixture* fx)>;

int Reads(FaultFixture* fx) {
  fx->WriteDurable("/db/r", std::string(1 << 20, 'r'));
  fx->Arm();
  std::unique_ptr<shale::RandomAccessFile> f;
  REQUIRE(fx->fs.NewRandomAccessFile("/db/r", FileOptions(), &f).ok());
  shale::Random offsets(99);
  std::string scratch(100, '\0');
  int failed = 0;
  for (int i = 0; i < kOps; ++i) {
    Slice got;
    const uint64_t at = offsets.Uniform((1 << 20) - 100);
    const Status s = f->Read(at, 100, &got, scratch.data());
    if (!s.ok()) {
      ++failed;
    } else {
      REQUIRE(got == Slice(std::string(100, 'r')));  // short reads are hidden
    }
  }
  return failed;
}

int Appends(FaultFixture* fx) {
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx->fs.NewWritableFile("/db/w", FileOptions(), &w).ok());
  fx->Arm();
  int failed = 0;
  for (int i = 0; i < kOps; ++i) failed += w->Append(std::string(100, 'w')).ok() ? 0 : 1;
  return failed;
}

int Syncs(FaultFixture* fx) {
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx->fs.NewWritableFile("/db/s", FileOptions(), &w).ok());
  fx->Arm();
  int failed = 0;
  for (int i = 0; i < kOps; ++i) failed += w->Sync().ok() ? 0 : 1;
  return failed;
}

int Opens(FaultFixture* fx) {
  fx->WriteDurable("/db/o", "data");
  fx->Arm();
  int failed = 0;
  for (int i = 0; i < kOps; ++i) {
    std::unique_ptr<shale::RandomAccessFile> f;
    failed += fx->fs.NewRandomAccessFile("/db/o", FileOptions(), &f).ok() ? 0 : 1;
  }
  return failed;
}

int Renames(FaultFixture* fx) {
  fx->WriteDurable("/db/a", "data");
  fx->Arm();
  int failed = 0;
  bool at_a = true;
  for (int i = 0; i < kOps; ++i) {
    const Status s =
        at_a ? fx->fs.RenameFile("/db/a", "/db/b") : fx->fs.RenameFile("/db/b", "/db/a");
    if (s.ok()) at_a = !at_a;
    failed += s.ok() ? 0 : 1;
  }
  return failed;
}

int Deletes(FaultFixture* fx) {
  int failed = 0;
  fx->Arm();
  for (int i = 0; i < kOps; ++i) {
    std::unique_ptr<shale::WritableFile> w;
    REQUIRE(fx->fs.NewWritableFile("/db/d", FileOptions(), &w).ok());
    REQUIRE(w->Close().ok());
    failed += fx->fs.DeleteFile("/db/d").ok() ? 0 : 1;
  }
  return failed;
}

struct Case {
  FaultKind kind;
  Driver drive;
  bool fails_ops;  // the fault shows as a failed call
};

TEST_CASE("injector: each kind fires at about its rate, counts match what callers saw",
          "[faults]") {
  const std::vector<Case> cases = {
      {FaultKind::kEioRead, Reads, true},
      {FaultKind::kEioWrite, Appends, true},
      {FaultKind::kEioSync, Syncs, true},
      {FaultKind::kEioOpen, Opens, true},
      {FaultKind::kEioRename, Renames, true},
      {FaultKind::kEioDelete, Deletes, true},
      {FaultKind::kEnospc, Appends, true},
      {FaultKind::kFsyncDropsPages, Syncs, true},
      {FaultKind::kStickyUnreadableSector, Reads, true},
      {FaultKind::kMisdirectedWrite, Appends, false},
      {FaultKind::kShortRead, Reads, false},
      {FaultKind::kSlowIo, Appends, false},
  };
  for (const Case& c : cases) {
    const char* name = FaultKindName(c.kind);
    INFO(name);
    FaultFixture fx(Only(c.kind, kOneIn));
    const int failed = c.drive(&fx);
    const uint64_t n = fx.count(name);
    CHECK(n > 300);
    CHECK(n < 500);
    // Nothing else fired (but the full spells and short writes of enospc).
    const uint64_t full = fx.count(shale::faults::DiskFaultInjector::kDiskFullName);
    const uint64_t short_writes = fx.count(shale::faults::DiskFaultInjector::kShortWriteName);
    CHECK(fx.injector.counts().size() == 1u + (full > 0 ? 1u : 0u) + (short_writes > 0 ? 1u : 0u));
    if (c.kind == FaultKind::kEnospc) {
      CHECK(full > 0);  // about one enospc in 4 starts a spell
      CHECK(static_cast<uint64_t>(failed) == n + full);
    } else if (c.kind == FaultKind::kStickyUnreadableSector) {
      // Later reads that touch an already-bad sector fail too, uncounted.
      CHECK(static_cast<uint64_t>(failed) >= n);
    } else {
      CHECK(static_cast<uint64_t>(failed) == (c.fails_ops ? n : 0));
    }
  }
}

TEST_CASE("injector: eio_sync also fails directory syncs", "[faults]") {
  FaultFixture fx(Only(FaultKind::kEioSync, kOneIn));
  fx.Arm();
  int failed = 0;
  for (int i = 0; i < kOps; ++i) failed += fx.fs.SyncDir("/db").ok() ? 0 : 1;
  CHECK(failed > 300);
  CHECK(failed < 500);
  CHECK(fx.count("eio_sync") == static_cast<uint64_t>(failed));
}

TEST_CASE("injector: slow I/O and short reads cost simulated time", "[faults]") {
  FaultFixture quiet(FaultConfig{});
  FaultFixture slow(Only(FaultKind::kSlowIo, 2));
  CHECK(Appends(&quiet) == 0);
  CHECK(Appends(&slow) == 0);
  CHECK(quiet.ctx.delay_ns == 0);  // LatencyProfile::Zero
  CHECK(slow.ctx.delay_ns > 1000 * slow.count("slow_io"));
}

TEST_CASE("injector: a full disk fails writes for a spell, then frees space", "[faults]") {
  FaultFixture fx(Only(FaultKind::kEnospc, kOneIn));
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.NewWritableFile("/db/w", FileOptions(), &w).ok());
  fx.Arm();
  // Runs of failed appends: a lone enospc is a run of 1; a spell of up to
  // 64 calls (each failed append here is followed by a failed sync) adds
  // up to 32 more.
  std::vector<int> runs;
  int run = 0;
  int failed_syncs_in_spells = 0;
  for (int i = 0; i < kOps; ++i) {
    const Status s = w->Append(std::string(100, 'w'));
    if (!s.ok()) {
      CHECK(s.IsNoSpace());
      ++run;
      failed_syncs_in_spells += w->Sync().IsNoSpace() ? 1 : 0;
      continue;
    }
    if (run > 0) runs.push_back(run);
    run = 0;
  }
  const int longest = runs.empty() ? 0 : *std::max_element(runs.begin(), runs.end());
  CHECK(longest > 1);
  CHECK(longest <= 1 + 32 + 1);  // a spell, and an enospc drawn just after it
  CHECK(failed_syncs_in_spells > 0);
  CHECK(runs.size() > 200);  // space frees: most runs are short
}

TEST_CASE("injector: some enospc appends are short: a prefix lands, then the call fails",
          "[faults]") {
  FaultFixture fx(Only(FaultKind::kEnospc, kOneIn));
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.NewWritableFile("/db/w", FileOptions(), &w).ok());
  fx.Arm();
  uint64_t size = 0;
  int short_writes = 0;
  int failed = 0;
  for (int i = 0; i < kOps; ++i) {
    const Status s = w->Append(std::string(100, static_cast<char>('a' + i % 26)));
    const uint64_t grew = w->GetFileSize() - size;
    size += grew;
    if (s.ok()) {
      REQUIRE(grew == 100);
      continue;
    }
    CHECK(s.IsNoSpace());
    ++failed;
    REQUIRE(grew < 100);  // never the whole write
    short_writes += grew > 0 ? 1 : 0;
  }
  CHECK(fx.count(shale::faults::DiskFaultInjector::kShortWriteName) ==
        static_cast<uint64_t>(short_writes));
  // Half the drawn enospcs (about 400; sd ~20) are short.
  CHECK(short_writes > 140);
  CHECK(short_writes < 260);
  CHECK(failed > short_writes);  // the rest, and a full disk's, write nothing
  CHECK(fx.Visible("/db/w").size() == size);
}

TEST_CASE("injector: enospc from a sync keeps the dirty pages", "[faults]") {
  FaultFixture fx(Only(FaultKind::kEnospc, 1));
  std::unique_ptr<shale::WritableFile> w;
  REQUIRE(fx.fs.NewWritableFile("/db/s", FileOptions(), &w).ok());
  REQUIRE(w->Append("data").ok());
  fx.Arm();
  CHECK(w->Sync().IsNoSpace());
  CHECK(fx.Visible("/db/s") == "data");  // still there to sync again
}

TEST_CASE("injector: enospc reports NoSpace", "[faults]") {
  FaultFixture fx(Only(FaultKind::kEnospc, 1));
  fx.Arm();
  std::unique_ptr<shale::WritableFile> w;
  CHECK(fx.fs.NewWritableFile("/db/x", FileOptions(), &w).IsNoSpace());
  CHECK(fx.Visible("/db/x") == "<missing>");  // no effect
}

// Runs a mixed workload with every kind on; returns the context's folds.
std::vector<uint64_t> MixedRun(uint64_t seed, shale::faults::FaultCounts* counts) {
  FaultConfig all;
  for (size_t k = 0; k < shale::faults::kFaultKindCount; ++k) all.one_in[k] = 7;
  all.slow_io_max_ns = 5000;
  FaultFixture fx(all, seed);
  fx.WriteDurable("/db/m", std::string(4096, 'm'));
  fx.Arm();
  std::unique_ptr<shale::WritableFile> w;
  std::unique_ptr<shale::RandomAccessFile> r;
  for (int i = 0; i < 300; ++i) {
    if (!w && !fx.fs.ReopenWritableFile("/db/m", FileOptions(), &w).ok()) continue;
    if (!r && !fx.fs.NewRandomAccessFile("/db/m", FileOptions(), &r).ok()) continue;
    w->Append(std::string(300, static_cast<char>('a' + i % 26))).PermitUncheckedError();
    if (i % 5 == 0) w->Sync().PermitUncheckedError();
    std::string scratch(700, '\0');
    Slice got;
    r->Read(static_cast<uint64_t>(i) * 97, 700, &got, scratch.data()).PermitUncheckedError();
    if (i % 10 == 3) {
      std::unique_ptr<shale::WritableFile> t;
      if (fx.fs.NewWritableFile("/db/t", FileOptions(), &t).ok()) {
        t->Close().PermitUncheckedError();
        fx.fs.RenameFile("/db/t", "/db/u").PermitUncheckedError();
        fx.fs.DeleteFile("/db/u").PermitUncheckedError();
      }
      fx.fs.SyncDir("/db").PermitUncheckedError();
    }
    if (i % 50 == 49) {
      fx.disk.PowerLoss(3);
      fx.injector.AfterCrash(&fx.disk);
      w.reset();
      r.reset();
    }
  }
  *counts = fx.injector.counts();
  return fx.ctx.folds;
}

TEST_CASE("injector: the same seed injects the same faults, other seeds differ", "[faults]") {
  shale::faults::FaultCounts a, b, c;
  const auto first = MixedRun(11, &a);
  CHECK(MixedRun(11, &b) == first);
  CHECK(a == b);
  CHECK(a.size() >= shale::faults::kFaultKindCount - 1);  // (bit_flip may not fire)
  CHECK(MixedRun(12, &c) != first);
}

}  // namespace
}  // namespace shale_test
