#include "worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <sstream>
#include <vector>

#include <cstdlib>
#include <iostream>

#include "report/file_io.h"
#include "report/run_json.h"

namespace shale::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kStdoutKeepBytes = size_t{1} << 20;  // the JSON line is far smaller
constexpr size_t kStderrKeepBytes = 4096;
constexpr int kPollIntervalMs = 50;

struct Running {
  std::vector<scenario::RunConfig> batch;  // in run order
  size_t done = 0;                         // results taken; batch[done] runs
  pid_t pid = -1;
  int out_fd = -1;  // -1 once closed
  int err_fd = -1;
  std::string out;  // stdout not yet parsed into results
  std::string err;
  Clock::time_point start;  // when batch[done] started
  const scenario::RunConfig& config() const { return batch[done]; }
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

// Recheck jobs only (RunConfig::heap_shift): allocations held for the
// worker's life, so a run that reads pointer values sees other ones than
// its first run did. Maps come top-down, so each held map moves the next;
// each held block of a small size takes the next chunk of its size class.
void ShiftHeap(uint32_t steps) {
  constexpr size_t kMapBytes = size_t{1} << 20;
  static std::vector<void*> held;
  for (uint32_t i = 0; i < steps; i++) {
    void* map =
        ::mmap(nullptr, kMapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map != MAP_FAILED) held.push_back(map);
    for (size_t size = 16; size <= 4096; size *= 2) held.push_back(std::malloc(size));
  }
}

// Recheck jobs only: the run's trace, to RunConfig::trace_file, unless its
// hash is the expected one. A write error is a line on stderr.
void WriteTraceFile(const scenario::RunConfig& config, const scenario::RunResult& result) {
  if (config.trace_file.empty()) return;
  if (config.expected_trace_hash && *config.expected_trace_hash == result.trace_hash) return;
  std::string text;
  for (const std::string& line : result.trace) text += line + "\n";
  std::string error;
  if (!report::WriteFileAtomically(config.trace_file, text, &error)) {
    (void)WriteAll(STDERR_FILENO, error + "\n");
  }
}

// Child side of fork: runs the seeds in this copy of the (single-threaded)
// parent, one after another, writing each RunResult as one JSON line to
// stdout, and exits without running destructors or atexit handlers (a
// crashed run abandons its DB). Never returns.
[[noreturn]] void RunChild(const std::vector<scenario::RunConfig>& batch, int out_fd, int err_fd,
                           pid_t parent) {
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
#else
  (void)parent;
#endif
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  for (const scenario::RunConfig& config : batch) {
    const scenario::Scenario* s = scenario::FindScenario(config.scenario);
    if (s == nullptr) {
      (void)WriteAll(STDERR_FILENO, "unknown scenario '" + config.scenario + "'\n");
      ::_exit(2);
    }
    ShiftHeap(config.heap_shift);
    scenario::RunResult result = s->Run(config);
    WriteTraceFile(config, result);
    result.trace.clear();
    if (!WriteAll(STDOUT_FILENO, "\n" + report::EncodeRunResultLine(result) + "\n")) ::_exit(1);
  }
  ::_exit(0);
}

// Forks a worker for w->batch. False with *error on failure.
bool Spawn(Running* w, std::string* error) {
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
  if (pid == 0) RunChild(w->batch, out_pipe[1], err_pipe[1], parent);
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

// Hands on each result line the worker wrote for the seed it runs (other
// lines are noise), and starts the next seed's clock.
void TakeResults(Running* w, const OutcomeFn& on_done) {
  size_t end;
  while (w->done < w->batch.size() && (end = w->out.find('\n')) != std::string::npos) {
    const std::string line = w->out.substr(0, end);
    w->out.erase(0, end + 1);
    WorkerOutcome o;
    std::string error;
    if (!report::DecodeRunResultLine(line, &o.result, &error) ||
        o.result.scenario != w->config().scenario || o.result.seed != w->config().seed) {
      continue;
    }
    o.wall_ms = ElapsedMs(w->start);
    w->done++;
    w->start = Clock::now();
    on_done(o);
  }
}

// The outcome of the seed a reaped worker ran without writing its result.
WorkerOutcome Crashed(const Running& w, int status) {
  WorkerOutcome o;
  o.wall_ms = ElapsedMs(w.start);
  const std::string observed = WIFEXITED(status) && WEXITSTATUS(status) == 0
                                   ? "exit 0 without a parsable result"
                                   : DescribeStatus(status);
  o.result = CrashedRunFailure(w.config(), observed, w.err);
  o.trace_hash_known = false;
  return o;
}

// The outcome of the seed a worker killed for running late was running.
WorkerOutcome TimedOut(const Running& w, int64_t timeout_ms) {
  WorkerOutcome o;
  o.wall_ms = ElapsedMs(w.start);
  const std::string limit = FormatSeconds(timeout_ms);
  o.result = WorkerFailure(w.config(), "worker timeout", "a result within " + limit,
                           "none after " + limit + "; killed with signal 9 (SIGKILL)", w.err);
  o.trace_hash_known = false;
  return o;
}

// Polls every open pipe for up to the poll interval, or 50 us when some
// worker closed its pipes but is not reaped yet: it is exiting, and a seed
// takes a few ms, so a longer wait would idle its slot for a good share.
void WaitForOutput(std::vector<Running>* running) {
  std::vector<pollfd> fds;
  timespec wait{0, kPollIntervalMs * 1'000'000L};
  for (const Running& w : *running) {
    if (w.out_fd >= 0) fds.push_back({w.out_fd, POLLIN, 0});
    if (w.err_fd >= 0) fds.push_back({w.err_fd, POLLIN, 0});
    if (w.out_fd < 0 && w.err_fd < 0) wait = timespec{0, 50'000L};
  }
  ::ppoll(fds.data(), fds.size(), &wait, nullptr);
  for (Running& w : *running) DrainBoth(&w);
}

// Jobs a worker took but never ran (one before them crashed or timed
// out): they go to new workers before any new job.
using Requeued = std::deque<scenario::RunConfig>;

// Starts workers, each with up to seeds_per_worker jobs, until `jobs` run or
// there are no more; a batch whose worker cannot be forked is reported at
// once, each job as a crashed worker.
void StartWorkers(const PoolConfig& config, const NextJobFn& next_job, const OutcomeFn& on_done,
                  std::vector<Running>* running, Requeued* requeued, bool* more) {
  while (running->size() < static_cast<size_t>(config.jobs)) {
    Running w;
    const auto batch_size =
        static_cast<size_t>(std::clamp(config.seeds_per_worker, 1, kMaxSeedsPerWorker));
    while (w.batch.size() < batch_size && (!requeued->empty() || *more)) {
      scenario::RunConfig job;
      if (!requeued->empty()) {
        job = std::move(requeued->front());
        requeued->pop_front();
      } else {
        const NextJob next = next_job(&job);
        if (next == NextJob::kNoMore) *more = false;
        if (next != NextJob::kJob) break;
      }
      w.batch.push_back(std::move(job));
    }
    if (w.batch.empty()) return;
    std::string error;
    if (Spawn(&w, &error)) {
      running->push_back(std::move(w));
      continue;
    }
    for (const scenario::RunConfig& job : w.batch) {
      on_done(WorkerOutcome{WorkerFailure(job, "worker crashed", "a worker process", error, ""),
                            false, 0});
    }
  }
}

// Reaps every finished or overdue worker, reporting each seed it ran; the
// seed it died on is a crash (or timeout), and the ones after it go back
// to *requeued.
void ReapWorkers(const PoolConfig& config, const OutcomeFn& on_done, std::vector<Running>* running,
                 Requeued* requeued) {
  for (size_t i = 0; i < running->size();) {
    Running& w = (*running)[i];
    TakeResults(&w, on_done);
    int status = 0;
    const pid_t reaped = ::waitpid(w.pid, &status, WNOHANG);
    const bool late = static_cast<int64_t>(ElapsedMs(w.start)) > config.timeout_ms;
    if (reaped != w.pid && !late) {
      ++i;
      continue;
    }
    if (reaped != w.pid) {  // late: killed, reaped, and its seed timed out
      ::kill(w.pid, SIGKILL);
      while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    DrainBoth(&w);
    TakeResults(&w, on_done);
    if (w.done < w.batch.size()) {
      on_done(reaped == w.pid ? Crashed(w, status) : TimedOut(w, config.timeout_ms));
      requeued->insert(requeued->end(), w.batch.begin() + static_cast<ptrdiff_t>(w.done + 1),
                       w.batch.end());
    }
    CloseFd(&w.out_fd);
    CloseFd(&w.err_fd);
    running->erase(running->begin() + static_cast<ptrdiff_t>(i));
  }
}

}  // namespace

int SeedsPerWorker(uint64_t total, int jobs) {
  const uint64_t per_worker = total / (4 * static_cast<uint64_t>(std::max(jobs, 1)));
  return static_cast<int>(std::clamp<uint64_t>(per_worker, 1, kMaxSeedsPerWorker));
}

void RunWorkers(const PoolConfig& config, const NextJobFn& next_job, const OutcomeFn& on_done) {
  std::vector<Running> running;
  Requeued requeued;
  bool more = true;
  StartWorkers(config, next_job, on_done, &running, &requeued, &more);
  while (!running.empty()) {
    WaitForOutput(&running);
    ReapWorkers(config, on_done, &running, &requeued);
    StartWorkers(config, next_job, on_done, &running, &requeued, &more);
  }
}

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

std::string DescribeStatus(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status)) + " without a result";
  return "status " + std::to_string(status);
}

namespace {

// Reads what hosted/hosted_code.h's report (in stderr_text, its crash line
// at crash_at) says the crashed run had read of its tape: its bytes, and
// its operation marks if their whole line is there (one per operation
// begun, so also the run's operation count, which the shrinker lowers).
void ReadCrashTapeReport(const std::string& stderr_text, size_t crash_at, scenario::RunResult* r) {
  constexpr std::string_view kTapeBytes = "engine crash after tape bytes: ";
  constexpr std::string_view kMarks = "engine crash operation marks:";
  const size_t tape_at = stderr_text.find(kTapeBytes, crash_at);
  if (tape_at == std::string::npos) return;
  r->tape_bytes = std::strtoull(stderr_text.c_str() + tape_at + kTapeBytes.size(), nullptr, 10);
  const size_t marks_at = stderr_text.rfind(kMarks, crash_at);
  if (marks_at == std::string::npos || (marks_at > 0 && stderr_text[marks_at - 1] != '\n')) {
    return;  // none, or its start cut off
  }
  const size_t marks_end = stderr_text.find('\n', marks_at);
  std::istringstream marks(stderr_text.substr(marks_at + kMarks.size(), marks_end - marks_at));
  for (uint64_t mark; marks >> mark && mark <= r->tape_bytes;) r->operation_marks.push_back(mark);
  r->ops = r->operation_marks.size();
}

}  // namespace

scenario::RunResult CrashedRunFailure(const scenario::RunConfig& config,
                                      const std::string& observed, const std::string& stderr_text) {
  constexpr std::string_view kEngineCrashed = "engine crashed: ";
  const size_t at = stderr_text.find(kEngineCrashed);
  if (at == std::string::npos || (at > 0 && stderr_text[at - 1] != '\n')) {
    return WorkerFailure(config, "worker crashed", "a result line", observed, stderr_text);
  }
  const size_t end = stderr_text.find('\n', at);
  const std::string where =
      stderr_text.substr(at + kEngineCrashed.size(),
                         end == std::string::npos ? end : end - at - kEngineCrashed.size());
  scenario::RunResult r = WorkerFailure(config, "engine crash", "no crash", where, stderr_text);
  r.failure.message = "the engine's code raised " + observed;
  ReadCrashTapeReport(stderr_text, at, &r);
  return r;
}

}  // namespace shale::cli
