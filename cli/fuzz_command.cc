#include "fuzz_command.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "command_table.h"
#include "flag_set.h"
#include "planted_bugs.h"
#include "report/file_io.h"
#include "scenarios/scenario.h"

namespace shale::cli {
namespace {

struct FuzzFlagValues {
  std::string scenario, planted_bugs, fuzzer, out;
  int64_t seconds = 60, jobs = 1;
  bool help = false;
};

void DefineFuzzFlags(FlagSet* f, FuzzFlagValues* v) {
  f->AddString("scenario", &v->scenario, "scenario to fuzz (required)");
  f->AddInt("seconds", &v->seconds, 1, 30 * 24 * 3600, "session length, seconds");
  f->AddInt("jobs", &v->jobs, 1, 1024, "fuzzer worker processes");
  f->AddString("planted_bugs", &v->planted_bugs, "NAME[,NAME]: checker self-test");
  f->AddString("fuzzer", &v->fuzzer, "the target binary (default build-fuzz/fuzz/fuzz_sim_<s>)");
  f->AddString("out", &v->out, "session directory (default fuzz/sessions/sim-<scenario>)");
  f->AddBool("help", &v->help, "print this list");
}

int Usage(std::ostream& err, const std::string& message) {
  err << "shale fuzz: " << message << "\n";
  return kExitUsage;
}

// Runs argv in dir, its output to dir/fuzz.log, with
// SHALE_FUZZ_PLANTED_BUGS=bugs; returns its exit status (128+signal if killed), or -1 with *error if it could not start.
int RunChild(const std::vector<std::string>& argv, const std::string& dir, const std::string& bugs,
             std::string* error) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int log = ::open("fuzz.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0 || ::dup2(log, STDOUT_FILENO) < 0 || ::dup2(log, STDERR_FILENO) < 0) ::_exit(126);
    if (!bugs.empty()) ::setenv("SHALE_FUZZ_PLANTED_BUGS", bugs.c_str(), 1);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::vector<std::string> CrashFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("crash-", 0) == 0) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int RunFuzzCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  scenario::RegisterBuiltinScenarios();
  FuzzFlagValues v;
  FlagSet flags("fuzz");
  DefineFuzzFlags(&flags, &v);
  std::string error;
  if (!flags.Parse(args, &error)) return Usage(err, error);
  if (v.help) {
    out << FuzzUsage();
    return kExitOk;
  }
  if (!flags.positional().empty()) {
    return Usage(err, "unexpected argument '" + flags.positional()[0] + "'");
  }
  if (v.scenario.empty()) return Usage(err, "give --scenario");
  if (scenario::FindScenario(v.scenario) == nullptr) {
    return Usage(err, "unknown scenario '" + v.scenario + "' (see 'shale scenarios')");
  }
  uint64_t bits = 0;
  if (!ParsePlantedBugs(v.planted_bugs, &bits, &error)) return Usage(err, error);
  std::string target = v.scenario;
  std::replace(target.begin(), target.end(), '-', '_');
  std::error_code ec;
  const std::string fuzzer =
      std::filesystem::absolute(v.fuzzer.empty() ? "build-fuzz/fuzz/fuzz_sim_" + target : v.fuzzer,
                                ec)
          .string();
  if (ec || ::access(fuzzer.c_str(), X_OK) != 0) {
    return Usage(err, "no fuzzer binary at " + fuzzer + " (build it: bash fuzz/build)");
  }
  const std::string dir = v.out.empty() ? "fuzz/sessions/sim-" + v.scenario : v.out;
  if (!report::MakeDirectories(dir + "/corpus", &error)) return Usage(err, error);
  // Fork mode: each simulated crash abandons its process's memory on
  // purpose (sim/simulation.h), so one long-lived fuzzing process would
  // grow without bound; libFuzzer's fork mode runs inputs in child
  // processes it restarts, merges their corpora, and stops at the first
  // failing input (an out-of-memory child is ignored and replaced).
  const std::vector<std::string> argv = {fuzzer,
                                         "-max_total_time=" + std::to_string(v.seconds),
                                         "-fork=" + std::to_string(v.jobs),
                                         "-max_len=65536",
                                         "-len_control=0",
                                         "-timeout=60",
                                         "-rss_limit_mb=4096",
                                         "-print_final_stats=1",
                                         "-artifact_prefix=./",
                                         "corpus"};
  out << "shale fuzz: " << v.scenario << " for " << v.seconds << " s, " << v.jobs << " job(s), in "
      << dir << "\n"
      << std::flush;
  const int rc = RunChild(argv, dir, v.planted_bugs, &error);
  if (rc < 0) return Usage(err, error);
  const std::vector<std::string> crashes = CrashFiles(dir);
  const std::string bugs_flag = v.planted_bugs.empty() ? "" : " --planted_bugs " + v.planted_bugs;
  for (const std::string& crash : crashes) {
    out << "failure: " << crash << "\n"
        << "  replay: build/shale replay --scenario " << v.scenario << " --tape " << crash
        << bugs_flag << "\n"
        << "  shrink: build/shale shrink --scenario " << v.scenario << " --tape " << crash
        << bugs_flag << "\n";
  }
  out << "shale fuzz: " << crashes.size() << " failing input(s); fuzzer exit status " << rc
      << " (its log: " << dir << "/fuzz.log)\n";
  return crashes.empty() && rc == 0 ? kExitOk : kExitFailure;
}

std::string FuzzUsage() {
  FuzzFlagValues v;
  FlagSet flags("fuzz");
  DefineFuzzFlags(&flags, &v);
  return "usage: shale fuzz --scenario S --seconds N [flags]\n" + flags.Usage();
}

}  // namespace shale::cli
