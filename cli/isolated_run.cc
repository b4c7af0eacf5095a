// RunIsolated: see isolated_run.h.
#include "isolated_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "report/run_json.h"
#include "worker_pool.h"

namespace shale::cli {

namespace {

std::string ReadAllFrom(int fd) {
  std::string out;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buffer, static_cast<size_t>(n));
  }
}

// Marks a trace line in the child's output.
constexpr std::string_view kTraceMark = "T ";

[[noreturn]] void Child(const scenario::Scenario& scenario, scenario::RunConfig config, int fd) {
  // The trace goes out as the run makes it, so it outlives a crash.
  if (config.trace) {
    config.trace_line = [fd](const std::string& line) {
      (void)WriteAll(fd, std::string(kTraceMark) + line + "\n");
    };
  }
  scenario::RunResult result = scenario.Run(config);
  result.trace.clear();
  std::string marks;
  for (const uint64_t mark : result.operation_marks) marks += std::to_string(mark) + " ";
  const bool ok = WriteAll(fd, report::EncodeRunResultLine(result) + "\n" + marks + "\n");
  ::_exit(ok ? 0 : 1);
}

// The child's output, line by line: its trace lines as the run made them,
// its result line and then its marks line, and whatever it printed on
// stderr (an engine's crash lines) wherever that fell.
scenario::RunResult ParseChildOutput(const scenario::RunConfig& config, const std::string& output,
                                     int status) {
  std::vector<std::string> trace;
  std::string other;
  scenario::RunResult result;
  bool have_result = false, have_marks = false;
  std::istringstream in(output);
  for (std::string line, error; std::getline(in, line);) {
    if (line.rfind(kTraceMark, 0) == 0) {
      trace.push_back(line.substr(kTraceMark.size()));
    } else if (!have_result && report::DecodeRunResultLine(line, &result, &error)) {
      have_result = true;
    } else if (have_result && !have_marks) {
      have_marks = true;
      std::istringstream marks(line);
      for (uint64_t mark; marks >> mark;) result.operation_marks.push_back(mark);
    } else {
      other += line + "\n";
    }
  }
  if (!have_result) result = CrashedRunFailure(config, DescribeStatus(status), other);
  result.trace = std::move(trace);
  return result;
}

}  // namespace

scenario::RunResult RunIsolated(const scenario::Scenario& scenario,
                                const scenario::RunConfig& config) {
  int fds[2];
  if (::pipe(fds) != 0) {
    return CrashedRunFailure(config, std::string("pipe: ") + std::strerror(errno), "");
  }
  const pid_t pid = ::fork();
  if (pid < 0) return CrashedRunFailure(config, std::string("fork: ") + std::strerror(errno), "");
  if (pid == 0) {
    ::close(fds[0]);
    // What the child prints on stderr (an engine's crash line) follows
    // its result, if any, on the same pipe.
    ::dup2(fds[1], STDERR_FILENO);
    Child(scenario, config, fds[1]);
  }
  ::close(fds[1]);
  const std::string output = ReadAllFrom(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return ParseChildOutput(config, output, status);
}

scenario::RunResult RunForCommand(const scenario::Scenario& scenario,
                                  const scenario::RunConfig& config) {
  return scenario::IsShaleEngine(config.engine) ? scenario.Run(config)
                                                : RunIsolated(scenario, config);
}

}  // namespace shale::cli
