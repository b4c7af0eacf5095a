// The crash-recovery fault plan's rules for accepting errors:
//   * a paused plan injects nothing, and retries pause on their last attempt,
//     so a retried Open or scan can always tell injected errors from the
//     engine's own, however high the drawn rates;
//   * Prove is the proof a run needs before it accepts an error: the tag
//     of a fault of its kind injected since the call's mark, or damage to
//     a file that still exists;
//   * only absolute-consistency recovery reports every WAL bit flip.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "scenarios/crash_recovery/fault_plan.h"
#include "sim/simulation.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "wal/log_format.h"
#include "wal/log_test_util.h"

using namespace shale;
using namespace shale::scenario;

namespace {

using Request = faults::FaultPolicy::Request;

// The rate "1/N" a plan drew for kind (e.g. "eio_read"), or 0 when off.
uint64_t RateOneIn(const FaultPlan& plan, const std::string& kind) {
  const auto described = plan.Describe();
  const auto it = described.find("fault.faults." + kind);
  if (it == described.end() || it->second.rfind("1/", 0) != 0) return 0;
  return std::stoull(it->second.substr(2));
}

// The first seed whose drawn plan has kind at a rate of at least 1 in
// max_one_in, and other_off (if not empty) switched off.
uint64_t SeedWith(const std::string& kind, uint64_t max_one_in, const std::string& other_off = "") {
  for (uint64_t seed = 1; seed < 10'000; seed++) {
    sim::SimulationOptions options;
    options.seed = seed;
    sim::Simulation sim(options);
    const FaultPlan plan(&sim, /*enabled=*/true);
    const uint64_t rate = RateOneIn(plan, kind);
    if (rate != 0 && rate <= max_one_in && (other_off.empty() || RateOneIn(plan, other_off) == 0)) {
      return seed;
    }
  }
  FAIL("no seed draws " << kind);
  return 0;
}

// A read of the whole of path, a durable 4 KiB file. REQUIRES: path
// outlives the request.
Request WholeRead(const std::string& path) {
  Request read;
  read.op = faults::FaultPolicy::Op::kRead;
  read.path = &path;
  read.has_range = true;
  read.length_bytes = 4096;
  read.file_size_bytes = 4096;
  read.durable_size_bytes = 4096;
  return read;
}

// Reads of a whole durable file, n times; returns the failed ones. A table
// file draws media faults too; a WAL only the survive kinds.
int FailedReads(FaultPlan* plan, int n, const std::string& path = "/db/000009.sst") {
  const Request read = WholeRead(path);
  int failed = 0;
  for (int i = 0; i < n; i++) failed += plan->Decide(read).status.ok() ? 0 : 1;
  return failed;
}

}  // namespace

TEST_CASE("a paused fault plan injects nothing, and retries pause on their last attempt",
          "[faults][scenario]") {
  sim::SimulationOptions options;
  options.seed = SeedWith("eio_read", 1000);
  sim::Simulation sim(options);
  FaultPlan plan(&sim, /*enabled=*/true);
  REQUIRE(FailedReads(&plan, 20'000) > 0);
  const uint64_t before = plan.total();
  plan.set_paused(true);
  REQUIRE(FailedReads(&plan, 20'000) == 0);
  REQUIRE(plan.total() == before);
  plan.set_paused(false);
  {
    PauseOnLastAttempt first(&plan, 0, 3);
    REQUIRE(FailedReads(&plan, 20'000) > 0);
  }
  {
    PauseOnLastAttempt last(&plan, 2, 3);
    REQUIRE(FailedReads(&plan, 20'000) == 0);
  }
  REQUIRE(FailedReads(&plan, 20'000) > 0);  // resumed
}

TEST_CASE("fault plan: a pin turns one fault kind off and leaves the rest as drawn",
          "[faults][scenario]") {
  const std::map<std::string, std::string> pins = {{"fault.faults.eio_read", "off"},
                                                   {"fault.faults.eio_write", "1/2"},
                                                   {"crash.power_loss", "false"}};
  REQUIRE(FaultKindsPinnedOff(pins) == std::set<faults::FaultKind>{faults::FaultKind::kEioRead});
  REQUIRE(FaultKindPins().at("fault.faults.short_read") == "off");
  // A log draws only the survive kinds; short_read off leaves eio_read the
  // one kind that fails its reads.
  const std::string log = "/db/000004.log";
  sim::SimulationOptions options;
  options.seed = SeedWith("eio_read", 1000, "short_read");
  sim::Simulation drawn_sim(options);
  FaultPlan drawn(&drawn_sim, /*enabled=*/true);
  sim::Simulation pinned_sim(options);
  FaultPlan pinned(&pinned_sim, /*enabled=*/true, /*detect=*/true, FaultKindsPinnedOff(pins));
  auto described = drawn.Describe();
  described["fault.faults.eio_read"] = "off";
  REQUIRE(pinned.Describe() == described);
  REQUIRE(FailedReads(&drawn, 20'000, log) > 0);
  REQUIRE(FailedReads(&pinned, 20'000, log) == 0);
}

namespace {

// The first error n reads of path get from plan (OK if none).
Status FirstFailedRead(FaultPlan* plan, int n, const std::string& path) {
  const Request read = WholeRead(path);
  for (int i = 0; i < n; i++) {
    const Status s = plan->Decide(read).status;
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace

TEST_CASE("fault plan: only the tag of a fault of its kind injected since the mark proves an error",
          "[faults][scenario]") {
  sim::SimulationOptions options;
  options.seed = SeedWith("eio_read", 1000, "eio_sync");
  sim::Simulation sim(options);
  FaultPlan plan(&sim, /*enabled=*/true);
  plan.set_name_visible([](const std::string&) { return true; });
  const uint64_t before = plan.Mark();
  const Status injected = FirstFailedRead(&plan, 20'000, "/db/000009.log");
  REQUIRE_FALSE(injected.ok());
  REQUIRE(injected.ToString().find("injected fault: eio_read") != std::string::npos);
  CHECK(plan.Prove(injected, before) == ErrorProof::kInjectedFault);
  // Wrapped by the engine, the tag still proves it.
  const Status wrapped = Status::IOError("compaction of /db/000012.sst", injected.ToString());
  CHECK(plan.Prove(wrapped, before) == ErrorProof::kInjectedFault);
  // Not since a later mark; not a kind never injected; not without a tag.
  CHECK(plan.Prove(injected, plan.Mark()) == ErrorProof::kNone);
  CHECK(plan.Prove(Status::IOError("injected fault", "eio_sync"), before) == ErrorProof::kNone);
  CHECK(plan.Prove(Status::IOError("log is closed", "9"), before) == ErrorProof::kNone);
  CHECK(plan.Prove(Status::Corruption("write batch has a bad count"), before) == ErrorProof::kNone);
  CHECK(std::string(ErrorProofName(ErrorProof::kInjectedFault)) == "injected fault");
}

// An engine may ignore a failed directory creation (LevelDB's Open does)
// and fail later on a file in it: the error names no fault, but a file in
// the directory a fault kept from being created during the call.
TEST_CASE("fault plan: a failed directory creation proves errors about its files",
          "[faults][scenario]") {
  sim::SimulationOptions options;
  options.seed = SeedWith("enospc", 100);
  sim::Simulation sim(options);
  FaultPlan plan(&sim, /*enabled=*/true);
  plan.set_name_visible([](const std::string&) { return true; });
  const uint64_t before = plan.Mark();
  const std::string dir = "/db";
  Request create;
  create.op = faults::FaultPolicy::Op::kCreate;
  create.path = &dir;
  bool failed = false;
  for (int i = 0; i < 20'000 && !failed; i++) failed = !plan.Decide(create).status.ok();
  REQUIRE(failed);
  const Status missing = Status::NotFound("lock /db/LOCK", "No such file or directory");
  CHECK(plan.Prove(missing, before) == ErrorProof::kInjectedFault);
  CHECK(plan.Prove(missing, plan.Mark()) == ErrorProof::kNone);
  CHECK(plan.Prove(Status::NotFound("lock /dbx/LOCK"), before) == ErrorProof::kNone);
}

// Damage proves only a Corruption or media IOError naming a file the plan
// damaged that still exists, or was deleted since the mark (an engine may
// discard a damaged output it failed on); never a missing file's error.
TEST_CASE("fault plan: damage proves an error only while its file exists", "[faults][scenario]") {
  sim::SimulationOptions options;
  options.seed = SeedWith("sticky_unreadable_sector", 100);
  sim::Simulation sim(options);
  FaultPlan plan(&sim, /*enabled=*/true);
  std::set<std::string> visible = {"/db/000009.sst"};
  plan.set_name_visible([&visible](const std::string& p) { return visible.count(p) != 0; });
  const std::string table = "/db/000009.sst";
  for (int i = 0; i < 200 && plan.damaged_paths().empty(); i++)
    (void)FailedReads(&plan, 100, table);
  REQUIRE(plan.damaged_paths() == std::set<std::string>{table});
  const Status checksum = Status::Corruption("block checksum mismatch", table);
  const Status unreadable = Status::IOError("unreadable sector (injected media error)", table);
  CHECK(plan.Prove(checksum, plan.Mark()) == ErrorProof::kDamagedFile);
  CHECK(plan.Prove(unreadable, plan.Mark()) == ErrorProof::kDamagedFile);
  CHECK(plan.Prove(Status::PathNotFound("open", table), plan.Mark()) == ErrorProof::kNone);
  CHECK(plan.Prove(Status::NoSpace("append", table), plan.Mark()) == ErrorProof::kNone);
  CHECK(plan.Prove(Status::Corruption("bad magic number", "/db/000032.sst"), plan.Mark()) ==
        ErrorProof::kNone);
  const uint64_t before_delete = plan.Mark();
  Request remove;
  remove.op = faults::FaultPolicy::Op::kDelete;
  remove.path = &table;
  plan.set_paused(true);  // deletions are seen even while paused
  (void)plan.Decide(remove);
  plan.set_paused(false);
  visible.clear();
  CHECK(plan.Prove(checksum, before_delete) == ErrorProof::kDamagedFile);
  CHECK(plan.Prove(checksum, plan.Mark()) == ErrorProof::kNone);
  // A delete the plan does not decide on (the flash backend's) counts too.
  visible = {table};
  const uint64_t before_flash_delete = plan.Mark();
  plan.NoteDeleted(table);
  visible.clear();
  CHECK(plan.Prove(checksum, before_flash_delete) == ErrorProof::kDamagedFile);
  CHECK(plan.Prove(checksum, plan.Mark()) == ErrorProof::kNone);
}

TEST_CASE("WAL bit flips are expected detected where the recovery mode reports them",
          "[faults][scenario]") {
  CHECK(WalDamageFor(WALRecoveryMode::kAbsoluteConsistency) == WalDamage::kAnyByte);
  CHECK(WalDamageFor(WALRecoveryMode::kTolerateCorruptedTailRecords) ==
        WalDamage::kBeforeLastRecord);
  CHECK(WalDamageFor(WALRecoveryMode::kPointInTimeRecovery) == WalDamage::kNone);
  CHECK(WalDamageFor(WALRecoveryMode::kSkipAnyCorruptedRecords) == WalDamage::kAnyByte);
}

// A recovery-mode refusal is accepted only for a WAL the run really
// damaged: torn by a power loss (reopen point-in-time and check on) or
// flipped by the plan (point in time stops at the flip). Naming no damaged file,
// it is the engine's own error.
TEST_CASE("fault plan: a refusal must name a WAL the run damaged", "[scenario][faults]") {
  const std::set<std::string> none;
  const std::set<std::string> torn = {"/db/000007.log"};
  const std::set<std::string> flipped_table = {"/db/000009.sst"};
  const std::set<std::string> flipped_log = {"/db/000011.log"};
  const Status refused_torn =
      Status::Corruption("/db/000007.log", "truncated record at end of log");
  const Status refused_other = Status::Corruption("/db/000012.log", "corrupt record");
  const auto tolerate = WALRecoveryMode::kTolerateCorruptedTailRecords;
  const auto absolute = WALRecoveryMode::kAbsoluteConsistency;

  CHECK(ClassifyRefusal(refused_torn, tolerate, none, torn) == Refusal::kReopenPointInTime);
  CHECK(ClassifyRefusal(refused_torn, absolute, flipped_table, torn) ==
        Refusal::kReopenPointInTime);
  CHECK(ClassifyRefusal(refused_other, absolute, none, torn) == Refusal::kNone);
  CHECK(ClassifyRefusal(refused_torn, absolute, none, none) == Refusal::kNone);
  CHECK(ClassifyRefusal(refused_torn, WALRecoveryMode::kPointInTimeRecovery, none, torn) ==
        Refusal::kNone);
  CHECK(ClassifyRefusal(Status::IOError("/db/000007.log"), absolute, none, torn) == Refusal::kNone);
  // An injected WAL flip: point in time would stop at it silently.
  CHECK(ClassifyRefusal(refused_torn, absolute, flipped_log, torn) ==
        Refusal::kStopsAtInjectedDamage);
  const Status refused_flipped = Status::Corruption("/db/000011.log", "corrupt record");
  CHECK(ClassifyRefusal(refused_flipped, absolute, flipped_log, none) ==
        Refusal::kStopsAtInjectedDamage);
  // Damage to a table is no recovery mode's to refuse: Open retries it.
  const Status bad_table = Status::Corruption("bad magic number", "/db/000009.sst");
  CHECK(ClassifyRefusal(bad_table, absolute, flipped_table, none) == Refusal::kNone);
}

// Tolerate-tail recovery promises to drop an incomplete last record, so
// it may refuse only a log a power loss left other than a clean prefix.
TEST_CASE("fault plan: only a log left unclean may be refused by tolerate-tail",
          "[scenario][faults]") {
  using Sector = sim::SimDisk::SurvivingSector;
  using Fate = Sector::Fate;
  const std::string log = "/db/000007.log";
  auto sector = [&](uint64_t index, Fate fate) {
    return Sector{{log}, index, fate, fate == Fate::kTorn ? 100u : 512u};
  };
  // Whole sectors, the last one torn: a clean prefix.
  CHECK(LogsLeftUnclean({sector(3, Fate::kWhole), sector(4, Fate::kTorn)}, {}).empty());
  CHECK(LogsLeftUnclean({sector(3, Fate::kWhole)}, {}).empty());
  // A torn sector followed by a surviving one, a garbage survivor, a hole.
  CHECK(LogsLeftUnclean({sector(3, Fate::kTorn), sector(4, Fate::kWhole)}, {}).count(log) == 1);
  CHECK(LogsLeftUnclean({sector(3, Fate::kGarbage)}, {}).count(log) == 1);
  CHECK(LogsLeftUnclean({}, {log, "/db/000009.sst"}) == std::set<std::string>{log});
  // Only logs: a garbled table sector is no recovery mode's to refuse.
  CHECK(LogsLeftUnclean({Sector{{"/db/000009.sst"}, 0, Fate::kGarbage, 512}}, {}).empty());
}

TEST_CASE("fault plan: detected damage must name a damaged file", "[scenario][faults]") {
  const std::set<std::string> damaged = {"/db/000009.sst"};
  CHECK(NamesAnyPath(Status::Corruption("block checksum mismatch", "/db/000009.sst"), damaged));
  CHECK_FALSE(NamesAnyPath(Status::Corruption("bad magic number", "/db/000032.sst"), damaged));
  CHECK_FALSE(NamesAnyPath(Status::IOError("unreadable sector (injected media error)"), damaged));
  CHECK(IsLogFile("/db/000011.log"));
  CHECK_FALSE(IsLogFile("/db/000011.sst"));
}

namespace {

// n syncs of path; returns the failed ones.
int FailedSyncs(FaultPlan* plan, int n, const std::string& path) {
  Request sync;
  sync.op = faults::FaultPolicy::Op::kSync;
  sync.path = &path;
  int failed = 0;
  for (int i = 0; i < n; i++) failed += plan->Decide(sync).status.ok() ? 0 : 1;
  return failed;
}

}  // namespace

// A log counts as torn without a power loss only after the plan failed a
// sync of it that dropped its dirty pages or marked them clean; a failed
// sync that keeps them, or a table's, does not make it so.
TEST_CASE("fault plan: only a lossy failed sync of a log tears it", "[faults][scenario]") {
  const std::string log = "/db/000011.log";
  const std::string table = "/db/000012.sst";
  {
    sim::SimulationOptions options;
    options.seed = SeedWith("fsync_drops_pages", 100);
    sim::Simulation sim(options);
    FaultPlan plan(&sim, /*enabled=*/true);
    REQUIRE(FailedSyncs(&plan, 5'000, table) > 0);
    REQUIRE(plan.lossy_sync_logs().empty());
    REQUIRE(FailedSyncs(&plan, 5'000, log) > 0);
    REQUIRE(plan.lossy_sync_logs() == std::set<std::string>{log});
  }
  uint64_t keeps_pages = 0;
  for (uint64_t seed = 1; seed < 10'000 && keeps_pages == 0; seed++) {
    sim::SimulationOptions options;
    options.seed = seed;
    sim::Simulation sim(options);
    const FaultPlan plan(&sim, /*enabled=*/true);
    const uint64_t eio = RateOneIn(plan, "eio_sync");
    if (eio != 0 && eio <= 100 && RateOneIn(plan, "fsync_drops_pages") == 0 &&
        RateOneIn(plan, "fsync_marks_clean") == 0) {
      keeps_pages = seed;
    }
  }
  REQUIRE(keeps_pages != 0);
  sim::SimulationOptions options;
  options.seed = keeps_pages;
  sim::Simulation sim(options);
  FaultPlan plan(&sim, /*enabled=*/true);
  REQUIRE(FailedSyncs(&plan, 5'000, log) > 0);
  REQUIRE(plan.lossy_sync_logs().empty());
}

TEST_CASE("fault plan: a MANIFEST flip lands before its last whole fragment",
          "[scenario][faults]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog({"first edit", "second edit", "third edit"}, &contents));
  const uint64_t third = contents.size() - (log::kHeaderSize + std::string("third edit").size());
  CHECK(LastWholeFragmentStart(contents) == third);
  // A failed append may leave part of a record: a flip in the last whole
  // record before it would read as that torn tail, so it must not go there.
  const std::string partial = contents + std::string(contents, third, log::kHeaderSize + 3);
  CHECK(LastWholeFragmentStart(partial) == third);
  std::string torn_payload = contents;
  torn_payload.back() ^= 1;  // the last record's checksum fails
  const uint64_t second = third - (log::kHeaderSize + std::string("second edit").size());
  CHECK(LastWholeFragmentStart(torn_payload) == second);
  CHECK(LastWholeFragmentStart("") == 0);
}

// Under tolerate-tail, a WAL flip is injected only where recovery must
// report it: every bit of every byte WalFlipRanges gives, flipped, fails
// the replay with Corruption; the last record and the length fields stay
// out (a flip there may read as the torn tail that mode drops).
TEST_CASE("fault plan: every WAL flip tolerate-tail is given is reported", "[scenario][faults]") {
  std::vector<std::string> records = {"a", std::string(40000, 'b'), "ccc", std::string(300, 'd')};
  std::string contents;
  REQUIRE(shale_test::WriteLog(records, &contents));
  const std::vector<faults::ByteRange> ranges = WalFlipRanges(contents);
  REQUIRE_FALSE(ranges.empty());
  const uint64_t last = LastWholeFragmentStart(contents);
  for (const faults::ByteRange& r : ranges) {
    REQUIRE(r.end <= last);
    for (uint64_t at = r.begin; at < r.end; at++) {
      for (int bit = 0; bit < 8; bit++) {
        std::string flipped = contents;
        flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
        const shale_test::Replayed r2 =
            shale_test::ReplayMem(flipped, WALRecoveryMode::kTolerateCorruptedTailRecords);
        if (!r2.status.IsCorruption()) FAIL("a flip at byte " << at << " bit " << bit << " passed");
      }
    }
  }
}

// A process killed while its writer flushed part of a record larger than
// its buffer leaves the log ending inside that record.
TEST_CASE("fault plan: a log cut inside a record ends in a partial record", "[scenario][faults]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog({"a", std::string(50000, 'b')}, &contents));
  CHECK_FALSE(EndsInPartialRecord(contents));
  // Zeros after the last record: a tail absolute consistency refuses too.
  CHECK(EndsInPartialRecord(contents + std::string(100, '\0')));
  // Cut right after the first fragment of the large record: whole
  // fragments only, but the record's end never came.
  CHECK(EndsInPartialRecord(contents.substr(0, log::kBlockSize)));
  CHECK(EndsInPartialRecord(contents.substr(0, contents.size() - 10)));  // inside a fragment
  CHECK_FALSE(EndsInPartialRecord(""));
  // A fragment cut short with whole records after it: damage in the middle.
  std::string more;
  REQUIRE(shale_test::WriteLog({"c", "d"}, &more));
  CHECK_FALSE(EndsInPartialRecord(contents.substr(0, log::kBlockSize + 20) + more));
}

namespace {
// One whole fragment of type, as RocksDB and Shale frame them alike.
std::string Fragment(uint8_t type, const std::string& payload) {
  std::string f(log::kHeaderSize, '\0');
  f[4] = static_cast<char>(payload.size() & 0xff);
  f[5] = static_cast<char>(payload.size() >> 8);
  f[6] = static_cast<char>(type);
  f += payload;
  EncodeFixed32(f.data(), crc32c::Mask(crc32c::Value(f.data() + 6, 1 + payload.size())));
  return f;
}
}  // namespace

// RocksDB opens a compressed WAL with a SetCompressionType record (type
// 9): a whole fragment, after which a cut inside the last record is still
// a partial record and damage before a whole one is not.
TEST_CASE("fault plan: a RocksDB WAL's compression record is a whole fragment",
          "[scenario][faults]") {
  const std::string opening = Fragment(9, std::string("\x07\0\0\0", 4));
  const std::string records = Fragment(log::kFullType, std::string(300, 'a')) +
                              Fragment(log::kFullType, std::string(200, 'b'));
  const std::string log = opening + records;
  CHECK_FALSE(EndsInPartialRecord(log));
  CHECK(EndsInPartialRecord(log.substr(0, log.size() - 50)));
  CHECK_FALSE(EndsInPartialRecord(opening + records.substr(0, 100) +
                                  Fragment(log::kFullType, std::string(20, 'c'))));
  // A damaged opening record is damage like any other.
  std::string damaged = log;
  damaged[log::kHeaderSize] ^= 1;
  CHECK_FALSE(EndsInPartialRecord(damaged));
}

namespace {
// A WAL record as the engine writes a batch: its sequence and count first.
std::string BatchRecord(uint64_t sequence, uint32_t count, size_t payload_bytes) {
  std::string record;
  PutFixed64(&record, sequence);
  PutFixed32(&record, count);
  return record + std::string(payload_bytes, 'p');
}
}  // namespace

// Recovery that stops at damage replays every record before it: the first
// sequence the damage may cost is that of the record it lands in.
TEST_CASE("fault plan: damage costs the writes from the record it lands in", "[scenario][faults]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(
      {BatchRecord(10, 2, 20), BatchRecord(12, 1, 40000), BatchRecord(13, 3, 5)}, &contents));
  const uint64_t second = log::kHeaderSize + 32;
  CHECK(FirstSequenceFrom(contents, 0) == 10);
  CHECK(FirstSequenceFrom(contents, second - 1) == 10);
  CHECK(FirstSequenceFrom(contents, second) == 12);
  CHECK(FirstSequenceFrom(contents, log::kBlockSize + 100) == 12);  // its second fragment
  CHECK(FirstSequenceFrom(contents, contents.size() - 1) == 13);
  CHECK(FirstSequenceFrom(contents, contents.size()) == 16);  // past every record
  CHECK(FirstSequenceFrom(contents + std::string(30, 'x'), contents.size() + 3) == 16);
  CHECK(FirstSequenceFrom("", 0) == 0);
}

// A reader that skips damage drops the rest of the block it found it in:
// the writes lost run from the damaged record to the first record that
// starts in a later block (a record that began in the damaged block loses
// its tail there too).
TEST_CASE("fault plan: skip-any loses the writes to the next block's first record",
          "[scenario][faults]") {
  std::string contents;
  REQUIRE(shale_test::WriteLog(
      {BatchRecord(10, 2, 20), BatchRecord(12, 1, 40000), BatchRecord(13, 3, 5)}, &contents));
  const auto range = [&contents](uint64_t offset) {
    const SequenceRange r = SkippedByDamageAt(contents, offset);
    return std::make_pair(r.begin, r.end);
  };
  // Block 0 holds record 10 and the first fragment of 12; record 13 is the
  // first to start in block 1.
  CHECK(range(3) == std::make_pair(uint64_t{10}, uint64_t{13}));
  CHECK(range(log::kHeaderSize + 20) == std::make_pair(uint64_t{10}, uint64_t{13}));
  CHECK(range(log::kHeaderSize + 60) == std::make_pair(uint64_t{12}, uint64_t{13}));
  // In block 1 (12's tail, then 13): nothing starts later, so to the end.
  CHECK(range(log::kBlockSize + 100) == std::make_pair(uint64_t{12}, uint64_t{16}));
  CHECK(range(contents.size() - 1) == std::make_pair(uint64_t{13}, uint64_t{16}));
}
