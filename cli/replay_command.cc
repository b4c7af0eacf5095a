#include "replay_command.h"

#include "command_table.h"
#include "flag_set.h"
#include "isolated_run.h"
#include "planted_bugs.h"
#include "report/run_json.h"
#include "run_target.h"

namespace shale::cli {
namespace {

// At most this many tries of one replay.
constexpr int64_t kMaxTries = 10'000;

struct ReplayFlagValues {
  RunTargetFlags target;
  bool trace = false, from_seed = false, help = false;
  int64_t tries = 1;
};

void DefineReplayFlags(FlagSet* f, ReplayFlagValues* v) {
  DefineRunTargetFlags(f, &v->target);
  f->AddBool("from_seed", &v->from_seed, "replay FILE from its seed, not its tape");
  f->AddBool("trace", &v->trace, "print the event trace");
  f->AddInt("tries", &v->tries, 1, kMaxTries,
            "run up to N times until the failure reproduces (a real-backend run is not "
            "deterministic)");
  f->AddBool("help", &v->help, "print this list");
}

// Parses args into *plan; false with one line in *error. *help on --help.
bool Plan(std::span<const std::string> args, RunTarget* plan, int64_t* tries, bool* help,
          std::string* error) {
  ReplayFlagValues v;
  FlagSet flags("replay");
  DefineReplayFlags(&flags, &v);
  if (!flags.Parse(args, error)) return false;
  *help = v.help;
  if (v.help) return true;
  if (!ResolveRunTarget(flags.positional(), v.target, v.from_seed, plan, error)) return false;
  plan->config.trace = v.trace;
  *tries = v.tries;
  return true;
}

void PrintResult(const scenario::RunResult& r, std::ostream& out) {
  out << "verdict: " << (r.passed ? "PASS" : "FAIL") << "\n"
      << "trace_hash: "
      << (r.deterministic ? report::TraceHashHex(r.trace_hash) : "none (a real run)") << "\n"
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
  RunTarget plan;
  int64_t tries = 1;
  bool help = false;
  std::string error;
  if (!Plan(args, &plan, &tries, &help, &error)) {
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
      << " (ops " << c.ops << ", crashes " << c.crashes << ", strategy \"" << c.strategy << "\""
      << (c.planted_bugs ? ", planted bugs " + PlantedBugNames(c.planted_bugs) : "") << ")\n";
  const scenario::Scenario* scenario = scenario::FindScenario(c.scenario);
  scenario::RunResult result = RunForCommand(*scenario, c);
  // A failure reproduces when it fails on the file's property (any, from
  // a seed alone).
  const auto reproduced = [&plan](const scenario::RunResult& r) {
    return !r.passed && (!plan.expected_property || r.failure.property == *plan.expected_property);
  };
  int64_t tried = 1;
  for (; tried < tries && !reproduced(result); tried++) result = RunForCommand(*scenario, c);
  PrintResult(result, out);
  if (tries > 1) {
    out << (reproduced(result)
                ? "reproduced on try " + std::to_string(tried) + " of " + std::to_string(tries)
                : "not reproduced in " + std::to_string(tries) + " tries")
        << "\n";
  }
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
