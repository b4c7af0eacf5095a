// The real-backend scenario's two halves share this: the configuration a
// seed draws (RealDraw), the run's directories, opening the DB, and the
// child's main (RunRealChild), which the parent forks (real_backend.h).
//
// Thread safety: RealDraw and OpenRealDb are plain functions;
// RunRealChild runs in a forked child and never returns.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "scenarios/crash_recovery/drawn_config.h"
#include "scenarios/crash_recovery/workload.h"
#include "scenarios/oracle/history.h"
#include "scenarios/scenario.h"
#include "shale/db.h"
#include "shale/transaction_db.h"
#include "sim/choice_tape.h"

namespace shale::scenario {

// Where the parent kills the child.
struct KillPoint {
  enum class Kind : uint8_t {
    kAfterWrites,    // as the n-th write begins
    kAfterMs,        // n ms after the DB opened
    kAtSync,         // as the n-th file sync starts (lossy runs)
    kAtNameChange,   // as the n-th create, delete or rename is made (lossy runs)
    kAtEnginePoint,  // as an engine thread reaches the named point the n-th time
  };
  Kind kind = Kind::kAfterWrites;
  uint64_t n = 1;
  std::string point;  // kAtEnginePoint: a Runtime::YieldPoint name
  std::string Describe() const;
};

struct RealDraw {
  Drawn drawn;  // as the simulated crash-recovery scenario draws it
  // The children run on PowerLossFs, and half their kills are power losses
  // (the parent cuts the files back); else every kill keeps the page cache.
  bool lossy = false;
  int ops_per_phase = 0;     // workload operations per child, over all clients
  uint64_t client_seed = 0;  // client c of phase p draws from the tape of client_seed + 16p + c
};

// Draws a seed's real run from tape (the seed's, or a failure's).
RealDraw DrawRealRun(sim::ChoiceTape* tape, const RunConfig& config, int phases);
// Draws where one child is killed (lossy: sync points may be drawn).
KillPoint DrawKillPoint(sim::ChoiceTape* tape, const RealDraw& draw);

struct RealPaths {
  std::string run;    // the seed's directory: holds the two below
  std::string db;     // the DB's
  std::string trash;  // PowerLossFs's trash
};

// DB::Open, or TransactionDB::Open when the draw has transactions (*txn_db
// is then the same object as *db).
Status OpenRealDb(const Options& options, const Drawn& drawn, const std::string& path,
                  std::unique_ptr<DB>* db, TransactionDB** txn_db);

// The child of one phase: opens the DB at paths.db (recovering it, after
// the first phase; on PowerLossFs if the draw is lossy), runs the clients,
// closes, and exits, journaling to fd. history and state are the parent's,
// as the fork copied them: the model as of the phase's start.
// kill: where the parent will kill it; at an engine point, the child
// reports reaching it and waits there for the kill.
[[noreturn]] void RunRealChild(const RealDraw& draw, const RealPaths& paths, int phase,
                               const std::optional<KillPoint>& kill, History* history,
                               WorkloadState* state, int fd);

}  // namespace shale::scenario
