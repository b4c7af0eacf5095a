// The crash-recovery workload's configuration, drawn from a run's tape:
// engine options and workload shape (swarm), transactions and their write
// policy, and the write queues. The simulated scenarios and the
// real-backend scenario draw it the same way, so a seed names the same
// configuration in both.
//
// Thread safety: stateless functions over the tape they are given.
#pragma once

#include <map>
#include <string>

#include "scenarios/crash_recovery/workload.h"
#include "scenarios/oracle/history.h"
#include "shale/options.h"
#include "shale/transaction_db.h"
#include "sim/choice_tape.h"
#include "sim/disk/sim_disk.h"

namespace shale::scenario {

struct Drawn {
  Options options;
  WorkloadOptions workload;
  sim::LatencyProfile latency;
  int clients = 2;
  std::map<std::string, std::string> described;
  bool transactions = false;
  TransactionDBOptions txn_options;
  // kPerKey under unordered_write through one queue: each writer inserts
  // its keys after its sequence is published, so readers may see part of a
  // batch (DrawWriteQueues); kWholeBatchPublishedLater under two write
  // queues, which publish a plain write after logging it.
  ReadVisibility read_visibility = ReadVisibility::kWholeBatch;
};

// Swarm: engine options and workload shape drawn from the seed, within
// valid ranges, small enough that many files and >= 3 levels form.
Drawn DrawConfig(sim::ChoiceTape* rng);

// Shale's engine only: max_write_buffer_number 2..6, and in 1 run in 8
// one value in 32 of up to 8..32 KiB (above a table block; records across
// WAL blocks) where large_values_fit (the simulated flash device is sized for the
// default values: larger ones would fill it).
void DrawMemtablesAndValues(sim::ChoiceTape* rng, bool large_values_fit, Drawn* d);

// Transactions on or off (the default), and the write policy.
void DrawTransactions(sim::ChoiceTape* tape, Drawn* d);

// Sets d's transactions as given (a hosted engine's draw), under
// write_policy, and draws what a run with them draws besides (how long a
// prepared transaction may wait for its finish); describes them.
void SetTransactions(bool on, TxnWritePolicy write_policy, sim::ChoiceTape* tape, Drawn* d);

// The name reports give a recovery mode ("skip-any", ...).
const char* RecoveryModeName(WALRecoveryMode mode);

// Skip-any recovery is checked only where the check can bound what it
// skips (checkable: Shale's engine, whose logs the scenario reads on the
// POSIX and Windows disks, and on the open-channel SSD, whose backend
// never hands a reader damaged bytes, so nothing is skipped and the check
// stays strict; and no transaction's commit marker can be skipped out
// from under its prepared section, for which no rule exists). Elsewhere a
// skip-any draw runs as point-in-time, RocksDB's default.
void KeepSkipAnyWhereCheckable(bool checkable, Drawn* d);

// The lock-wait limits for a run with I/O faults on or off (see the .cc).
void SetLockTimeouts(bool faults_enabled, TransactionDBOptions* o);

// The write queues: two queues and unordered writes (see the .cc).
void DrawWriteQueues(sim::ChoiceTape* tape, Drawn* d);

// Swarm testing of the operation mix: each kind of operation is left out
// of the run with probability 1/2, else weighted 1..8 (plain writes stay
// if both write kinds were left out), and described as "workload.mix".
// Drawn only where a run asks for it (the pin workload.mix=swarm), so the
// default mix's runs draw what they always drew.
void DrawSwarmMix(sim::ChoiceTape* tape, Drawn* d);

// The pin workload.mix: "default" (the default mix: d unchanged),
// "swarm" (DrawSwarmMix), or a fixed mix "KIND:WEIGHT[+KIND:WEIGHT...]",
// KIND one of write, batch, get, iterate, barrier, flush, compact,
// snapshot_reread and WEIGHT 1..1000, every kind not named left out (e.g.
// "write:2+compact:1" for a run of writes and manual compactions only).
// MixPinError is empty if pinned is one of these, else one line saying why
// not; a fixed mix needs write or batch.
std::string MixPinError(const std::string& pinned);
// Sets d's mix to pinned; false (d unchanged) if MixPinError(pinned) is
// not empty.
[[nodiscard]] bool SetMix(const std::string& pinned, sim::ChoiceTape* tape, Drawn* d);

}  // namespace shale::scenario
