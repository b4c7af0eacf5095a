// HostCostFs: the modeled Env's system calls and the host that runs them.
// See host_cost_fs.h.
#include "sim/disk/host_cost_fs.h"

#include <algorithm>
#include <cassert>

namespace shale::sim {

EnvOpenModel EnvOpenModel::RocksDb59() {
  EnvOpenModel m;
  m.name = "rocksdb-5.9";
  m.separate_fcntl_cloexec = true;
  m.stat_for_size = true;
  m.fadvise_random = true;
  m.discovery = BlockSizeDiscovery::kPerOpen;
  m.discovery_without_direct_io = true;
  m.table_open_reads = 5;
  return m;
}

EnvOpenModel EnvOpenModel::Shale() {
  EnvOpenModel m;
  m.name = "shale";
  m.discovery = BlockSizeDiscovery::kOncePerDirectory;
  return m;
}

HostModel HostModel::LoadedNvmeHost(const EnvOpenModel& env) {
  HostModel h;
  h.cores = 40;
  h.queue_depth = 32;
  h.device_read_ns = 90'000;
  h.device_read_per_kib_ns = 2'500;  // 4 KiB: 100 us
  h.costs.open_ns = 30'000;
  h.costs.close_ns = 10'000;
  h.costs.fcntl_ns = 5'000;
  h.costs.stat_ns = 15'000;
  h.costs.lstat_ns = 125'000;
  h.costs.read_ns = 20'000;
  h.costs.fadvise_ns = 5'000;
  h.costs.pread_cpu_ns = 10'000;
  h.path_components = 8;
  h.env = env;
  return h;
}

namespace {

bool IsTableFile(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".sst") == 0;
}

// A handle whose reads are preads on the modeled host.
class CostedFile final : public RandomAccessFileWrapper {
 public:
  CostedFile(std::unique_ptr<RandomAccessFile> file, HostCostFs* host, bool table_file)
      : RandomAccessFileWrapper(std::move(file)), host_(host), table_file_(table_file) {}
  ~CostedFile() override {
    host_->Syscall("close", host_->model().costs.close_ns, /*wait=*/false);
    if (table_file_) host_->TableFileClosed();
  }

  Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    host_->Syscall("pread", host_->model().costs.pread_cpu_ns);
    host_->DeviceRead(n);
    return RandomAccessFileWrapper::Read(offset, n, result, scratch);
  }

 private:
  HostCostFs* const host_;
  const bool table_file_;
};

}  // namespace

HostCostFs::HostCostFs(FileSystem* target, DiskContext* context, const HostModel& model)
    : FileSystemWrapper(target), context_(context), model_(model) {
  assert(model.cores >= 1 && model.cores <= 4096);
  assert(model.queue_depth >= 1 && model.queue_depth <= 4096);
  assert(model.env.table_open_reads >= 1 && model.env.table_open_reads <= 64);
  core_free_at_ns_.assign(static_cast<size_t>(model.cores), 0);
  queue_free_at_ns_.assign(static_cast<size_t>(model.queue_depth), 0);
}

HostCostFs::~HostCostFs() = default;

uint64_t HostCostFs::syscalls_total() const {
  uint64_t total = 0;
  for (const auto& [name, n] : syscalls_) total += n;
  return total;
}

void HostCostFs::ResetCounts() {
  syscalls_.clear();
  reader_opens_ = 0;
  peak_live_table_files_ = live_table_files_;
}

void HostCostFs::TableFileClosed() {
  assert(live_table_files_ > 0);
  live_table_files_--;
}

uint64_t HostCostFs::Reserve(std::vector<uint64_t>* slots, uint64_t duration_ns) {
  const auto slot = std::min_element(slots->begin(), slots->end());
  const uint64_t start = std::max(*slot, context_->NowNanos());
  *slot = start + duration_ns;
  return *slot;
}

void HostCostFs::WaitUntil(uint64_t end_ns) {
  const uint64_t now = context_->NowNanos();
  if (end_ns > now) context_->Delay(end_ns - now);
}

void HostCostFs::Syscall(const char* name, uint64_t cpu_ns, bool wait) {
  syscalls_[name]++;
  const uint64_t end = Reserve(&core_free_at_ns_, cpu_ns);
  if (wait) WaitUntil(end);
}

void HostCostFs::DeviceRead(size_t n) {
  const uint64_t kib = (static_cast<uint64_t>(n) + 1023) / 1024;
  WaitUntil(
      Reserve(&queue_free_at_ns_, model_.device_read_ns + model_.device_read_per_kib_ns * kib));
}

void HostCostFs::ChargeOpen(const std::string& path, bool direct_io) {
  const SyscallCosts& c = model_.costs;
  const EnvOpenModel& env = model_.env;
  Syscall("open", c.open_ns);
  if (env.separate_fcntl_cloexec) Syscall("fcntl", c.fcntl_ns);
  if (env.stat_for_size) Syscall("stat", c.stat_ns);
  const bool may_discover = direct_io || env.discovery_without_direct_io;
  bool discover = may_discover && env.discovery == EnvOpenModel::BlockSizeDiscovery::kPerOpen;
  if (may_discover && env.discovery == EnvOpenModel::BlockSizeDiscovery::kOncePerDirectory) {
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
    discover = discovered_dirs_.insert(dir).second;
  }
  if (discover) {
    Syscall("fstat", c.stat_ns);
    for (int i = 0; i < model_.path_components; i++) Syscall("lstat", c.lstat_ns);
    Syscall("open", c.open_ns);  // fopen of .../queue/logical_block_size
    Syscall("read", c.read_ns);
    Syscall("close", c.close_ns);
  }
  if (env.fadvise_random) Syscall("fadvise", c.fadvise_ns);
}

Status HostCostFs::NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                                       std::unique_ptr<RandomAccessFile>* result) {
  const bool table_file = IsTableFile(path);
  if (table_file) reader_opens_++;
  ChargeOpen(path, opts.use_direct_io);
  if (table_file) {
    for (int i = 1; i < model_.env.table_open_reads; i++) {
      Syscall("pread", model_.costs.pread_cpu_ns);
      DeviceRead(0);
    }
  }
  std::unique_ptr<RandomAccessFile> file;
  Status s = target()->NewRandomAccessFile(path, opts, &file);
  if (!s.ok()) return s;
  *result = std::make_unique<CostedFile>(std::move(file), this, table_file);
  if (table_file) {
    live_table_files_++;
    peak_live_table_files_ = std::max(peak_live_table_files_, live_table_files_);
  }
  return s;
}

}  // namespace shale::sim
