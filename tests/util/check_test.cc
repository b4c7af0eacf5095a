// SHALE_CHECK stays on in every build type: a failed check aborts with
// its file, line and condition on stderr. This suite's build defines
// NDEBUG in its release configurations, so the test shows the check
// survives where assert() is gone.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "util/check.h"

namespace {

// Runs fn in a child process with stderr on a pipe; returns what it wrote
// and sets *status to its wait status.
template <typename Fn>
std::string RunInChild(Fn fn, int* status) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], STDERR_FILENO);
    fn();
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof(buf))) > 0;)
    err.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  REQUIRE(::waitpid(pid, status, 0) == pid);
  return err;
}

}  // namespace

TEST_CASE("a failed SHALE_CHECK aborts with its location and condition", "[util][check]") {
  volatile int sequence = 7;
  int status = 0;
  const std::string err = RunInChild([&] { SHALE_CHECK(sequence < 5); }, &status);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  CHECK(err.find("shale: check failed at ") == 0);
  CHECK(err.find("check_test.cc:") != std::string::npos);
  CHECK(err.find("sequence < 5") != std::string::npos);
}

TEST_CASE("a SHALE_CHECK that holds does nothing", "[util][check]") {
  volatile int sequence = 3;
  int status = 0;
  const std::string err = RunInChild([&] { SHALE_CHECK(sequence < 5); }, &status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(err.empty());
}
