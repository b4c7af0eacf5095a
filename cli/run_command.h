// `shale run`, `shale scenarios`, `shale probes` and `shale report merge|html`: the campaign-side
// subcommands (flags: run_flags.h; work: campaign.h).
//
// Exit codes (command_table.h): run — 0 all passed, 1 a seed failed, 2 bad
// usage/input or the output directory is unwritable; scenarios — 0 (2 on
// arguments); report merge — 0, or 2 on unreadable/malformed input or an
// unwritable OUT.
// Thread safety: call from one thread.
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>

#include "campaign.h"

namespace shale::cli {

int RunRunCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);
// As RunRunCommand, for a command that runs campaigns under another name:
// its usage errors say "shale <command>: ...".
int RunRunCommandAs(const char* command, std::span<const std::string> args, std::ostream& out,
                    std::ostream& err);
// As RunRunCommand, with the worker binary and terminal-ness given (tests).
int RunRunCommandWith(std::span<const std::string> args, const CampaignEnv& env, std::ostream& out,
                      std::ostream& err);

// report.html beside the report.json at report_path.
std::string HtmlPathBeside(const std::string& report_path);
// Renders the report at report_path as report.html (report/html_report.h)
// at html_path, written whole. The report is read one entry at a time
// (report_reader.h), so memory does not grow with its seeds. The first
// failures' timelines come from replaying their failure files here with
// the trace on (simulated runs only). False with one line in *error.
// REQUIRES: scenarios registered.
[[nodiscard]] bool WriteReportHtml(const std::string& report_path, const std::string& html_path,
                                   std::string* error);

// `shale probes`: every coverage probe (util/probes.h), a name and a line each.
int RunProbesCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);
int RunScenariosCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);

// `shale report merge OUT.json IN1.json [IN2.json ...]`.
int RunReportCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);
std::string ReportUsage();

}  // namespace shale::cli
