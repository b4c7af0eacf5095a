// The engine seam for scenarios: which engine a run drives. Shale's own
// engine is built in; an engine Shale did not write (hosted/: LevelDB) is
// registered here by the program that carries the hosting layer, so the
// scenarios never depend on one. A scenario drives every engine through
// shale::DB (engine/include/shale/db.h) and draws only what the engine
// offers (EngineOffers).
//
// Thread safety: register before any run starts; lookups are read-only.
// Ownership: registered engines are static and outlive the process.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "scenarios/engine/promise_table.h"
#include "scenarios/oracle/history.h"
#include "shale/db.h"
#include "shale/env.h"
#include "shale/status.h"
#include "shale/transaction_db.h"
#include "sim/choice_tape.h"

namespace shale::scenario {

// The logs (full paths) crashes damaged so far in a run, as a recovery
// may meet them.
struct CrashedLogs {
  // Every log a crash or a failed sync may have left torn, garbled, behind
  // a hole or cut short amid a record.
  std::set<std::string> torn;
  // Of torn, those left other than a clean prefix (a torn or garbled
  // sector, a hole, a failed sync's lost pages): where even a recovery that
  // tolerates a record cut short at a log's end may find damage.
  std::set<std::string> unclean;
};

// The built-in engine's name (RunConfig::engine "" means it too).
inline constexpr const char* kShaleEngine = "shale";

// What an engine offers beyond writes (batches, sync), Get, iterators in
// both directions, snapshots and CompactRange, which every engine has.
struct EngineOffers {
  bool flush = true;     // DB::Flush, durable on success
  bool sync_wal = true;  // DB::SyncWAL
  bool skip_wal = true;  // WriteOptions::disable_wal
  // TransactionDB (a hosted engine's: write-committed only, through
  // HostedEngine::UseTransactions when HostedOptions::transactions says so)
  bool transactions = true;
  // Whether a clean Close flushes every acknowledged write into tables
  // (else they stay as durable as the log made them).
  bool close_flushes = true;
  // The write modes of the unordered-write scenario (HostedEngine::
  // SetWriteMode), all four: the WritePrepared one through a transaction
  // DB the engine opens for it.
  bool write_modes = false;
};

// How writers go through an engine's write path, as the unordered-write
// scenario draws it (scenarios/unordered_write/unordered_write.h holds
// each mode's read promises).
enum class WriteMode {
  kVanilla,    // one write queue, memtable writes in sequence order
  kPipelined,  // enable_pipelined_write
  kUnordered,  // unordered_write
  // unordered_write through a WritePrepared TransactionDB, two write queues
  kUnorderedWritePrepared,
};

// How a drawn boolean option is described in options_drawn.
inline std::string OptionText(bool value) { return value ? "true" : "false"; }

// One run's drawn options of a hosted engine (its own type).
class HostedOptions {
 public:
  virtual ~HostedOptions() = default;
  // shale::PlantedBug bits of the hosting layer (RunConfig::planted_bugs),
  // set by the scenario after Draw.
  uint64_t planted_bugs = 0;
  // Whether the run asks for transactions, drawn (or pinned) by the
  // engine's Draw where offers().transactions; a scenario that runs them
  // calls HostedEngine::UseTransactions, one that does not leaves it unused.
  bool transactions = false;
  // Where the engine's own info log lines go too, when the run is traced
  // (shale replay --trace); empty otherwise. Trace only: never hashed.
  std::function<void(const std::string& line)> info_log_trace;
};

class HostedEngine {
 public:
  virtual ~HostedEngine() = default;
  virtual const char* name() const = 0;
  // The exact library loaded, e.g. "1.23 (libleveldb.so.1.23.0)".
  virtual std::string version() const = 0;
  virtual EngineOffers offers() const = 0;
  // What the engine promises: the oracle fails a run only on these.
  virtual const PromiseTable& promises() const = 0;
  // Readies this process to host the engine (interposer checks, code
  // registration). REQUIRES: called outside any simulation, before Open.
  [[nodiscard]] virtual Status Prepare() const = 0;
  // Draws one run's options from the engine's documented option list,
  // describing each in *described (the report's options_drawn), then sets
  // each option `pins` names (a RunConfig::pins entry among
  // PinnableOptions) to its pinned value.
  virtual std::unique_ptr<HostedOptions> Draw(
      sim::ChoiceTape* tape, const std::map<std::string, std::string>& pins,
      std::map<std::string, std::string>* described) const = 0;
  // The options_drawn names Draw can pin, each with its values ("a|b").
  virtual std::map<std::string, std::string> PinnableOptions() const = 0;
  // Opens (recovers) the engine's DB at path on env, creating it if missing.
  // REQUIRES: in a task of a simulation with os_thread_tasks.
  [[nodiscard]] virtual Status Open(const HostedOptions& options, Env* env, const std::string& path,
                                    std::unique_ptr<DB>* db) const = 0;
  // After Open failed with s: if the options refused damage that an
  // operator would open past (LevelDB's paranoid_checks refusing a log a
  // power loss tore, RocksDB's absolute consistency refusing a torn log),
  // with logs saying which logs crashes damaged, relaxes *options for the
  // rest of the run, describes why in *why, and returns true.
  virtual bool RelaxAfterRefusal(const Status& s, const CrashedLogs& logs, HostedOptions* options,
                                 std::string* why) const = 0;
  // When, with these options, an acknowledged WAL write reaches the log
  // file (history.h).
  virtual WalWrites wal_writes(const HostedOptions& options) const {
    (void)options;
    return WalWrites::kAtAck;
  }
  // Whether each run needs a process of its own: true when the library
  // keeps process-wide state that a run would hand on to the next (a
  // campaign's worker then makes one run before it exits).
  virtual bool one_run_per_process() const { return false; }
  // Sets *options (drawn by Draw) to write in mode, with what the engine
  // requires alongside it, and describes the change in *described. False
  // if the engine has no such mode (offers().write_modes says which).
  virtual bool SetWriteMode(WriteMode mode, HostedOptions* options,
                            std::map<std::string, std::string>* described) const {
    (void)mode, (void)options, (void)described;
    return false;
  }
  // Sets *options so that Open gives a TransactionDB (the DB it returns is
  // one) under txn's write policy and lock timeouts. False if the engine
  // offers no such DB.
  virtual bool UseTransactions(const TransactionDBOptions& txn, HostedOptions* options) const {
    (void)txn, (void)options;
    return false;
  }
};

// Adds a hosted engine. REQUIRES: before any run; its name is unique.
void RegisterHostedEngine(const HostedEngine* engine);
// nullptr for the built-in engine and for names never registered.
const HostedEngine* FindHostedEngine(const std::string& name);
// Every engine name a run may give: "shale", then the hosted ones, sorted.
std::vector<std::string> EngineNames();
// True if name is "" or "shale".
inline bool IsShaleEngine(const std::string& name) { return name.empty() || name == kShaleEngine; }

}  // namespace shale::scenario
