// Runs a command line in a fresh process (popen, stderr folded into
// stdout) and collects its output and exit code, for tests that drive the
// `shale` binary as a user would.
#pragma once

#include <stdio.h>
#include <sys/wait.h>

#include <string>

namespace shale_test {

struct CommandResult {
  int exit_code = -1;  // -1: it did not exit normally (or could not start)
  std::string out;
};

inline CommandResult RunCommandLine(const std::string& command) {
  CommandResult c;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return c;
  char buf[4096];
  size_t n;
  while ((n = ::fread(buf, 1, sizeof(buf), p)) > 0) c.out.append(buf, n);
  const int status = ::pclose(p);
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return c;
}

}  // namespace shale_test
