#include "shrink_command.h"

#include <cstdio>
#include <limits>

#include "command_table.h"
#include "flag_set.h"
#include "isolated_run.h"
#include "planted_bugs.h"
#include "report/failure_file.h"
#include "report/file_io.h"
#include "report/run_json.h"
#include "run_target.h"
#include "shrinker.h"

namespace shale::cli {
namespace {

struct ShrinkFlagValues {
  RunTargetFlags target;
  std::string out;
  int64_t max_seconds = 60;
  bool help = false;
};

void DefineShrinkFlags(FlagSet* f, ShrinkFlagValues* v) {
  DefineRunTargetFlags(f, &v->target);
  f->AddString("out", &v->out,
               "the shrunk failure file (default FILE.shrunk.json, or TAPE.shrunk.json)");
  f->AddInt("max_seconds", &v->max_seconds, 1, 24 * 3600, "time limit, seconds");
  f->AddBool("help", &v->help, "print this list");
}

std::string DefaultOut(const std::string& path) {
  const std::string suffix = ".json";
  const bool has = path.size() > suffix.size() &&
                   path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (has ? path.substr(0, path.size() - suffix.size()) : path) + ".shrunk.json";
}

// The trace lines a story keeps: workload operations, preemptions and what
// a crash, a recovery or a check did (not scheduling, timers or I/O calls).
bool InStory(const std::string& line) {
  for (const char* prefix : {"client", "writer", "reader", "snapshot", "crash", "disk:", "check:",
                             "recovery", "recovered", "windows rule", "device rule", "close failed",
                             "observed dropped", "preempted", "cut short"}) {
    if (line.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool Fail(std::ostream& err, const std::string& message) {
  err << "shale shrink: " << message << "\n";
  return false;
}

bool WriteShrunk(const std::string& path, const ShrinkOutcome& o, std::ostream& err) {
  report::FailureFile f;
  f.config = o.shrunk;
  f.ops_done = o.shrunk_result.ops;
  f.trace_hash = o.shrunk_result.trace_hash;
  f.failure = o.shrunk_result.failure;
  f.options_drawn = o.shrunk_result.options_drawn;
  f.replay = "build/shale replay " + path;
  std::string error;
  if (!report::WriteFileAtomically(path, report::EncodeFailureFile(f), &error)) {
    return Fail(err, error);
  }
  return true;
}

}  // namespace

std::vector<std::string> StoryOf(const scenario::RunResult& traced) {
  std::vector<std::string> story;
  for (const std::string& line : traced.trace) {
    if (InStory(line)) story.push_back(std::to_string(story.size() + 1) + ". " + line);
  }
  for (const auto& [kind, count] : traced.faults_by_kind) {
    story.push_back(std::to_string(story.size() + 1) + ". fault injected: " + kind + " x" +
                    std::to_string(count));
  }
  if (!traced.passed) {
    const scenario::Failure& f = traced.failure;
    story.push_back(std::to_string(story.size() + 1) + ". FAILED " + f.property + ": " + f.message +
                    (f.key.empty() ? "" : "; key " + f.key) + "; expected " + f.expected +
                    ", observed " + f.observed);
  }
  return story;
}

int RunShrinkCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  scenario::RegisterBuiltinScenarios();
  ShrinkFlagValues v;
  FlagSet flags("shrink");
  DefineShrinkFlags(&flags, &v);
  std::string error;
  if (!flags.Parse(args, &error)) {
    err << "shale shrink: " << error << "\n";
    return kExitUsage;
  }
  if (v.help) {
    out << ShrinkUsage();
    return kExitOk;
  }
  const auto& pos = flags.positional();
  RunTarget target;
  if (!ResolveRunTarget(pos, v.target, /*from_seed=*/false, &target, &error)) {
    err << "shale shrink: " << error << "\n";
    return kExitUsage;
  }
  const std::string named = pos.empty() ? v.target.tape : pos[0];
  if (named.empty() && v.out.empty()) {
    err << "shale shrink: give --out for a run named by --seed\n";
    return kExitUsage;
  }
  const std::string out_path = v.out.empty() ? DefaultOut(named) : v.out;
  ShrinkOptions options;
  options.max_seconds = static_cast<double>(v.max_seconds);
  options.progress = [&err](const ShrinkProgress& p) {
    char line[160];
    std::snprintf(line, sizeof(line),
                  "shale shrink: %.0f s, %llu runs, smallest: %llu ops, %llu tape bytes\n",
                  p.seconds, static_cast<unsigned long long>(p.runs),
                  static_cast<unsigned long long>(p.ops),
                  static_cast<unsigned long long>(p.tape_bytes));
    err << line << std::flush;
  };
  ShrinkOutcome o;
  if (!Shrink(target.config, options, &o, &error)) {
    err << "shale shrink: " << (named.empty() ? "the run" : named) << ": " << error << "\n";
    return kExitUsage;
  }
  if (!WriteShrunk(out_path, o, err)) return kExitUsage;
  out << "shrunk " << o.original.scenario << " failure '" << o.shrunk_result.failure.property
      << "': ops " << o.original_result.ops << " -> " << o.shrunk_result.ops << ", crashes "
      << o.original_result.crashes << " -> " << o.shrunk_result.crashes << ", tape "
      << o.original.tape->size() << " -> " << o.shrunk.tape->size() << " bytes (" << o.runs
      << " runs, " << static_cast<int>(o.seconds + 0.5) << " s)\n"
      << "wrote " << out_path << " (replay: build/shale replay " << out_path << ")\n";
  scenario::RunConfig traced = o.shrunk;
  traced.trace = true;
  const scenario::RunResult story_run =
      RunForCommand(*scenario::FindScenario(traced.scenario), traced);
  out << "story:\n";
  for (const std::string& line : StoryOf(story_run)) out << "  " << line << "\n";
  return kExitOk;
}

std::string ShrinkUsage() {
  ShrinkFlagValues v;
  FlagSet flags("shrink");
  DefineShrinkFlags(&flags, &v);
  return "  FILE                  a failure file (DIR/failures/<scenario>-<seed>.json)\n" +
         flags.Usage() + PlantedBugsUsage();
}

}  // namespace shale::cli
