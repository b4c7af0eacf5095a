// RunIsolated: see isolated_run.h.
#include "isolated_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <string>

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

[[noreturn]] void Child(const scenario::Scenario& scenario, const scenario::RunConfig& config,
                        int fd) {
  scenario::RunResult result = scenario.Run(config);
  result.trace.clear();
  std::string marks;
  for (const uint64_t mark : result.operation_marks) marks += std::to_string(mark) + " ";
  const bool ok = WriteAll(fd, report::EncodeRunResultLine(result) + "\n" + marks + "\n");
  ::_exit(ok ? 0 : 1);
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
  const size_t newline = output.find('\n');
  scenario::RunResult result;
  std::string error;
  if (newline == std::string::npos ||
      !report::DecodeRunResultLine(std::string_view(output).substr(0, newline), &result, &error)) {
    return CrashedRunFailure(config, DescribeStatus(status), output);
  }
  std::istringstream marks(output.substr(newline + 1));
  for (uint64_t mark; marks >> mark;) result.operation_marks.push_back(mark);
  return result;
}

}  // namespace shale::cli
