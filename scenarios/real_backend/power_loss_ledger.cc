#include "scenarios/real_backend/power_loss_ledger.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "scenarios/crash_recovery/fault_plan.h"

namespace shale::scenario {

namespace {

constexpr uint64_t kSectorBytes = 512;

std::string WithoutTrailingSlash(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::string ParentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

Status Errno(const std::string& what) {
  return Status::IOError("power loss: " + what + ": " + std::strerror(errno));
}

// Regular files directly in dir, sorted (the draws never depend on
// directory order).
Status ListFiles(const std::string& dir, std::vector<std::string>* names) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Errno("opendir " + dir);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::lstat((dir + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode))
      names->push_back(name);
  }
  ::closedir(d);
  std::sort(names->begin(), names->end());
  return Status::OK();
}

}  // namespace

void PowerLossLedger::WillCreate(const std::string& path) {
  events_.push_back(NameEvent{NameEvent::Kind::kCreate, path, "", "", false});
}

void PowerLossLedger::WillDelete(const std::string& path, const std::string& trash) {
  events_.push_back(NameEvent{NameEvent::Kind::kDelete, path, "", trash, false});
}

void PowerLossLedger::WillRename(const std::string& src, const std::string& dst,
                                 const std::string& dst_trash) {
  events_.push_back(NameEvent{NameEvent::Kind::kRename, src, dst, dst_trash, false});
}

void PowerLossLedger::DirSynced(const std::string& dir, uint64_t name_events) {
  const std::string synced = WithoutTrailingSlash(dir);
  const size_t n = std::min<size_t>(process_base_ + name_events, events_.size());
  for (size_t i = 0; i < n; i++) {
    if (ParentDir(events_[i].path) == synced) events_[i].durable = true;
  }
}

void PowerLossLedger::FileSynced(uint64_t inode, uint64_t size_bytes) {
  durable_size_[inode] = size_bytes;
}

Status PowerLossLedger::Undo(const NameEvent& e) {
  switch (e.kind) {
    case NameEvent::Kind::kCreate:
      if (::unlink(e.path.c_str()) != 0 && errno != ENOENT) return Errno("unlink " + e.path);
      return Status::OK();
    case NameEvent::Kind::kDelete:
      if (Exists(e.path)) return Status::OK();  // the delete never happened
      if (::link(e.trash.c_str(), e.path.c_str()) != 0) return Errno("restore " + e.path);
      return Status::OK();
    case NameEvent::Kind::kRename:
      if (Exists(e.path) || !Exists(e.dst)) return Status::OK();  // never happened
      if (::rename(e.dst.c_str(), e.path.c_str()) != 0) return Errno("unrename " + e.dst);
      if (!e.trash.empty() && ::link(e.trash.c_str(), e.dst.c_str()) != 0) {
        return Errno("restore " + e.dst);
      }
      return Status::OK();
  }
  return Status::OK();
}

Status PowerLossLedger::PowerLoss(const std::string& dir, sim::ChoiceTape* tape) {
  figures_ = Figures{};
  torn_logs_.clear();
  std::vector<const NameEvent*> uncommitted;
  for (const NameEvent& e : events_) {
    if (!e.durable) uncommitted.push_back(&e);
  }
  const size_t kept = tape->Uniform(uncommitted.size() + 1);
  figures_.name_events_uncommitted = uncommitted.size();
  figures_.name_events_undone = uncommitted.size() - kept;
  for (size_t i = uncommitted.size(); i > kept; i--) {
    Status s = Undo(*uncommitted[i - 1]);
    if (!s.ok()) return s;
  }
  const Status s = CutData(WithoutTrailingSlash(dir), tape);
  return s.ok() ? SettleAfterPowerLoss(WithoutTrailingSlash(dir)) : s;
}

Status PowerLossLedger::SettleAfterPowerLoss(const std::string& dir) {
  events_.clear();
  process_base_ = 0;
  durable_size_.clear();  // only files that still exist keep an entry
  std::vector<std::string> names;
  Status s = ListFiles(dir, &names);
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    struct stat st;
    const std::string path = dir + "/" + names[i];
    if (::stat(path.c_str(), &st) != 0) return Errno("stat " + path);
    durable_size_[static_cast<uint64_t>(st.st_ino)] = static_cast<uint64_t>(st.st_size);
  }
  return s;
}

Status PowerLossLedger::CutData(const std::string& dir, sim::ChoiceTape* tape) {
  std::vector<std::string> names;
  Status s = ListFiles(dir, &names);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Errno("stat " + path);
    const auto found = durable_size_.find(static_cast<uint64_t>(st.st_ino));
    const uint64_t durable = found == durable_size_.end() ? 0 : found->second;
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size <= durable) continue;
    const uint64_t how = tape->Uniform(4);  // 0, 1: all lost; 2: a prefix; 3: a torn prefix
    uint64_t new_size = durable;
    if (how >= 2) new_size = durable + 1 + tape->Uniform(size - durable);
    if (::truncate(path.c_str(), static_cast<off_t>(new_size)) != 0)
      return Errno("truncate " + path);
    if (how < 2) {
      figures_.files_cut++;
      continue;
    }
    figures_.files_kept_part++;
    if (IsLogFile(path)) torn_logs_.insert(path);
    if (how == 2) continue;
    // Torn: the last kept sector (within the unsynced bytes) ends in garbage.
    const uint64_t sector_start = std::max(durable, (new_size - 1) / kSectorBytes * kSectorBytes);
    const uint64_t tear_at = sector_start + tape->Uniform(new_size - sector_start);
    std::string garbage;
    while (garbage.size() < new_size - tear_at)
      garbage.push_back(static_cast<char>(tape->Uniform(256)));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Errno("open " + path);
    const ssize_t n = ::pwrite(fd, garbage.data(), garbage.size(), static_cast<off_t>(tear_at));
    ::close(fd);
    if (n != static_cast<ssize_t>(garbage.size())) return Errno("pwrite " + path);
    figures_.files_torn++;
  }
  return Status::OK();
}

}  // namespace shale::scenario
