#include "worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>

#include "report/run_json.h"
#include <iostream>

namespace shale::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kStdoutKeepBytes = size_t{1} << 20;  // the JSON line is far smaller
constexpr size_t kStderrKeepBytes = 4096;
constexpr int kPollIntervalMs = 50;

struct Running {
  scenario::RunConfig config;
  pid_t pid = -1;
  int out_fd = -1;  // -1 once closed
  int err_fd = -1;
  std::string out;
  std::string err;
  Clock::time_point start;
};

uint64_t ElapsedMs(Clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

// "120 s", or "0.250 s" when not whole seconds.
std::string FormatSeconds(int64_t ms) {
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

// Reads what is available on *fd into *buf, keeping at most keep bytes (the
// tail). Closes *fd at EOF or on a read error.
void Drain(int* fd, std::string* buf, size_t keep) {
  char chunk[8192];
  while (*fd >= 0) {
    const ssize_t n = ::read(*fd, chunk, sizeof(chunk));
    if (n > 0) {
      buf->append(chunk, static_cast<size_t>(n));
      if (buf->size() > 2 * keep) buf->erase(0, buf->size() - keep);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      CloseFd(fd);  // EOF or error
    }
  }
}

void DrainBoth(Running* w) {
  Drain(&w->out_fd, &w->out, kStdoutKeepBytes);
  Drain(&w->err_fd, &w->err, kStderrKeepBytes);
}

// Writes all of text to fd, retrying short writes. Child side only.
bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Child side of fork: runs the seed in this copy of the (single-threaded)
// parent, writes its RunResult as one JSON line to stdout and exits without
// running destructors or atexit handlers (a crashed run abandons its DB).
// Never returns.
[[noreturn]] void RunChild(const scenario::RunConfig& config, int out_fd, int err_fd,
                           pid_t parent) {
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
#else
  (void)parent;
#endif
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  const scenario::Scenario* s = scenario::FindScenario(config.scenario);
  if (s == nullptr) {
    (void)WriteAll(STDERR_FILENO, "unknown scenario '" + config.scenario + "'\n");
    ::_exit(2);
  }
  scenario::RunResult result = s->Run(config);
  result.trace.clear();
  const bool written = WriteAll(STDOUT_FILENO, "\n" + report::EncodeRunResultLine(result) + "\n");
  ::_exit(written ? 0 : 1);
}

// Forks a worker for config. False with *error on failure.
bool Spawn(const scenario::RunConfig& config, Running* w, std::string* error) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return false;
  }
  // Nothing buffered may be written twice (once by the child).
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) RunChild(config, out_pipe[1], err_pipe[1], parent);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return false;
  }
  ::fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  w->pid = pid;
  w->out_fd = out_pipe[0];
  w->err_fd = err_pipe[0];
  w->start = Clock::now();
  return true;
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

scenario::RunResult WorkerFailure(const scenario::RunConfig& config, std::string property,
                                  std::string expected, std::string observed,
                                  const std::string& stderr_text) {
  scenario::RunResult r;
  r.scenario = config.scenario;
  r.seed = config.seed;
  r.passed = false;
  r.failure.property = std::move(property);
  r.failure.expected = std::move(expected);
  r.failure.observed = std::move(observed);
  const std::string last = LastLine(stderr_text);
  r.failure.message = last.empty() ? "(worker wrote nothing to stderr)" : "stderr: " + last;
  return r;
}

std::string DescribeStatus(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status)) + " without a result";
  return "status " + std::to_string(status);
}

// Turns a reaped worker into an outcome.
WorkerOutcome Finish(const Running& w, int status) {
  const scenario::RunConfig& config = w.config;
  WorkerOutcome o;
  o.wall_ms = ElapsedMs(w.start);
  std::string error;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
      report::DecodeRunResultLine(LastLine(w.out), &o.result, &error) &&
      o.result.scenario == config.scenario && o.result.seed == config.seed) {
    return o;
  }
  const std::string observed = WIFEXITED(status) && WEXITSTATUS(status) == 0
                                   ? "exit 0 without a parsable result"
                                   : DescribeStatus(status);
  o.result = WorkerFailure(config, "worker crashed", "a result line", observed, w.err);
  o.trace_hash_known = false;
  return o;
}

WorkerOutcome TimeOut(Running* w, int64_t timeout_ms) {
  ::kill(w->pid, SIGKILL);
  int status = 0;
  while (::waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  DrainBoth(w);
  WorkerOutcome o;
  o.wall_ms = ElapsedMs(w->start);
  const std::string limit = FormatSeconds(timeout_ms);
  o.result = WorkerFailure(w->config, "worker timeout", "a result within " + limit,
                           "none after " + limit + "; killed with signal 9 (SIGKILL)", w->err);
  o.trace_hash_known = false;
  return o;
}

// Polls every open pipe for up to the poll interval (1 ms when some worker
// closed its pipes but is not reaped yet).
void WaitForOutput(std::vector<Running>* running) {
  std::vector<pollfd> fds;
  int wait_ms = kPollIntervalMs;
  for (const Running& w : *running) {
    if (w.out_fd >= 0) fds.push_back({w.out_fd, POLLIN, 0});
    if (w.err_fd >= 0) fds.push_back({w.err_fd, POLLIN, 0});
    if (w.out_fd < 0 && w.err_fd < 0) wait_ms = 1;
  }
  ::poll(fds.data(), fds.size(), wait_ms);
  for (Running& w : *running) DrainBoth(&w);
}

// Starts workers until `jobs` run or next_job has no more; a job whose
// worker cannot be forked is reported at once as a crashed worker.
void StartWorkers(const PoolConfig& config, const NextJobFn& next_job, const OutcomeFn& on_done,
                  std::vector<Running>* running, bool* more) {
  while (*more && running->size() < static_cast<size_t>(config.jobs)) {
    Running w;
    *more = next_job(&w.config);
    if (!*more) return;
    std::string error;
    if (Spawn(w.config, &w, &error)) {
      running->push_back(std::move(w));
      continue;
    }
    on_done(WorkerOutcome{WorkerFailure(w.config, "worker crashed", "a worker process", error, ""),
                          false, 0});
  }
}

// Reaps every finished or overdue worker, reporting each.
void ReapWorkers(const PoolConfig& config, const OutcomeFn& on_done, std::vector<Running>* running) {
  for (size_t i = 0; i < running->size();) {
    Running& w = (*running)[i];
    int status = 0;
    const pid_t reaped = ::waitpid(w.pid, &status, WNOHANG);
    const bool late = static_cast<int64_t>(ElapsedMs(w.start)) > config.timeout_ms;
    if (reaped != w.pid && !late) {
      ++i;
      continue;
    }
    DrainBoth(&w);
    const WorkerOutcome o = reaped == w.pid ? Finish(w, status) : TimeOut(&w, config.timeout_ms);
    CloseFd(&w.out_fd);
    CloseFd(&w.err_fd);
    running->erase(running->begin() + static_cast<ptrdiff_t>(i));
    on_done(o);
  }
}

}  // namespace

void RunWorkers(const PoolConfig& config, const NextJobFn& next_job, const OutcomeFn& on_done) {
  std::vector<Running> running;
  bool more = true;
  StartWorkers(config, next_job, on_done, &running, &more);
  while (!running.empty()) {
    WaitForOutput(&running);
    ReapWorkers(config, on_done, &running);
    StartWorkers(config, next_job, on_done, &running, &more);
  }
}

}  // namespace shale::cli
