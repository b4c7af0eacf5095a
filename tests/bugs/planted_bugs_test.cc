// Every planted bug is a pinned checker self-test. For each one:
//   * a campaign over seeds 1..300 (or the row's own limit) of the scenario
//     named here finds it;
//   * the failure names one of the properties this bug breaks (never just
//     "some failure");
//   * the same seed passes with the bug off (the failure is the bug's);
//   * `shale run` in a fresh process writes the failure file, and
//     `shale replay FILE` in another fresh process reproduces the same
//     property, key and trace hash.
// A real-backend row runs real files and threads: it is checked through
// the binary, its replay with --tries (real_backend_rows.h).
// A row's properties are what the bug really breaks: e.g. a sync write
// acknowledged before its WAL sync is lost at a power loss (durability).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/row_tests.h"
#include "common/temp_dir.h"
#include "kv_store.h"
#include "planted_bugs.h"
#include "real_backend_rows.h"
#include "report/failure_file.h"
#include "report/run_json.h"
#include "scenarios/scenario.h"
#include "shale/options.h"
#include "shale_binary.h"

using namespace shale::scenario;

namespace {

constexpr uint64_t kSeedLimit = 300;

// The campaign's shape beyond its scenario: `shale run`'s defaults, or a
// longer run for a bug that needs many crashes to meet its window.
struct Shape {
  int ops = 0;              // --ops (0: the scenario's default)
  int crashes = 3;          // --crashes
  const char* faults = "";  // --faults ("": drawn)
};

struct BugRow {
  const char* bug;       // --planted_bugs name
  const char* scenario;  // the campaign that must find it
  std::set<std::string> properties;
  Shape shape = {};
  // Seeds the campaign may take: kSeedLimit unless the bug's window is so
  // narrow that its measured rate is lower (then say so at the row).
  uint64_t seed_limit = kSeedLimit;
  // A hosted engine's name for a bug of the hosting layer ("": Shale's),
  // and the --pin its campaign runs with.
  const char* engine = "";
  const char* pins = "";
};

// `shale run`'s defaults with I/O faults on in every seed.
constexpr Shape kFaultsOn{0, 3, "on"};

// A hosted engine's campaign reaches its own bugs too (README, "Bugs Shale
// found in engines it did not write"): power losses on the ext4 rule with
// reuse_logs off still meet LevelDB's L3 in about one seed in five, so the
// control is what tells a planted bug's failure from LevelDB's.
constexpr const char* kLevelDbPowerLoss =
    "crash.power_loss=true,leveldb.reuse_logs=false,disk.fsync_commits_metadata=true";
// Process crashes, no reuse_logs: LevelDB's own campaign passes (CI's), so
// a failure is the planted bug's.
constexpr const char* kLevelDbKillsOnly = "crash.power_loss=false,leveldb.reuse_logs=false";
// RocksDB's the same way: power losses meet its R1 and R2 (the control
// tells them apart), process crashes alone pass (CI's campaign).
constexpr const char* kRocksDbPowerLoss = "crash.power_loss=true,disk.fsync_commits_metadata=true";
constexpr const char* kRocksDbKillsOnly = "crash.power_loss=false";
constexpr const char* kRocksDbBufferedKillsOnly =
    "crash.power_loss=false,rocksdb.manual_wal_flush=true";
// No I/O faults for a hosted row: they reach LevelDB's L5-L7.
constexpr Shape kHostedNoFaults{0, 3, "off"};

const BugRow kRows[] = {
    {"hosted_sync_skipped",
     "crash-recovery",
     {"durability", "prefix recovery", "recovery"},
     kHostedNoFaults,
     kSeedLimit,
     "leveldb",
     kLevelDbPowerLoss},
    // A kill between the two steps leaves no CURRENT: Open creates an
    // empty DB (create_if_missing), losing what the old MANIFEST held.
    // Measured: 2 of 300 seeds (the kill must land between the two).
    {"hosted_rename_not_atomic",
     "crash-recovery",
     {"durability", "prefix recovery", "resurrection", "recovery"},
     kHostedNoFaults,
     kSeedLimit,
     "leveldb",
     kLevelDbKillsOnly},
    {"scheduler_two_tasks_run",
     "crash-recovery",
     {"simulation"},
     kHostedNoFaults,
     kSeedLimit,
     "leveldb",
     kLevelDbKillsOnly},
    // The same three on RocksDB, whose file system carries the same
    // planted bugs (hosted/planted_hosting.h).
    {"hosted_sync_skipped",
     "crash-recovery",
     {"durability", "prefix recovery", "recovery"},
     kHostedNoFaults,
     kSeedLimit,
     "rocksdb",
     kRocksDbPowerLoss},
    {"hosted_rename_not_atomic",
     "crash-recovery",
     {"durability", "prefix recovery", "resurrection", "recovery"},
     kHostedNoFaults,
     kSeedLimit,
     "rocksdb",
     kRocksDbKillsOnly},
    {"scheduler_two_tasks_run",
     "crash-recovery",
     {"simulation"},
     kHostedNoFaults,
     kSeedLimit,
     "rocksdb",
     kRocksDbKillsOnly},
    // Only RocksDB buffers its log (manual_wal_flush, pinned on).
    {"hosted_flush_wal_as_sync_wal",
     "crash-recovery",
     {"durability"},
     kHostedNoFaults,
     kSeedLimit,
     "rocksdb",
     kRocksDbBufferedKillsOnly},
    {"ack_sync_write_before_wal_sync", "crash-recovery", {"durability"}},
    // Real files and threads (real_backend_rows.h): the durability bugs,
    // and the two that only a real process shows.
    {"ack_sync_write_before_wal_sync", "real-backend", {"durability"}},
    {"delete_wal_before_manifest", "real-backend", {"durability", "no phantoms"}},
    // A power loss must fall in the short window after a MANIFEST switch
    // (about 1 seed in 80 in the default shape): short phases, and many,
    // give it 1 seed in 10.
    {"skip_dir_sync_after_current",
     "real-backend",
     {"durability", "resurrection", "prefix recovery"},
     {100, 16},
     1000},
    {"flush_wait_reads_missing_memtable", "real-backend", {"process died"}},
    {"journal_close_omits_status", "real-backend", {"real backend"}},
    // A power loss takes the CURRENT rename: recovery reads the older
    // MANIFEST, losing newer tables and bringing back what they replaced.
    {"skip_dir_sync_after_current",
     "crash-recovery",
     {"durability", "resurrection", "prefix recovery"}},
    // The deleted WAL may hold a rollback of a prepared transaction whose
    // values a flushed table already holds: they come back (no phantoms).
    {"delete_wal_before_manifest", "crash-recovery", {"durability", "no phantoms"}},
    {"compaction_ignores_snapshots", "crash-recovery", {"immutable snapshots"}},
    {"compaction_ignores_snapshots",
     "snapshot",
     {"repeatable snapshot reads", "snapshot iteration", "snapshot reads"}},
    // Only damage inside a WAL (a torn or flipped record with synced ones
    // after it) lets this bug drop data, so the campaign has faults on.
    {"recovery_stops_at_corruption", "crash-recovery", {"durability"}, kFaultsOn},
    // A recovered prepared Put is a value no commit wrote; a recovered
    // prepared Delete hides a committed value.
    {"recovery_commits_prepared",
     "crash-recovery",
     {"no phantoms", "durability", "prefix recovery"}},
    {"rollback_keeps_data",
     "crash-recovery",
     {"read consistency", "no phantoms", "durability", "resurrection"}},
    // A scan misses a key that existed throughout (completeness), or a Get
    // at the iterator's snapshot finds it.
    {"seek_skips_key_after_tombstone", "crash-recovery", {"read consistency"}},
    // WritePrepared reads and iterators take their own snapshots, so a
    // stale one also shows as a missed write.
    {"stale_snapshot_sequence",
     "crash-recovery",
     {"fresh snapshots", "read consistency", "durability"}},
    {"publish_before_memtable_insert", "unordered-write", {"atomic reads", "immutable snapshots"}},
    {"write_prepared_publishes_unprepared",
     "unordered-write",
     {"atomic reads", "immutable snapshots"}},
    // Found when a power loss falls after a flush deleted the WAL of a
    // finished transaction's Prepare and before its commit marker's log
    // was synced: the Prepare (or, WritePrepared, its flushed data's
    // uncommitted state) is lost. The crash placed at a WAL deletion after
    // an unsynced finish meets that window in a few seeds in 100.
    {"retire_section_wal_at_finish",
     "crash-recovery",
     {"durability", "prefix recovery", "no phantoms"}},
    // Windows refuses the unpadded write (unbuffered alignment).
    {"unaligned_direct_write", "windows", {"windows rule"}},
    // Refused where tables are opened without share-delete.
    {"delete_table_before_evict", "windows", {"windows rule"}},
    // The padding past a table's end makes the next Open's size check
    // (paranoid_checks) refuse the table.
    {"skip_end_of_file_after_padding", "windows", {"recovery"}},
    // Found where a temp CURRENT's rename or write fails and deletes are
    // not POSIX-semantics: the retry creates a delete-pending name.
    {"reuse_delete_pending_name", "windows", {"windows rule"}},
    // Found where a power loss garbles or tears the re-written sector.
    {"direct_wal_skips_sync_padding", "crash-recovery", {"durability", "recovery"}},
    // The next record after a WAL sync lands at the moved file pointer.
    {"mix_positional_and_append", "windows", {"windows rule"}},
    // The write after a sync's padding lands behind the write pointer.
    {"flash_write_off_pointer", "open-channel", {"device rule"}},
    // A power loss takes synced data: a lost WAL tail, or a MANIFEST whose
    // synced edits are gone, which the next Open reports as Corruption.
    {"flash_ack_in_device_cache", "open-channel", {"durability", "recovery"}},
    // The first write to a factory-bad (OFFLINE) chunk.
    {"flash_allocate_bad_chunk", "open-channel", {"device rule"}},
    // A write at sector 0 of a chunk that still holds a deleted file.
    {"flash_reuse_without_reset", "open-channel", {"device rule"}},
    {"flash_recovery_ignores_oob", "open-channel", {"durability", "prefix recovery"}},
    // Found where crash-time damage flips a tag's offset, kind or size: the
    // mount ends the file there, short of what was synced (or the engine
    // then finds its MANIFEST or a log short).
    {"flash_mount_accepts_bad_crc", "open-channel", {"durability", "recovery", "prefix recovery"}},
    // Found where crash-time damage loses a WAL's middle chunk whole: the
    // mount ends the WAL before it, short of what was synced.
    {"flash_mount_ignores_lost_chunk", "open-channel", {"durability"}},
    {"table_cache_ignores_limit", "table-cache", {"open tables bounded"}},
    {"table_cache_bounds_unlimited", "table-cache", {"readers stay open"}},
    // A Get of a table's first key is turned away by the table's filter.
    {"filter_skips_first_key", "table-cache", {"reads match the model"}},
    {"filter_skips_first_key",
     "crash-recovery",
     {"read consistency", "immutable snapshots", "durability"}},
    // Errors no I/O caused, in campaigns with faults on in every seed:
    // each error must carry a proof (an injected fault's tag, or damage),
    // so the invented ones stand out among the injected.
    {"write_returns_corruption", "crash-recovery", {"no spurious errors"}, kFaultsOn},
    {"open_fails_spuriously", "crash-recovery", {"no spurious errors"}, kFaultsOn},
    // Found where a power loss tears a WAL's last record and tolerate-tail
    // recovery is drawn: the clean prefix it must accept is refused.
    {"tolerate_tail_refuses_incomplete_tail", "crash-recovery", {"recovery"}},
    // Found where a crash keeps the first of a group's two WAL records
    // (a power loss, or a flip point-in-time stops at, between them).
    {"split_unsynced_group_in_wal", "crash-recovery", {"atomicity"}},
    // A scan without a snapshot reads on at newer sequences: its forward
    // pass sees part of a batch (atomicity), or disagrees with its backward
    // pass (read consistency).
    {"iterator_step_reads_latest", "crash-recovery", {"read consistency", "atomicity"}},
    // A follower's Write reports a sequence from before its group.
    {"follower_sequence_not_reported", "crash-recovery", {"real-time order"}},
    // A writer's Get right after its Write reads below the newest publish.
    {"unordered_get_reads_stale", "unordered-write", {"read-your-own-writes"}},
    // Found where point-in-time recovery stops at an injected WAL flip
    // (after tolerate-tail or absolute consistency refused it): the write
    // logged just before the flip must still be there.
    {"point_in_time_drops_record_before_damage", "crash-recovery", {"durability"}},
    // Found where skip-any recovery meets a flip in a log with writes
    // before it (one seed in about 40): those must still be replayed.
    {"skip_any_drops_damaged_log", "crash-recovery", {"durability"}},
    // A transaction's Get of a key it deleted must read the delete.
    {"txn_get_misses_own_delete", "crash-recovery", {"read-your-own-writes"}},
    // A key GetForUpdate read must read the same until the transaction ends.
    {"get_for_update_takes_no_lock", "crash-recovery", {"isolation"}},
    // Found where a commit's retirement check meets a flush: each thread
    // holds the mutex the other waits for.
    {"finish_locks_db_under_txn_mutex", "crash-recovery", {"deadlock"}},
    // The manager's own invariant check (held <= tracked) stops the run at
    // the first release of a lock no one waited for.
    // The first clean Close waits for a thread that waits for it.
    {"close_joins_before_shutdown", "crash-recovery", {"deadlock"}},
    {"unlock_leaks_held_count", "crash-recovery", {"engine assertion"}},
    // The cache's own check stops the second release of a table's handle
    // (a Get of a key the table does not hold).
    {"table_get_releases_twice", "crash-recovery", {"engine assertion"}},
    // Found after a crash: a committed section whose marker's log lives on
    // is listed as prepared, though no prepared transaction has its name.
    {"prepared_names_list_finished", "crash-recovery", {"transactions"}},
    // The log writer's own check stops the fragment that has no room for
    // its header, before it is written.
    {"wal_fragment_ignores_header", "crash-recovery", {"engine assertion"}},
    // Found where L0 reaches the slowdown trigger: the writer sleeps on
    // until the simulated hour runs out, or, a transaction's write, holds
    // its locks so long that another's lock wait times out.
    {"slowdown_rereads_stale_level0", "crash-recovery", {"simulation", "no spurious errors"}},
    // A transaction prepared in a kept older WAL is lost (its flushed
    // WritePrepared data then reads as committed: no phantoms).
    {"recovery_skips_kept_logs", "crash-recovery", {"durability", "no phantoms"}},
    // Found where a crash falls between the Prepare and its commit: the
    // section is gone though a write after it (or a barrier) survived;
    // WritePrepared data without its section reads as committed, or the
    // commit that survives follows lost writes.
    {"unsynced_prepare_skips_wal",
     "crash-recovery",
     {"durability", "prefix recovery", "no phantoms"}},
    // Found where a crash falls while the rolled-back transaction's
    // section is still in a kept WAL: it comes back prepared (durability);
    // recovery relocks its keys, so Open's own transactions time out on
    // them (recovery, no spurious errors), or it is left prepared after
    // the check resolved the ones it knew (transactions).
    {"rollback_skips_marker",
     "crash-recovery",
     {"durability", "recovery", "no spurious errors", "transactions"}},
};

RunConfig CampaignConfig(const std::string& scenario, uint64_t seed, uint64_t bugs,
                         const Shape& shape = {}) {
  RunConfig c;  // what `shale run` gives a seed with the shape's flags
  c.scenario = scenario;
  c.seed = seed;
  c.ops = shape.ops;
  c.crashes = shape.crashes;
  c.faults = shape.faults;
  c.planted_bugs = bugs;
  return c;
}

std::string ShapeFlags(const Shape& shape) {
  return " --ops " + std::to_string(shape.ops) + " --crashes " + std::to_string(shape.crashes) +
         (std::string(shape.faults).empty() ? "" : " --faults " + std::string(shape.faults));
}

using Command = shale_test::CommandResult;

}  // namespace

TEST_CASE("every planted bug has a row here", "[bugs]") {
  const auto& all = shale::cli::AllPlantedBugs();
  for (size_t i = 0; i < all.size(); i++) REQUIRE(all[i].bit == (uint64_t{1} << i));
  std::set<std::string> covered;
  for (const BugRow& row : kRows) covered.insert(row.bug);
  for (const auto& b : all) {
    INFO(b.name);
    REQUIRE(covered.count(b.name) == 1);
  }
}

namespace {

// A hosting-layer bug: campaigns and controls run in fresh processes of the
// binary (a hosted engine's seeds leave threads in the process that ran
// them). The first failing seed, in seed order, whose property is the
// row's and whose control run (the same seed, bug off) passes is the
// bug's; its failure file replays.
void CheckHostedFoundAndReplayed(const BugRow& row) {
#ifndef SHALE_HOSTED
  WARN("this build hosts no engine (it is left out under the sanitizers): " << row.bug);
  (void)row;
#else
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  const std::string common =
      " --engine " + std::string(row.engine) + " --scenario " + row.scenario + " --pin " + row.pins;
  const Command run =
      shale_test::RunShale("run" + common + " --seeds 1.." + std::to_string(row.seed_limit) +
                           " --jobs 2 --planted_bugs " + row.bug + " --out " + dir.path());
  REQUIRE(run.exit_code == 1);
  for (const auto& [seed, property] : shale_test::FailedSeeds(dir.Child("report.json"))) {
    if (row.properties.count(property) == 0) continue;
    const std::string s = std::to_string(seed);
    if (shale_test::RunShale("replay" + common + " --seed " + s).exit_code != 0)
      continue;  // the engine's own
    const Command replay = shale_test::RunShale(
        "replay " + dir.Child("failures/" + shale::report::FailureFileName(row.scenario, seed)));
    INFO(replay.out);
    REQUIRE(replay.exit_code == 1);
    REQUIRE(replay.out.find("trace_hash matches the failure file") != std::string::npos);
    return;
  }
  FAIL("no failing seed of " << row.bug << " breaks its property and passes without it");
#endif
}

// The first seed of row's campaign whose failure names one of
// `properties`; with `pass_over_others`, failures naming another property
// are passed over (the bug breaks that one too), else the first failure
// must name one of them. A passed RunResult if no seed fails so.
RunResult FirstFailureNaming(const Scenario& scenario, const std::string& scenario_name,
                             uint64_t bits, const Shape& shape, uint64_t seed_limit,
                             const std::set<std::string>& properties, bool pass_over_others) {
  for (uint64_t seed = 1; seed <= seed_limit; seed++) {
    RunResult r = scenario.Run(CampaignConfig(scenario_name, seed, bits, shape));
    if (r.passed) continue;
    if (properties.count(r.failure.property) == 1 || !pass_over_others) return r;
  }
  return RunResult{};
}

// The failure is the bug's (the same seed passes without it), and fresh
// processes reproduce it: `shale run` writes the failure file, `shale
// replay` replays it to the same property, key and trace hash.
void CheckControlAndReplay(const Scenario& scenario, const std::string& scenario_name,
                           const char* bug, const Shape& shape, const RunResult& failure) {
  REQUIRE(scenario.Run(CampaignConfig(scenario_name, failure.seed, 0, shape)).passed);
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  const std::string seed = std::to_string(failure.seed);
  const Command run = shale_test::RunShale(
      "run --scenario " + scenario_name + " --seeds " + seed + ".." + seed + ShapeFlags(shape) +
      " --jobs 1 --planted_bugs " + bug + " --out " + dir.path());
  INFO(run.out);
  REQUIRE(run.exit_code == 1);
  const Command replay =
      shale_test::RunShale("replay " + dir.Child("failures/" + shale::report::FailureFileName(
                                                                   scenario_name, failure.seed)));
  INFO(replay.out);
  REQUIRE(replay.exit_code == 1);
  REQUIRE(replay.out.find("failure: " + shale::report::DescribeFailure(failure.failure) + "\n") !=
          std::string::npos);
  REQUIRE(replay.out.find("trace_hash: " + shale::report::TraceHashHex(failure.trace_hash) +
                          "\n") != std::string::npos);
  REQUIRE(replay.out.find("trace_hash matches the failure file") != std::string::npos);
}

// Finds bug in scenario (a failure naming one of properties), then checks
// its control run and replay.
void CheckPinned(const char* bug, const std::string& scenario_name, const Shape& shape,
                 uint64_t seed_limit, const std::set<std::string>& properties,
                 bool pass_over_others) {
  RegisterBuiltinScenarios();
  INFO("planted bug " << bug << " in " << scenario_name);
  uint64_t bits = 0;
  std::string error;
  REQUIRE(shale::cli::ParsePlantedBugs(bug, &bits, &error));
  const Scenario* scenario = FindScenario(scenario_name);
  REQUIRE(scenario != nullptr);
  if (!scenario->simulated()) {
    return shale_test::CheckRealBackendRow(bug, ShapeFlags(shape), properties, seed_limit,
                                           pass_over_others);
  }
  const RunResult failure = FirstFailureNaming(*scenario, scenario_name, bits, shape, seed_limit,
                                               properties, pass_over_others);
  REQUIRE_FALSE(failure.passed);
  INFO("seed " << failure.seed << ": " << shale::report::DescribeFailure(failure.failure));
  REQUIRE(properties.count(failure.failure.property) == 1);
  CheckControlAndReplay(*scenario, scenario_name, bug, shape, failure);
}

// One test per row (see common/row_tests.h): the rows are campaigns of up
// to kSeedLimit seeds each, and ctest runs them side by side.
void CheckFoundAndReplayed(const BugRow& row) {
  if (std::string(row.engine) != "") return CheckHostedFoundAndReplayed(row);
  CheckPinned(row.bug, row.scenario, row.shape, row.seed_limit, row.properties,
              /*pass_over_others=*/false);
}

[[maybe_unused]] const bool kRowTestsRegistered = shale_test::RegisterRowTests(
    kRows,
    [](const BugRow& row) {
      const std::string on =
          std::string(row.engine).empty() ? "" : " on " + std::string(row.engine);
      return "planted bug " + std::string(row.bug) + " is found by " + row.scenario + on +
             ", pinned to its property, and replays from its file";
    },
    CheckFoundAndReplayed, "[bugs]");

// A property pinned alone: a planted bug that breaks it (and maybe others)
// makes a seed of the scenario fail naming it, with a control run and a
// replay. Together with the single-property rows above, every property of
// every scenario is pinned so (checked below): a checker that could never
// fail would leave its property without a row.
struct PinRow {
  const char* property;
  const char* scenario;
  const char* bug;
  Shape shape = {};
  uint64_t seed_limit = kSeedLimit;
};

const PinRow kPinRows[] = {
    {"prefix recovery", "crash-recovery", "delete_wal_before_manifest"},
    {"no phantoms", "crash-recovery", "recovery_commits_prepared"},
    {"resurrection", "crash-recovery", "skip_dir_sync_after_current"},
    {"fresh snapshots", "crash-recovery", "stale_snapshot_sequence"},
    {"simulation", "crash-recovery", "slowdown_rereads_stale_level0"},
    {"durability", "windows", "ack_sync_write_before_wal_sync"},
    {"prefix recovery", "windows", "recovery_commits_prepared"},
    {"atomicity", "windows", "split_unsynced_group_in_wal"},
    {"atomicity", "crash-recovery", "iterator_step_reads_latest"},
    {"no phantoms", "windows", "recovery_commits_prepared"},
    {"resurrection", "windows", "skip_dir_sync_after_current"},
    {"read consistency", "windows", "seek_skips_key_after_tombstone"},
    {"immutable snapshots", "windows", "compaction_ignores_snapshots"},
    {"no spurious errors", "windows", "write_returns_corruption", kFaultsOn},
    {"deadlock", "windows", "finish_locks_db_under_txn_mutex"},
    {"transactions", "windows", "prepared_names_list_finished"},
    {"real-time order", "windows", "follower_sequence_not_reported"},
    {"fresh snapshots", "windows", "stale_snapshot_sequence"},
    {"recovery", "windows", "tolerate_tail_refuses_incomplete_tail"},
    {"engine assertion", "windows", "wal_fragment_ignores_header"},
    {"read-your-own-writes", "windows", "txn_get_misses_own_delete"},
    {"isolation", "windows", "get_for_update_takes_no_lock"},
    {"simulation", "windows", "slowdown_rereads_stale_level0"},
    {"durability", "open-channel", "ack_sync_write_before_wal_sync"},
    {"prefix recovery", "open-channel", "delete_wal_before_manifest"},
    {"atomicity", "open-channel", "split_unsynced_group_in_wal"},
    {"no phantoms", "open-channel", "recovery_commits_prepared"},
    {"resurrection", "open-channel", "skip_dir_sync_after_current"},
    {"read consistency", "open-channel", "seek_skips_key_after_tombstone"},
    {"immutable snapshots", "open-channel", "compaction_ignores_snapshots"},
    {"no spurious errors", "open-channel", "write_returns_corruption", kFaultsOn},
    {"deadlock", "open-channel", "finish_locks_db_under_txn_mutex"},
    {"transactions", "open-channel", "prepared_names_list_finished"},
    {"real-time order", "open-channel", "follower_sequence_not_reported"},
    {"fresh snapshots", "open-channel", "stale_snapshot_sequence"},
    {"recovery", "open-channel", "flash_ack_in_device_cache"},
    {"engine assertion", "open-channel", "table_get_releases_twice"},
    {"read-your-own-writes", "open-channel", "txn_get_misses_own_delete"},
    {"isolation", "open-channel", "get_for_update_takes_no_lock"},
    {"simulation", "open-channel", "slowdown_rereads_stale_level0"},
    // Real files and threads (real_backend_rows.h). Measured on this
    // machine over 100 seeds: the lock-order deadlock in 3 seeds in 100,
    // the rest within 10. A power loss right after a MANIFEST switch
    // undoes the switch: with short phases, and many, recovery then shows
    // an order no prefix explains in 6 seeds in 100, and a value from an
    // earlier phase (through a chain: a kill inside one phase's window,
    // then a power loss inside the next one's) in 4 in 100, against about
    // 1 in 600 for each in the default shape.
    {"prefix recovery", "real-backend", "skip_dir_sync_after_current", {100, 16}, 1000},
    {"atomicity", "real-backend", "seek_skips_key_after_tombstone"},
    {"no phantoms", "real-backend", "recovery_commits_prepared"},
    {"resurrection", "real-backend", "skip_dir_sync_after_current", {100, 16}, 1000},
    {"read consistency", "real-backend", "iterator_step_reads_latest"},
    {"immutable snapshots", "real-backend", "compaction_ignores_snapshots"},
    {"no spurious errors", "real-backend", "write_returns_corruption"},
    {"deadlock", "real-backend", "finish_locks_db_under_txn_mutex", {}, 1000},
    {"transactions", "real-backend", "prepared_names_list_finished"},
    {"real-time order", "real-backend", "follower_sequence_not_reported"},
    {"fresh snapshots", "real-backend", "stale_snapshot_sequence"},
    // Real-backend's recovery check opens the DB itself: a spurious Open
    // failure is the recovery failing.
    {"recovery", "real-backend", "open_fails_spuriously"},
    {"engine assertion", "real-backend", "table_get_releases_twice"},
    {"read-your-own-writes", "real-backend", "txn_get_misses_own_delete"},
    {"isolation", "real-backend", "get_for_update_takes_no_lock"},
    {"snapshot reads", "snapshot", "compaction_ignores_snapshots"},
    {"snapshot iteration", "snapshot", "compaction_ignores_snapshots"},
    {"repeatable snapshot reads", "snapshot", "compaction_ignores_snapshots"},
    {"no spurious errors", "snapshot", "write_returns_corruption"},
    {"deadlock", "snapshot", "close_joins_before_shutdown"},
    {"engine assertion", "snapshot", "table_get_releases_twice"},
    {"simulation", "snapshot", "slowdown_rereads_stale_level0"},
    {"atomic reads", "unordered-write", "publish_before_memtable_insert"},
    {"immutable snapshots", "unordered-write", "write_prepared_publishes_unprepared"},
    {"no spurious errors", "unordered-write", "write_returns_corruption"},
    {"deadlock", "unordered-write", "close_joins_before_shutdown"},
    {"engine assertion", "unordered-write", "table_get_releases_twice"},
    {"simulation", "unordered-write", "slowdown_rereads_stale_level0"},
    {"deadlock", "table-cache", "close_joins_before_shutdown"},
    {"engine assertion", "table-cache", "table_get_releases_twice"},
    {"simulation", "table-cache", "slowdown_rereads_stale_level0"},
    {"no spurious errors", "table-cache", "write_returns_corruption"},
    {"same answers under every option set", "diff-options", "filter_skips_first_key"},
    {"no spurious errors", "diff-options", "write_returns_corruption"},
};

void CheckPinnedAlone(const PinRow& row) {
  CheckPinned(row.bug, row.scenario, row.shape, row.seed_limit, {row.property},
              /*pass_over_others=*/true);
}

[[maybe_unused]] const bool kPinRowTestsRegistered = shale_test::RegisterRowTests(
    kPinRows,
    [](const PinRow& row) {
      return "planted bug " + std::string(row.bug) + " pins " + row.property + " alone in " +
             row.scenario;
    },
    CheckPinnedAlone, "[bugs]");

// Rows whose scenario runs in the `shale` binary only (RocksDB is linked
// there, not into this test): the same checks, each in a fresh process. A
// campaign that stops at its first failure finds the bug on the row's
// property, the seed passes without it, and its failure file replays to
// that property.
struct BinaryPinRow {
  const char* property;
  const char* scenario;
  const char* bug;
};

const BinaryPinRow kBinaryPinRows[] = {
    {"same answers as rocksdb", "diff-rocksdb", "filter_skips_first_key"},
    {"no spurious errors", "diff-rocksdb", "write_returns_corruption"},
};

void CheckPinnedThroughBinary(const BinaryPinRow& row) {
  if (!shale::bench::CompareEnginesBuilt()) {
    WARN("this build links no RocksDB: " << row.scenario << " rows not run");
    return;
  }
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  const std::string scenario = row.scenario;
  const shale_test::CommandResult found = shale_test::RunShale(
      "run --scenario " + scenario + " --seeds 1.." + std::to_string(kSeedLimit) +
      " --planted_bugs " + row.bug + " --max_failures 1 --jobs 1 --out " + dir.Child("bug"));
  INFO(found.out);
  REQUIRE(found.exit_code == 1);
  const auto failed = shale_test::FailedSeeds(dir.Child("bug/report.json"));
  REQUIRE_FALSE(failed.empty());
  CHECK(failed.front().second == row.property);
  const std::string seed = std::to_string(failed.front().first);
  const shale_test::CommandResult control =
      shale_test::RunShale("run --scenario " + scenario + " --seeds " + seed + ".." + seed +
                           " --jobs 1 --out " + dir.Child("control"));
  INFO(control.out);
  CHECK(control.exit_code == 0);
  const shale_test::CommandResult replay = shale_test::RunShale(
      "replay " + dir.Child("bug/failures/" + scenario + "-" + seed + ".json"));
  INFO(replay.out);
  CHECK(replay.exit_code == 1);
  CHECK(replay.out.find(std::string("failure: ") + row.property) != std::string::npos);
  CHECK(replay.out.find("trace_hash matches the failure file") != std::string::npos);
}

[[maybe_unused]] const bool kBinaryPinRowTestsRegistered = shale_test::RegisterRowTests(
    kBinaryPinRows,
    [](const BinaryPinRow& row) {
      return "planted bug " + std::string(row.bug) + " pins " + row.property + " alone in " +
             row.scenario + " (through the binary)";
    },
    CheckPinnedThroughBinary, "[bugs]");

// The first crash-recovery campaign seed (of 1..kSeedLimit) with bugs
// planted whose failure message contains needle; passed if none.
RunResult FirstCrashRecoveryFailure(uint64_t bugs, const std::string& needle) {
  RegisterBuiltinScenarios();
  const Scenario* scenario = FindScenario("crash-recovery");
  REQUIRE(scenario != nullptr);
  for (uint64_t seed = 1; seed <= kSeedLimit; seed++) {
    const RunResult r = scenario->Run(CampaignConfig("crash-recovery", seed, bugs));
    if (!r.passed && r.failure.message.find(needle) != std::string::npos) return r;
  }
  return RunResult{};
}

// The first crash-recovery failure under bugs whose message holds needle
// fails durability, and its seed passes without the bugs.
void CheckDurabilityFailureSaying(uint64_t bugs, const std::string& needle) {
  const RunResult found = FirstCrashRecoveryFailure(bugs, needle);
  REQUIRE_FALSE(found.passed);
  INFO("seed " << found.seed << ": " << shale::report::DescribeFailure(found.failure));
  CHECK(found.failure.property == "durability");
  CHECK(
      FindScenario("crash-recovery")->Run(CampaignConfig("crash-recovery", found.seed, 0)).passed);
}

}  // namespace

// The disk persists an in-order prefix of the unsynced name changes at a
// power loss, so "the WAL's unlink is durable, the MANIFEST edit that made
// it redundant is not" happens: the early delete is found after power
// losses too, not only after process crashes.
TEST_CASE("the WAL deleted before the MANIFEST edit is also found after a power loss", "[bugs]") {
  const RunResult found =
      FirstCrashRecoveryFailure(shale::kBugDeleteWalBeforeManifest, "after a power loss");
  REQUIRE_FALSE(found.passed);
  INFO("seed " << found.seed << ": " << shale::report::DescribeFailure(found.failure));
  // The lost log held acknowledged writes: a sync one lost is durability;
  // unsynced ones lost under later writes that survived, prefix recovery.
  // It may also have held the Prepare of a WritePrepared transaction whose
  // data a flushed table holds: without its section that data reads as
  // committed (no phantoms).
  CHECK((found.failure.property == "durability" || found.failure.property == "prefix recovery" ||
         found.failure.property == "no phantoms"));
  CHECK(
      FindScenario("crash-recovery")->Run(CampaignConfig("crash-recovery", found.seed, 0)).passed);
}

// A Prepare has a place in the recovered cut by real time: a cut holding a
// write that began after the Prepare was acknowledged must hold it, synced
// or not. An engine that keeps unsynced Prepares out of the WAL breaks
// just that, and the failure names this reason.
TEST_CASE("an unsynced Prepare lost under a later surviving write fails durability", "[bugs]") {
  CheckDurabilityFailureSaying(shale::kBugUnsyncedPrepareSkipsWal,
                               "began after it was acknowledged");
}

// An acknowledged Rollback of a prepared transaction is held to survive
// the crash as a commit is: an engine that logs no rollback marker brings
// the transaction back prepared, and the failure says its Rollback was lost.
TEST_CASE("a Rollback that logs no marker comes back prepared and fails durability", "[bugs]") {
  CheckDurabilityFailureSaying(shale::kBugRollbackSkipsMarker, "Rollback had to survive the crash");
}

// Properties no planted bug pins alone yet, each with why. A property
// leaves this list once a row pins it (the test below fails until it is
// taken off), so the list only shrinks.
TEST_CASE("every property of every scenario is pinned alone by a planted bug", "[bugs]") {
  RegisterBuiltinScenarios();
  std::set<std::pair<std::string, std::string> > pinned;  // (scenario, property)
  for (const BugRow& row : kRows) {
    if (row.properties.size() == 1 && std::string(row.engine).empty()) {
      pinned.emplace(row.scenario, *row.properties.begin());
    }
  }
  for (const PinRow& row : kPinRows) pinned.emplace(row.scenario, row.property);
  for (const BinaryPinRow& row : kBinaryPinRows) pinned.emplace(row.scenario, row.property);
  for (const Scenario* scenario : AllScenarios()) {
    for (const std::string& property : scenario->properties()) {
      const std::pair<std::string, std::string> key(scenario->name(), property);
      INFO(scenario->name() << ": " << property);
      CHECK(pinned.count(key) == 1);
    }
  }
}

TEST_CASE("planted bug names parse to their bits and print back", "[bugs]") {
  uint64_t bits = 0;
  std::string error;
  REQUIRE(shale::cli::ParsePlantedBugs("", &bits, &error));
  REQUIRE(bits == 0);
  REQUIRE(shale::cli::ParsePlantedBugs("none", &bits, &error));
  REQUIRE(bits == 0);
  REQUIRE(shale::cli::ParsePlantedBugs("rollback_keeps_data,ack_sync_write_before_wal_sync", &bits,
                                       &error));
  REQUIRE(bits == (shale::kBugRollbackKeepsData | shale::kBugAckSyncWriteBeforeWalSync));
  REQUIRE(shale::cli::PlantedBugNames(bits) ==
          "ack_sync_write_before_wal_sync,rollback_keeps_data");
  REQUIRE(shale::cli::PlantedBugNames(bits | (uint64_t{1} << 60)) ==
          "ack_sync_write_before_wal_sync,rollback_keeps_data,0x1000000000000000");
  REQUIRE_FALSE(shale::cli::ParsePlantedBugs("rollback_keeps_data,", &bits, &error));
  REQUIRE(error.find("unknown planted bug ''") != std::string::npos);
}
