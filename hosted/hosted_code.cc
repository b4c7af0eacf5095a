// The hosted-code registry: see hosted_code.h.
#include "hosted/hosted_code.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "sim/simulation.h"

// Defined by interposer.cc, when the executable carries it.
extern "C" __attribute__((weak)) int shale_interposer_marker(void);

namespace shale::hosted {

namespace {

constexpr int kMaxRanges = 32;

struct CodeRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  CodeRole role = CodeRole::kEngine;
};

CodeRange ranges[kMaxRanges];
std::atomic<int> range_count{0};
std::mutex register_mu;  // serializes writers; readers use range_count

struct Search {
  const std::string* fragment;
  CodeRole role;
  int found = 0;
  bool overflow = false;
};

const CodeRange* FindRange(const void* pc) {
  const auto address = reinterpret_cast<uintptr_t>(pc);
  const int n = range_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; i++) {
    if (address >= ranges[i].begin && address < ranges[i].end) return &ranges[i];
  }
  return nullptr;
}

bool Registered(uintptr_t begin) {
  const int n = range_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; i++) {
    if (ranges[i].begin == begin) return true;
  }
  return false;
}

int AddSegments(struct dl_phdr_info* info, size_t, void* arg) {
  auto* search = static_cast<Search*>(arg);
  if (info->dlpi_name == nullptr ||
      std::string(info->dlpi_name).find(*search->fragment) == std::string::npos) {
    return 0;
  }
  search->found++;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (Registered(begin)) continue;
    const int n = range_count.load(std::memory_order_relaxed);
    if (n == kMaxRanges) {
      search->overflow = true;
      return 1;
    }
    ranges[n] = CodeRange{begin, begin + ph.p_memsz, search->role};
    range_count.store(n + 1, std::memory_order_release);
  }
  return 0;
}

// Appends text to a fixed buffer without allocating (signal context), and
// writes it to stderr when full or flushed.
struct SignalLine {
  char text[512];
  size_t size = 0;
  void AddChar(char c) {
    if (size == sizeof(text)) Flush();
    text[size++] = c;
  }
  void Add(const char* s) {
    for (; *s != '\0'; s++) AddChar(*s);
  }
  void AddDecimal(uint64_t v) { AddDigits(v, 10); }
  void AddHex(uintptr_t v) {
    Add("0x");
    AddDigits(v, 16);
  }
  void Flush() {
    const ssize_t written = ::write(STDERR_FILENO, text, size);
    (void)written;
    size = 0;
  }

 private:
  void AddDigits(uint64_t v, uint64_t base) {
    char digits[64];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v != 0);
    while (n > 0) AddChar(digits[--n]);
  }
};

// Where each operation's draws started in the run's tape: enough for a
// shrinker to cut whole operations from a run that dies mid-simulation.
void AddOperationMarks(const sim::ChoiceTape& tape, SignalLine* line) {
  line->Add("engine crash operation marks:");
  for (const uint64_t mark : tape.operation_marks()) {
    line->Add(" ");
    line->AddDecimal(mark);
  }
  line->Add("\n");
}

const char* SignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    default:
      return "SIGFPE";
  }
}

// SA_RESETHAND restored the default action: returning re-runs the faulting
// instruction, which now kills the process as it would have.
void OnFatalSignal(int sig, siginfo_t* info, void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
  const auto pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  const CodeRange* range = FindRange(reinterpret_cast<const void*>(pc));
  if (range == nullptr || range->role != CodeRole::kEngine) return;
  // The marks first: a reader that keeps only the tail of a long report
  // still has the crash line and the tape bytes.
  const sim::ChoiceTape* tape = sim::Simulation::RunningTape();
  SignalLine line;
  if (tape != nullptr) AddOperationMarks(*tape, &line);
  line.Add("engine crashed: ");
  line.Add(SignalName(sig));
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(pc), &where) != 0 && where.dli_fname != nullptr) {
    const char* slash = std::strrchr(where.dli_fname, '/');
    line.Add(" in ");
    line.Add(slash != nullptr ? slash + 1 : where.dli_fname);
    line.Add("+");
    line.AddHex(pc - reinterpret_cast<uintptr_t>(where.dli_fbase));
  }
  line.Add(" (address ");
  line.AddHex(reinterpret_cast<uintptr_t>(info->si_addr));
  line.Add(")\n");
  if (tape != nullptr) {
    line.Add("engine crash after tape bytes: ");
    line.AddDecimal(tape->consumed_bytes());
    line.Add("\n");
  }
  line.Flush();
}

}  // namespace

void ReportHostedCrashes() {
  struct sigaction action {};
  action.sa_sigaction = &OnFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) ::sigaction(sig, &action, nullptr);
}

namespace {

struct LibrarySearch {
  const std::string* fragment;
  std::string path;
};

int FindLibraryPath(struct dl_phdr_info* info, size_t, void* arg) {
  auto* search = static_cast<LibrarySearch*>(arg);
  if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, search->fragment->c_str())) {
    search->path = info->dlpi_name;
    return 1;
  }
  return 0;
}

}  // namespace

std::string LoadedLibraryFile(const std::string& name_fragment) {
  LibrarySearch search{&name_fragment, ""};
  dl_iterate_phdr(&FindLibraryPath, &search);
  std::string path = search.path;
  char resolved[PATH_MAX];
  if (!path.empty() && realpath(path.c_str(), resolved) != nullptr) path = resolved;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status RegisterHostedLibrary(const std::string& name_fragment, CodeRole role) {
  std::lock_guard<std::mutex> lock(register_mu);
  Search search{&name_fragment, role};
  dl_iterate_phdr(&AddSegments, &search);
  if (search.overflow) return Status::InvalidArgument("too many hosted code ranges");
  if (search.found == 0) return Status::NotFound("no loaded library matches", name_fragment);
  return Status::OK();
}

bool IsHostedCode(const void* pc) { return FindRange(pc) != nullptr; }

Status InterposerInEffect() {
  if (&shale_interposer_marker == nullptr) {
    return Status::NotSupported("this program was linked without Shale's interposer");
  }
  Dl_info marker{};
  if (dladdr(reinterpret_cast<void*>(&shale_interposer_marker), &marker) == 0) {
    return Status::NotSupported("cannot locate the interposer");
  }
  for (const char* name : {"pthread_mutex_lock", "pthread_cond_wait", "clock_gettime"}) {
    // The first definition in the global scope is what a library's call
    // binds to: it must be the interposer's, in the executable.
    void* global = dlsym(RTLD_DEFAULT, name);
    Dl_info found{};
    if (global == nullptr || dladdr(global, &found) == 0 || found.dli_fbase != marker.dli_fbase) {
      return Status::NotSupported("a library's call would not reach the interposer", name);
    }
  }
  return Status::OK();
}

namespace {
std::atomic<bool> planted_create_reaches_c_library{false};
}  // namespace

void SetPlantedCreateReachesCLibrary(bool planted) { planted_create_reaches_c_library = planted; }
bool PlantedCreateReachesCLibrary() { return planted_create_reaches_c_library; }

Status PrepareHostedLibrary(const std::string& library) {
  Status s = InterposerInEffect();
  if (s.ok()) s = RegisterHostedLibrary(library);
  if (s.ok()) s = RegisterHostedLibrary("libstdc++.so", CodeRole::kRuntime);
  if (s.ok()) ReportHostedCrashes();
  return s;
}

Status HostingPreparation::Prepare(const std::function<Status()>& prepare) {
  std::call_once(once_, [&] {
    status_ = prepare();
    ready_.store(status_.ok(), std::memory_order_release);
  });
  return status_;
}

}  // namespace shale::hosted
