#include "replay_command.h"

#include <limits>
#include <optional>

#include "command_table.h"
#include "flag_set.h"
#include "planted_bugs.h"
#include "report/failure_file.h"
#include "report/file_io.h"
#include "report/run_json.h"
#include "report/tape_codec.h"
#include "seed_range.h"

namespace shale::cli {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

struct ReplayFlagValues {
  std::string scenario, seed, strategy, faults, planted_bugs, tape;
  int64_t ops = 0, crashes = 3;
  bool trace = false, from_seed = false, help = false;
};

void DefineReplayFlags(FlagSet* f, ReplayFlagValues* v) {
  f->AddString("scenario", &v->scenario, "scenario name (instead of FILE)");
  f->AddString("seed", &v->seed, "seed (with --scenario)");
  f->AddString("tape", &v->tape, "choice-tape file to run (with --scenario; e.g. a fuzzer's crash)");
  f->AddBool("from_seed", &v->from_seed, "replay FILE from its seed, not its tape");
  f->AddInt("ops", &v->ops, 0, kIntMax, "workload operations; 0 = scenario default");
  f->AddInt("crashes", &v->crashes, -1, kIntMax, "crashes; -1 = scenario default");
  f->AddString("strategy", &v->strategy, "scheduler: random, pct, or empty = drawn from seed");
  f->AddString("faults", &v->faults, "I/O faults: on, off, or empty = drawn from seed");
  f->AddString("planted_bugs", &v->planted_bugs, "NAME[,NAME]: checker self-test (see below)");
  f->AddBool("trace", &v->trace, "print the event trace");
  f->AddBool("help", &v->help, "print this list");
}

struct ReplayPlan {
  scenario::RunConfig config;
  std::optional<uint64_t> expected_hash;
};

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

bool PlanFromFile(const std::string& path, bool from_seed, ReplayPlan* plan,
                  std::string* error) {
  std::string text;
  report::FailureFile file;
  if (!report::ReadWholeFile(path, &text, error)) return false;
  if (!report::DecodeFailureFile(text, &file, error)) return Fail(error, path + ": " + *error);
  plan->config = file.config;
  if (from_seed) plan->config.tape.reset();
  plan->expected_hash = file.trace_hash;
  return true;
}

bool PlanFromFlags(const ReplayFlagValues& v, ReplayPlan* plan, std::string* error) {
  if (v.scenario.empty() || (v.seed.empty() == v.tape.empty())) {
    return Fail(error, "give a failure FILE, or --scenario and one of --seed or --tape");
  }
  scenario::RunConfig& c = plan->config;
  c.scenario = v.scenario;
  if (!v.tape.empty()) {
    std::string tape;
    if (!report::ReadWholeFile(v.tape, &tape, error)) return false;
    if (tape.size() > report::kMaxTapeBytes) {
      return Fail(error, v.tape + ": a tape of " + std::to_string(tape.size()) +
                             " bytes is over the limit of " +
                             std::to_string(report::kMaxTapeBytes));
    }
    c.tape = std::move(tape);
  } else if (!ParseUint64(v.seed, &c.seed)) {
    return Fail(error, "bad value for --seed: '" + v.seed + "'");
  }
  if (!ParsePlantedBugs(v.planted_bugs, &c.planted_bugs, error)) return false;
  if (v.strategy != "" && v.strategy != "random" && v.strategy != "pct") {
    return Fail(error, "unknown strategy '" + v.strategy + "' (want random or pct)");
  }
  c.ops = static_cast<int>(v.ops);
  c.crashes = static_cast<int>(v.crashes);
  c.strategy = v.strategy;
  c.faults = v.faults;
  return true;
}

// Parses args into *plan; false with one line in *error. *help on --help.
bool Plan(std::span<const std::string> args, ReplayPlan* plan, bool* help, std::string* error) {
  ReplayFlagValues v;
  FlagSet flags("replay");
  DefineReplayFlags(&flags, &v);
  if (!flags.Parse(args, error)) return false;
  *help = v.help;
  if (v.help) return true;
  const auto& pos = flags.positional();
  if (pos.size() > 1) return Fail(error, "unexpected argument '" + pos[1] + "'");
  if (pos.size() == 1 && !v.scenario.empty()) return Fail(error, "give FILE or --scenario, not both");
  if (pos.empty() && v.from_seed) return Fail(error, "--from_seed needs a failure FILE");
  if (pos.size() == 1 ? !PlanFromFile(pos[0], v.from_seed, plan, error)
                      : !PlanFromFlags(v, plan, error)) {
    return false;
  }
  plan->config.trace = v.trace;
  if (scenario::FindScenario(plan->config.scenario) == nullptr) {
    return Fail(error, "unknown scenario '" + plan->config.scenario + "' (see 'shale scenarios')");
  }
  return true;
}

void PrintResult(const scenario::RunResult& r, std::ostream& out) {
  out << "verdict: " << (r.passed ? "PASS" : "FAIL") << "\n"
      << "trace_hash: " << report::TraceHashHex(r.trace_hash) << "\n"
      << "ops " << r.ops << ", crashes " << r.crashes << ", steps " << r.steps
      << ", simulated time " << r.sim_time_ns << " ns\n";
  if (!r.passed) out << "failure: " << report::DescribeFailure(r.failure) << "\n";
  if (r.trace.empty()) return;
  out << "trace (" << r.trace.size() << " events):\n";
  for (const std::string& line : r.trace) out << "  " << line << "\n";
}

}  // namespace

int RunReplayCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  scenario::RegisterBuiltinScenarios();
  ReplayPlan plan;
  bool help = false;
  std::string error;
  if (!Plan(args, &plan, &help, &error)) {
    err << "shale replay: " << error << "\n";
    return kExitUsage;
  }
  if (help) {
    out << ReplayUsage();
    return kExitOk;
  }
  const scenario::RunConfig& c = plan.config;
  out << "replay " << c.scenario
      << (c.tape ? " tape of " + std::to_string(c.tape->size()) + " bytes"
                 : " seed " + std::to_string(c.seed))
      << " (ops " << c.ops << ", crashes "
      << c.crashes << ", strategy \"" << c.strategy << "\""
      << (c.planted_bugs ? ", planted bugs " + PlantedBugNames(c.planted_bugs) : "") << ")\n";
  const scenario::RunResult result = scenario::FindScenario(c.scenario)->Run(c);
  PrintResult(result, out);
  if (plan.expected_hash && *plan.expected_hash != result.trace_hash) {
    out << "NONDETERMINISM: trace_hash " << report::TraceHashHex(result.trace_hash)
        << " differs from the failure file's " << report::TraceHashHex(*plan.expected_hash)
        << ": the same seed took a different path\n";
    err << "shale replay: NONDETERMINISM: trace_hash differs from the failure file\n";
    return kExitFailure;
  }
  if (plan.expected_hash) out << "trace_hash matches the failure file\n";
  return result.passed ? kExitOk : kExitFailure;
}

std::string ReplayUsage() {
  ReplayFlagValues v;
  FlagSet flags("replay");
  DefineReplayFlags(&flags, &v);
  return "  FILE                  a failure file (DIR/failures/<scenario>-<seed>.json)\n" +
         flags.Usage() + PlantedBugsUsage();
}

}  // namespace shale::cli
