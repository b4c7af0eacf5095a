// Scenario: one named kind of simulated run (`shale scenarios` lists them).
//
// A scenario runs one seed: it builds a Simulation from the seed (or from
// RunConfig::tape), draws its configuration (swarm: options, fault kinds and
// rates) from the run's choice tape (sim/choice_tape.h),
// runs the workload with crashes and checks, and returns a RunResult. The
// same RunConfig always gives the same RunResult (trace_hash included), in
// every build type and with both compilers.
//
// Thread safety: Run may be called from one thread at a time per process
// (a worker process runs one seed at a time). Ownership: scenarios are
// static singletons registered in scenarios/registry.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/engine/hosted_engine.h"

namespace shale::scenario {

struct RunConfig {
  std::string scenario;
  // The engine the run drives: "" or "shale" (Shale's own), or a hosted
  // engine's name (scenarios/engine/hosted_engine.h), e.g. "leveldb".
  std::string engine;
  uint64_t seed = 1;
  // If set, the run draws every choice from these bytes (sim::ChoiceTape)
  // instead of the seed's endless tape; seed then only names the run.
  std::optional<std::string> tape;
  int ops = 0;           // workload operations per seed (0 = scenario default)
  int crashes = 3;       // crashes per seed (-1 = scenario default)
  std::string strategy;  // "random" | "pct" | "" (drawn from the tape)
  std::string faults;    // "on" | "off" | "" (drawn from the tape)
  bool trace = false;    // collect the event trace (shale replay --trace)
  // With trace: each trace line is handed here as it is made, instead of
  // collected in RunResult::trace (a run in a child process sends them out
  // before it can die). At most kMaxTraceLines.
  std::function<void(const std::string&)> trace_line;
  uint64_t planted_bugs = 0;  // shale::PlantedBug bits, for checker tests
  // Drawn options pinned to a value, by their options_drawn name (e.g.
  // "crash.power_loss" = "false", "leveldb.reuse_logs" = "false"): the
  // draw still happens (the tape is the same), its result is replaced. A
  // scenario refuses a name it cannot pin (PinnableOptions).
  std::map<std::string, std::string> pins;
  // Where a scenario that runs on real files makes them (a directory per
  // seed under it, removed when the seed passes); "" means TMPDIR (or
  // /tmp). Simulated scenarios ignore it.
  std::string work_dir;
  // A campaign's determinism recheck (cli/recheck.h). Scenarios ignore
  // these; the worker process that runs the seed acts on them: it first
  // shifts its heap and its maps by heap_shift steps (0: not at all), so a
  // run that reads pointer values sees other ones, and after the run it
  // writes the event trace (RunConfig::trace) to trace_file, if that is
  // set and the trace hash differs from expected_trace_hash (always, if
  // that is unset).
  uint32_t heap_shift = 0;
  std::string trace_file;
  std::optional<uint64_t> expected_trace_hash;
};

struct Failure {
  std::string property;  // e.g. "durability", "prefix recovery", "deadlock"
  std::string key;
  std::string expected;
  std::string observed;
  uint64_t step = 0;    // scheduler step (or workload op) where it was seen
  std::string message;  // one line, human readable
};

struct RunResult {
  std::string scenario;
  uint64_t seed = 0;
  bool passed = true;
  Failure failure;  // when !passed
  uint64_t trace_hash = 0;
  uint64_t ops = 0;  // workload operations done
  // Engine calls those made, counted as db_bench counts: each key written
  // (a batch of n is n), each Get, each iterator Seek/Next/Prev, each
  // Flush/CompactRange/SyncWAL. Checker reads after recovery not included.
  uint64_t engine_ops = 0;
  uint64_t crashes = 0;
  uint64_t sim_time_ns = 0;
  uint64_t steps = 0;  // scheduling points
  // Bytes of the choice tape the run read: its first tape_bytes bytes (of
  // config.tape, or of the seed's endless tape) replay it exactly.
  uint64_t tape_bytes = 0;
  // Where each workload operation's draws start in that tape
  // (ChoiceTape::operation_marks), for the shrinker; not written to files.
  std::vector<uint64_t> operation_marks;
  std::map<std::string, uint64_t> faults_by_kind;  // sorted: deterministic output
  std::map<std::string, std::string> options_drawn;
  // Events seen that are not failures, by name: e.g. a violation of a
  // promise the drawn mode does not make (see Scenario::promises).
  std::map<std::string, uint64_t> observed;
  // Coverage probes the run reached (util/probes.h), by name: hits. Only
  // simulated runs count them (probes_counted).
  std::map<std::string, uint64_t> probe_hits;
  bool probes_counted = false;
  // Why the run stopped short of all its phases, as a reason class (e.g.
  // "damage detected"); empty when it finished them all.
  std::string ended_early;
  std::string scheduler;           // "random" or "pct"
  uint64_t pct_change_points = 0;  // pct: change points that fired
  std::vector<std::string> trace;  // when RunConfig::trace
  // False for a run on real files and threads: the same config may take
  // another path, so trace_hash (0) and tape_bytes (0) mean nothing and
  // the failure file replays from the seed.
  bool deterministic = true;
  // A real run's record of what its process did, one line per event, for
  // the failure file (empty for simulated runs, and when it passed).
  std::vector<std::string> recorded_history;
};

class Scenario {
 public:
  virtual ~Scenario() = default;
  virtual const char* name() const = 0;
  // One line: what the scenario does.
  virtual const char* summary() const = 0;
  // The properties its checkers hold the engine to.
  virtual std::vector<std::string> properties() const = 0;
  virtual RunResult Run(const RunConfig& config) const = 0;

  // For scenarios that draw a mode per seed (options_drawn[mode_option()])
  // with different promises: every (mode, promise) and whether the mode
  // keeps it. A kept promise's violation fails the seed; a dropped one's is
  // counted in RunResult::observed[promise], and a campaign must observe it
  // (else the scheduler is not exploring). Empty for other scenarios.
  struct PromiseRow {
    std::string mode;
    std::string promise;
    bool kept = true;
  };
  virtual std::vector<PromiseRow> promises() const { return {}; }
  // False for a scenario that runs on real files and threads (not
  // deterministic, and slower): `--scenario all` leaves it out.
  virtual bool simulated() const { return true; }
  // False for a study (a measurement, ten times a checking seed's cost)
  // and for real runs: `--scenario all` runs the others; these run when
  // named.
  virtual bool in_all() const { return simulated(); }
  virtual const char* mode_option() const { return ""; }
  // The options_drawn names RunConfig::pins may name for engine, each
  // with the values it takes ("true|false", or "" for any). None unless
  // the scenario says otherwise.
  virtual std::map<std::string, std::string> PinnableOptions(const std::string& engine) const {
    (void)engine;
    return {};
  }
  // Empty if name may be pinned to value on engine, else one line saying
  // why not. By default value must be one of PinnableOptions' "a|b"
  // alternatives (any value where that list is empty); a scenario whose
  // option takes a richer value overrides this.
  // REQUIRES: name is one of PinnableOptions(engine).
  virtual std::string PinValueError(const std::string& engine, const std::string& name,
                                    const std::string& value) const;
  // Whether the scenario can drive engine (a name as in RunConfig::engine).
  // Shale's own engine only, unless the scenario says otherwise.
  virtual bool RunsOn(const std::string& engine) const { return IsShaleEngine(engine); }
};

// Registers every built-in scenario (scenarios/builtin.cc: the one list).
// Idempotent. The CLI calls it at start; static registration objects are
// avoided because a static library's linker drops unreferenced ones.
void RegisterBuiltinScenarios();

// Every registered scenario, sorted by name.
const std::vector<const Scenario*>& AllScenarios();
// nullptr if no scenario has that name.
const Scenario* FindScenario(const std::string& name);
// Adds a scenario (tests register doubles of their own). REQUIRES: called
// before any worker starts; the scenario outlives the process.
void RegisterScenario(const Scenario* scenario);

}  // namespace shale::scenario
