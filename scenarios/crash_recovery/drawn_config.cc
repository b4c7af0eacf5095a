#include "scenarios/crash_recovery/drawn_config.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "scenarios/scenario_run.h"

namespace shale::scenario {

const char* RecoveryModeName(WALRecoveryMode mode) {
  switch (mode) {
    case WALRecoveryMode::kTolerateCorruptedTailRecords:
      return "tolerate-tail";
    case WALRecoveryMode::kAbsoluteConsistency:
      return "absolute";
    case WALRecoveryMode::kPointInTimeRecovery:
      return "point-in-time";
    case WALRecoveryMode::kSkipAnyCorruptedRecords:
      return "skip-any";
  }
  return "point-in-time";
}

Drawn DrawConfig(sim::ChoiceTape* rng) {
  Drawn d;
  Options& o = d.options;
  o.create_if_missing = true;
  o.write_buffer_size = size_t{4096} << rng->Uniform(4);        // 4..32 KiB
  o.target_file_size_base = uint64_t{4096} << rng->Uniform(4);  // 4..32 KiB
  o.max_bytes_for_level_base = uint64_t{16384} << rng->Uniform(3);
  o.max_bytes_for_level_multiplier = 2.0 + static_cast<double>(rng->Uniform(5));
  o.level0_file_num_compaction_trigger = 2 + static_cast<int>(rng->Uniform(3));
  o.block_size = size_t{256} << rng->Uniform(4);
  o.bloom_bits_per_key = rng->OneIn(4) ? 0 : 10;
  o.max_open_files = rng->OneIn(3) ? -1 : 20 + static_cast<int>(rng->Uniform(40));
  // Half the two modes that report WAL damage, a quarter RocksDB's
  // default, a quarter skip-any (which reads on past damage); all but
  // point-in-time get bit flips in WAL files too (FaultPlan, WalDamageFor).
  const uint64_t mode = rng->Uniform(4);
  o.wal_recovery_mode = mode == 0   ? WALRecoveryMode::kTolerateCorruptedTailRecords
                        : mode == 1 ? WALRecoveryMode::kAbsoluteConsistency
                        : mode == 2 ? WALRecoveryMode::kPointInTimeRecovery
                                    : WALRecoveryMode::kSkipAnyCorruptedRecords;
  d.workload.key_space = 100 << rng->Uniform(3);
  d.workload.skewed_keys = rng->OneIn(2);
  d.workload.sync_one_in = 2 + static_cast<int>(rng->Uniform(12));
  d.workload.no_wal_one_in = 4 + static_cast<int>(rng->Uniform(20));
  d.clients = 2 + static_cast<int>(rng->Uniform(3));
  // Unordered writes are DrawWriteQueues's to draw.
  DrawOrderedWriteMode(rng, &o, &d.described);
  // Half the runs roll the MANIFEST every 256 B to 4 KiB of edits (from
  // every few edits to every few dozen), so crashes and faults meet the
  // switch of CURRENT during the workload, not only at Open.
  o.max_manifest_file_size =
      rng->OneIn(2) ? uint64_t{256} << rng->Uniform(5) : o.max_manifest_file_size;
  DrawCompression(rng, &o);
  DrawMemtableFilter(rng, &o);
  DrawCompactionTriggers(rng, &o);
  d.latency = DrawDisk(rng, &d.described);
  auto& m = d.described;
  DescribeEngineSizes(o, &m);
  m["max_manifest_file_size"] = std::to_string(o.max_manifest_file_size);
  m["wal_recovery_mode"] = RecoveryModeName(o.wal_recovery_mode);
  m["key_space"] = std::to_string(d.workload.key_space);
  m["skewed_keys"] = d.workload.skewed_keys ? "true" : "false";
  m["sync_one_in"] = std::to_string(d.workload.sync_one_in);
  m["no_wal_one_in"] = std::to_string(d.workload.no_wal_one_in);
  m["clients"] = std::to_string(d.clients);
  return d;
}

void KeepSkipAnyWhereCheckable(bool checkable, Drawn* d) {
  if (checkable || d->options.wal_recovery_mode != WALRecoveryMode::kSkipAnyCorruptedRecords)
    return;
  d->options.wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;
  const auto described = d->described.find("wal_recovery_mode");
  if (described != d->described.end())
    described->second = RecoveryModeName(d->options.wal_recovery_mode);
}

void DrawMemtablesAndValues(sim::ChoiceTape* rng, bool large_values_fit, Drawn* d) {
  // Up to 6 memtables (2 is RocksDB's default): several immutable ones
  // wait for their flush, and recovery's cut crosses them.
  d->options.max_write_buffer_number = 2 + static_cast<int>(rng->Uniform(5));
  // In one run in 8, one value in 32 is up to 8, 16 or 32 KiB: larger than
  // a table block, in a WAL record that spans 32 KiB log blocks.
  if (rng->OneIn(8) && large_values_fit) {
    d->workload.large_value_one_in = 32;
    d->workload.large_value_bytes = 8192 << rng->Uniform(3);
    d->described["large_value_bytes"] = std::to_string(d->workload.large_value_bytes);
  }
  d->described["max_write_buffer_number"] = std::to_string(d->options.max_write_buffer_number);
}

void DrawTransactions(sim::ChoiceTape* tape, Drawn* d) {
  const bool on = tape->OneIn(2);
  const bool write_prepared = tape->OneIn(2);
  SetTransactions(on,
                  write_prepared ? TxnWritePolicy::kWritePrepared : TxnWritePolicy::kWriteCommitted,
                  tape, d);
}

void SetTransactions(bool on, TxnWritePolicy write_policy, sim::ChoiceTape* tape, Drawn* d) {
  sim::ChoiceTape& rng = *tape;
  d->transactions = on;
  d->txn_options.write_policy = write_policy;
  d->workload.transactions = on;
  if (on && rng.OneIn(2)) {
    d->workload.prepare_to_finish_us_max = uint64_t{250} << rng.Uniform(7);
    d->described["prepare_to_finish_us_max"] = std::to_string(d->workload.prepare_to_finish_us_max);
  }
  d->described["transactions"] = !on ? "off"
                                 : write_policy == TxnWritePolicy::kWritePrepared
                                     ? "write-prepared"
                                     : "write-committed";
}

// Lock waits, in simulated time (a run may use one simulated hour). Nothing
// holds a key for long, however slow the disk, so a plain write that waits
// 10 minutes has met a lost wakeup or a leaked lock: its TimedOut fails the
// run (no spurious errors), unless a proven error left a prepared
// transaction holding its keys until the next crash (faults on; see
// WorkloadState::stuck_prepared_phase). A transaction may meet a deadlock
// that a plain write closed (plain writes do not detect deadlocks): it
// times out after 10 s (1 s with faults on, where it may also meet such a
// stuck transaction) and rolls back, no failure.
void SetLockTimeouts(bool faults_enabled, TransactionDBOptions* o) {
  o->transaction_lock_timeout_ms = faults_enabled ? 1'000 : 10'000;
  o->default_lock_timeout_ms = 600'000;
}

// The write queues:
//   * Without transactions, a quarter of the runs write unordered. Their
//     writes reach the WAL in sequence order (one queue), so every recovery
//     promise holds; reads keep per-key consistency and read-your-own-writes,
//     but a write in flight below a snapshot's sequence may still appear at
//     it (WorkloadOptions::snapshots_immutable).
//   * WritePrepared runs use two write queues half the time, and write
//     unordered in half of those (as RocksDB requires, through two queues).
//     A commit publishes through the second queue after its data landed,
//     so snapshots stay immutable; recovery replays the WAL, whose order
//     the oracle gets from the recovery sequence of each write.
void DrawWriteQueues(sim::ChoiceTape* tape, Drawn* d) {
  sim::ChoiceTape& rng = *tape;
  const bool write_prepared =
      d->transactions && d->txn_options.write_policy == TxnWritePolicy::kWritePrepared;
  Options& o = d->options;
  if (write_prepared) {
    if (!rng.OneIn(2)) return;
    o.two_write_queues = true;
    o.enable_pipelined_write = false;
    o.unordered_write = rng.OneIn(2);
    d->read_visibility = ReadVisibility::kWholeBatchPublishedLater;
  } else if (!d->transactions && rng.OneIn(4)) {
    o.unordered_write = true;
    o.enable_pipelined_write = false;
    d->workload.snapshots_immutable = false;
    d->read_visibility = ReadVisibility::kPerKey;  // keys inserted after the publish
  } else {
    return;
  }
  if (o.unordered_write) o.allow_concurrent_memtable_write = true;
  d->described["write_mode"] = o.unordered_write ? "unordered" : "vanilla";
  d->described["allow_concurrent_memtable_write"] =
      o.allow_concurrent_memtable_write ? "true" : "false";
  if (o.two_write_queues) d->described["two_write_queues"] = "true";
}

// Everything one run holds; lives on the Run() stack.

namespace {

// The kinds' names in a described or pinned mix, indexed by OpKind.
constexpr const char* kOpKindNames[kOpKinds] = {"write",   "batch", "get",     "iterate",
                                                "barrier", "flush", "compact", "snapshot_reread"};
constexpr uint32_t kMaxPinnedWeight = 1000;

void DescribeMix(const char* label, Drawn* d) {
  std::string text = label;
  for (size_t k = 0; k < kOpKinds; k++) {
    const uint32_t w = d->workload.mix_weights[k];
    if (w != 0) text += " " + std::string(kOpKindNames[k]) + "=" + std::to_string(w);
  }
  d->described["workload.mix"] = text;
}

// Parses a pinned mix into weights; empty if it is one, else why not.
std::string ParseMix(const std::string& text, std::vector<uint32_t>* weights) {
  weights->assign(kOpKinds, 0);
  for (const absl::string_view item : absl::StrSplit(text, '+')) {
    const std::vector<std::string> kw = absl::StrSplit(item, absl::MaxSplits(':', 1));
    const auto* name = std::find(std::begin(kOpKindNames), std::end(kOpKindNames), kw[0]);
    uint32_t w = 0;
    if (name == std::end(kOpKindNames) || kw.size() != 2 || !absl::SimpleAtoi(kw[1], &w) ||
        w == 0 || w > kMaxPinnedWeight) {
      return "--pin workload.mix: bad item '" + std::string(item) +
             "' (want KIND:WEIGHT, KIND one of write, batch, get, iterate, barrier, flush, "
             "compact, snapshot_reread, WEIGHT 1.." +
             std::to_string(kMaxPinnedWeight) + ")";
    }
    (*weights)[static_cast<size_t>(name - std::begin(kOpKindNames))] = w;
  }
  if ((*weights)[static_cast<size_t>(OpKind::kWrite)] +
          (*weights)[static_cast<size_t>(OpKind::kBatch)] ==
      0) {
    return "--pin workload.mix '" + text + "' has no write or batch";
  }
  return "";
}

}  // namespace

void DrawSwarmMix(sim::ChoiceTape* tape, Drawn* d) {
  std::vector<uint32_t>& weights = d->workload.mix_weights;
  weights.assign(kOpKinds, 0);
  for (uint32_t& w : weights) w = tape->OneIn(2) ? 0 : 1 + static_cast<uint32_t>(tape->Uniform(8));
  const auto write = static_cast<size_t>(OpKind::kWrite);
  if (weights[write] + weights[static_cast<size_t>(OpKind::kBatch)] == 0) weights[write] = 1;
  DescribeMix("swarm", d);
}

std::string MixPinError(const std::string& text) {
  if (text == "default" || text == "swarm") return "";
  std::vector<uint32_t> weights;
  return ParseMix(text, &weights);
}

bool SetMix(const std::string& pinned, sim::ChoiceTape* tape, Drawn* d) {
  if (pinned == "default") return true;
  if (pinned == "swarm") {
    DrawSwarmMix(tape, d);
    return true;
  }
  if (!ParseMix(pinned, &d->workload.mix_weights).empty()) return false;
  DescribeMix("pinned", d);
  return true;
}

}  // namespace shale::scenario
