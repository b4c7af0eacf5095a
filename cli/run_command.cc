#include "run_command.h"

#include <unistd.h>

#include "command_table.h"
#include "flag_set.h"
#include "isolated_run.h"
#include "report/file_io.h"
#include "report/html_page.h"
#include "report/report_merge.h"
#include "report/report_reader.h"
#include "run_summary.h"
#include "run_target.h"
#include "scenarios/scenario.h"
#include "util/probes.h"
#include "worker_pool.h"

namespace shale::cli {
namespace {

int UsageError(std::ostream& err, const std::string& command, const std::string& message) {
  err << "shale " << command << ": " << message << "\n";
  return kExitUsage;
}

}  // namespace

int RunRunCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  return RunRunCommandAs("run", args, out, err);
}

int RunRunCommandAs(const char* command, std::span<const std::string> args, std::ostream& out,
                    std::ostream& err) {
  CampaignEnv env;
  env.terminal = ::isatty(STDERR_FILENO) == 1;
  env.command = command;
  return RunRunCommandWith(args, env, out, err);
}

int RunRunCommandWith(std::span<const std::string> args, const CampaignEnv& env, std::ostream& out,
                      std::ostream& err) {
  scenario::RegisterBuiltinScenarios();
  RunOptions options;
  std::string error;
  switch (ParseRunFlags(args, &options, &error)) {
    case RunParse::kUsageError:
      return UsageError(err, env.command, error);
    case RunParse::kHelp:
      out << RunUsage();
      return kExitOk;
    case RunParse::kRun:
      break;
  }
  if (!report::MakeDirectories(options.out_dir + "/failures", &error)) {
    return UsageError(err, env.command, error);
  }
  CampaignResult result;
  if (!RunCampaign(options, env, err, &result, &error)) return UsageError(err, env.command, error);
  PrintRunSummary(result.tally, result.wall_ms, ReportPath(options.out_dir), out);
  const std::string html = HtmlPathBeside(ReportPath(options.out_dir));
  out << (WriteReportHtml(ReportPath(options.out_dir), html, &error) ? "page: " + html
                                                                     : "report.html: " + error)
      << "\n";
  const uint64_t planned = ShardSeedCount(options.seeds, options.shard) * options.scenarios.size();
  if (result.tally.totals().seeds < planned) {
    out << "  stopped at --max_failures " << options.max_failures << ": "
        << result.tally.totals().seeds << " of " << planned << " seeds run\n";
  }
  const std::vector<std::string> missing =
      MissingProbes(result.tally.totals(), options.required_probes);
  if (!missing.empty()) {
    std::string list;
    for (const std::string& name : missing) list += " " + name;
    out << "  FAILED --require_probes: " << missing.size() << " required probe"
        << (missing.size() == 1 ? "" : "s")
        << " never hit (only simulated seeds count them):" << list << "\n";
  }
  return result.tally.totals().failed == 0 && missing.empty() ? kExitOk : kExitFailure;
}

int RunProbesCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (!args.empty()) return UsageError(err, "probes", "takes no arguments");
  for (const probes::ProbeInfo& p : probes::kProbes) out << p.name << "\n  " << p.what << "\n";
  return kExitOk;
}

int RunScenariosCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (!args.empty()) return UsageError(err, "scenarios", "takes no arguments");
  scenario::RegisterBuiltinScenarios();
  const auto& all = scenario::AllScenarios();
  if (all.empty()) {
    out << "no scenarios are registered yet (scenarios/builtin.cc lists none)\n";
    return kExitOk;
  }
  for (const scenario::Scenario* s : all) {
    out << s->name() << "\n  " << s->summary() << "\n  properties:";
    const std::vector<std::string> properties = s->properties();
    for (size_t i = 0; i < properties.size(); ++i) out << (i ? ", " : " ") << properties[i];
    out << "\n  engines:";
    const char* sep = " ";
    for (const std::string& engine : scenario::EngineNames()) {
      if (!s->RunsOn(engine)) continue;
      out << sep << engine;
      sep = ", ";
    }
    out << "\n";
  }
  return kExitOk;
}

namespace {

// A failed seed's event trace: its failure file (named by the replay
// command) replayed with the trace on, as replay runs it (RunForCommand: a
// hosted engine's run in a child of its own, so its threads and the
// library's process-wide state never reach this process, whose exit would
// otherwise run the library's static destructors over them). Empty for a
// real run, a seed whose worker died, or a file that cannot be read.
std::vector<std::string> TraceOf(const report::SeedEntry& e) {
  const std::vector<std::string> file{report::FailureFileOfReplay(e.replay)};
  if (!e.result.deterministic || !e.trace_hash_known || file[0].empty()) return {};
  RunTarget target;
  std::string error;
  if (!ResolveRunTarget(file, RunTargetFlags{}, false, &target, &error)) return {};
  const scenario::Scenario* s = scenario::FindScenario(target.config.scenario);
  if (s == nullptr) return {};
  target.config.trace = true;
  return RunForCommand(*s, target.config).trace;
}

}  // namespace

std::string HtmlPathBeside(const std::string& report_path) {
  const size_t slash = report_path.rfind('/');
  return (slash == std::string::npos ? "" : report_path.substr(0, slash + 1)) + "report.html";
}

bool WriteReportHtml(const std::string& report_path, const std::string& html_path,
                     std::string* error) {
  report::ReportHeader header;
  report::HtmlDigest digest;
  const auto add = [&digest](const report::SeedEntry& e, std::string_view, std::string*) {
    digest.Add(e);
    return true;
  };
  if (!report::ReadReportFile(report_path, &header, add, error)) return false;
  std::vector<report::FailureTrace> traces;
  const std::vector<report::SeedEntry>& failed = digest.tally().kept_failures();
  for (size_t i = 0; i < failed.size() && i < report::kMaxTimelines; i++) {
    traces.push_back({failed[i].result.scenario, failed[i].result.seed, TraceOf(failed[i])});
  }
  return report::WriteFileAtomically(html_path, report::RenderHtmlReport(header, digest, traces),
                                     error);
}

namespace {

// `shale report html REPORT.json [--out FILE]`.
int RenderReportHtml(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  std::string out_path;
  FlagSet flags("report html");
  flags.AddString("out", &out_path, "the page to write (default: report.html beside REPORT.json)");
  std::string error;
  if (!flags.Parse(args.subspan(1), &error)) return UsageError(err, "report html", error);
  if (flags.positional().size() != 1) {
    return UsageError(err, "report html", "want 'report html REPORT.json [--out FILE]'");
  }
  const std::string& input = flags.positional()[0];
  if (out_path.empty()) out_path = HtmlPathBeside(input);
  scenario::RegisterBuiltinScenarios();
  if (!WriteReportHtml(input, out_path, &error)) return UsageError(err, "report html", error);
  out << "report: " << out_path << "\n";
  return kExitOk;
}

}  // namespace

int RunReportCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && args[0] == "html") return RenderReportHtml(args, out, err);
  if (args.empty() || args[0] != "merge") {
    return UsageError(err, "report",
                      "want 'report merge OUT.json IN1.json [IN2.json ...]' or 'report html "
                      "REPORT.json [--out FILE]'");
  }
  if (args.size() < 3)
    return UsageError(err, "report merge", "needs OUT.json and at least one input");
  const std::vector<std::string> names(args.begin() + 2, args.end());
  report::Totals t;
  std::string error;
  if (!report::MergeReportFiles(names, args[1], &t, &error)) {
    return UsageError(err, "report merge", error);
  }
  out << "merged " << names.size() << " reports into " << args[1] << ": " << t.seeds << " seeds, "
      << t.passed << " passed, " << t.failed << " failed\n";
  return kExitOk;
}

std::string ReportUsage() {
  return "  merge OUT.json IN1.json [IN2.json ...]   join shard reports (entries sorted by\n"
         "                                          scenario, seed; totals recomputed)\n"
         "  html REPORT.json [--out FILE]            render it as one self-contained page\n"
         "                                          (default: report.html beside it)\n";
}

}  // namespace shale::cli
