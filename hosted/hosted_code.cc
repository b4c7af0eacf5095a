// The hosted-code registry: see hosted_code.h.
#include "hosted/hosted_code.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <mutex>

// Defined by interposer.cc, when the executable carries it.
extern "C" __attribute__((weak)) int shale_interposer_marker(void);

namespace shale::hosted {

namespace {

constexpr int kMaxRanges = 32;

struct CodeRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

CodeRange ranges[kMaxRanges];
std::atomic<int> range_count{0};
std::mutex register_mu;  // serializes writers; readers use range_count

struct Search {
  const std::string* fragment;
  int found = 0;
  bool overflow = false;
};

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
    ranges[n] = CodeRange{begin, begin + ph.p_memsz};
    range_count.store(n + 1, std::memory_order_release);
  }
  return 0;
}

}  // namespace

Status RegisterHostedLibrary(const std::string& name_fragment) {
  std::lock_guard<std::mutex> lock(register_mu);
  Search search{&name_fragment};
  dl_iterate_phdr(&AddSegments, &search);
  if (search.overflow) return Status::InvalidArgument("too many hosted code ranges");
  if (search.found == 0) return Status::NotFound("no loaded library matches", name_fragment);
  return Status::OK();
}

bool IsHostedCode(const void* pc) {
  const auto address = reinterpret_cast<uintptr_t>(pc);
  const int n = range_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; i++) {
    if (address >= ranges[i].begin && address < ranges[i].end) return true;
  }
  return false;
}

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

}  // namespace shale::hosted
