// SimDisk's FileSystem calls: opening files and the name space (create,
// rename, delete, directories, locks). Crashes are in sim_disk_crash.cc,
// handles in sim_disk_files.cc, shared state in disk_state.{h,cc}.
#include "sim/disk/sim_disk.h"

#include <cassert>

#include "sim/disk/disk_state.h"

namespace shale::sim {

using disk_internal::DiskState;
using disk_internal::Entry;
using disk_internal::Inode;
using disk_internal::OpSpec;
using disk_internal::PathParts;

namespace {

OpSpec MetaSpec(const DiskState& st, const char* name, const std::string& path) {
  OpSpec spec;
  spec.name = name;
  spec.path = &path;
  spec.latency_ns = st.MetadataLatency();
  return spec;
}

Status Missing(const std::string& path) { return Status::PathNotFound("no such file", path); }

// Removes the visible file name p (normalized) and journals it.
Status Unlink(DiskState* state, const std::string& p) {
  uint64_t id = 0;
  if (state->VisibleFile(p, &id) == nullptr) return Missing(p);
  const PathParts parts = DiskState::Split(p);
  state->dirs[parts.parent].visible.erase(parts.name);
  state->Journal({{{parts.parent, parts.name, std::nullopt}}, 0, 0});
  state->MaybeFree(id);
  return Status::OK();
}

}  // namespace

LatencyProfile LatencyProfile::NVMe() { return {10'000, 250, 15'000, 500, 30'000, 5'000}; }
LatencyProfile LatencyProfile::SataSsd() {
  return {80'000, 2'000, 100'000, 2'000, 1'000'000, 50'000};
}
LatencyProfile LatencyProfile::Hdd() {
  return {5'000'000, 7'000, 100'000, 7'000, 5'000'000, 200'000};
}
LatencyProfile LatencyProfile::Zero() { return {}; }

SimDisk::SimDisk(DiskContext* context, const LatencyProfile& latency)
    : state_(std::make_unique<DiskState>(context, latency)) {}

SimDisk::~SimDisk() = default;

const std::vector<SimDisk::SurvivingSector>& SimDisk::last_power_loss() const {
  return state_->last_power_loss;
}

const std::vector<std::string>& SimDisk::last_power_loss_holes() const {
  return state_->last_power_loss_holes;
}

SimDisk::MetadataKept SimDisk::last_power_loss_metadata() const {
  return state_->last_power_loss_metadata;
}

void SimDisk::set_fsync_commits_metadata(bool commits) { state_->fsync_commits_metadata = commits; }

size_t SimDisk::uncommitted_metadata_ops() const { return state_->journal.size(); }

Status SimDisk::NewSequentialFile(const std::string& path, const FileOptions& opts,
                                  std::unique_ptr<SequentialFile>* result) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.open_sequential", p), [&] {
    uint64_t id = 0;
    if (state_->VisibleFile(p, &id) == nullptr) return Missing(p);
    *result = disk_internal::NewSequentialHandle(state_.get(), id, p, opts.use_direct_io);
    return Status::OK();
  });
}

Status SimDisk::NewRandomAccessFile(const std::string& path, const FileOptions& opts,
                                    std::unique_ptr<RandomAccessFile>* result) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.open_random", p), [&] {
    uint64_t id = 0;
    if (state_->VisibleFile(p, &id) == nullptr) return Missing(p);
    *result = disk_internal::NewRandomAccessHandle(state_.get(), id, p, opts.use_direct_io);
    return Status::OK();
  });
}

// Finds the visible file at p, creating it (empty) if absent; truncates it if
// `truncate`. PathNotFound if the directory is missing.
static Status OpenOrCreate(DiskState* st, const std::string& p, bool truncate, uint64_t* id) {
  const PathParts parts = DiskState::Split(p);
  if (parts.name.empty() || !st->DirVisible(parts.parent)) return Missing(p);
  auto& table = st->dirs[parts.parent].visible;
  const auto it = table.find(parts.name);
  if (it == table.end()) {
    *id = st->NewInode();
    table[parts.name] = Entry{false, *id};
    st->Journal({{{parts.parent, parts.name, Entry{false, *id}}}, 0, 0});
    return Status::OK();
  }
  if (it->second.is_dir) return Status::IOError("is a directory", p);
  *id = it->second.inode;
  if (truncate) {
    DiskState::Truncate(&st->inodes.at(*id), 0);
    st->Journal({{}, *id, 0});
  }
  return Status::OK();
}

Status SimDisk::NewWritableFile(const std::string& path, const FileOptions& opts,
                                std::unique_ptr<WritableFile>* result) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.create", p), [&] {
    uint64_t id = 0;
    Status s = OpenOrCreate(state_.get(), p, /*truncate=*/true, &id);
    if (s.ok()) *result = disk_internal::NewWritableHandle(state_.get(), id, p, opts.use_direct_io);
    return s;
  });
}

Status SimDisk::ReopenWritableFile(const std::string& path, const FileOptions& opts,
                                   std::unique_ptr<WritableFile>* result) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.reopen", p), [&] {
    uint64_t id = 0;
    Status s = OpenOrCreate(state_.get(), p, /*truncate=*/false, &id);
    if (s.ok()) *result = disk_internal::NewWritableHandle(state_.get(), id, p, opts.use_direct_io);
    return s;
  });
}

Status SimDisk::FileExists(const std::string& path) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.exists", p), [&] {
    const bool exists = p.empty() || state_->FindVisible(p) != nullptr;
    return exists ? Status::OK() : Status::NotFound(p);
  });
}

bool SimDisk::HasVisibleName(const std::string& path) const {
  return state_->FindVisible(DiskState::Normalize(path)) != nullptr;
}

std::vector<std::string> SimDisk::VisibleChildren(const std::string& dir) const {
  const std::string p = DiskState::Normalize(dir);
  std::vector<std::string> paths;
  if (!state_->DirVisible(p)) return paths;
  for (const auto& [name, entry] : state_->dirs.at(p).visible) {
    if (!entry.is_dir) paths.push_back(DiskState::Join(p, name));
  }
  return paths;
}

Status SimDisk::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  const std::string p = DiskState::Normalize(dir);
  return state_->RunOp(MetaSpec(*state_, "disk.children", p), [&] {
    names->clear();
    if (!state_->DirVisible(p)) return Missing(p);
    for (const auto& [name, entry] : state_->dirs[p].visible) names->push_back(name);
    return Status::OK();
  });
}

Status SimDisk::GetFileSize(const std::string& path, uint64_t* size) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.file_size", p), [&] {
    uint64_t id = 0;
    const Inode* inode = state_->VisibleFile(p, &id);
    if (inode == nullptr) return Missing(p);
    *size = inode->visible.size();
    return Status::OK();
  });
}

Status SimDisk::DeleteFile(const std::string& path) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.delete", p),
                       [&] { return Unlink(state_.get(), p); });
}

Status SimDisk::UnlinkQuietly(const std::string& path) {
  const std::string p = DiskState::Normalize(path);
  const Status s = Unlink(state_.get(), p);
  state_->context->Fold(DiskState::HashString("disk.unlink_quietly"));
  state_->context->Fold(DiskState::HashString(p));
  return s;
}

void SimDisk::set_switch_points(bool on) { state_->switch_points = on; }

Status SimDisk::RenameFile(const std::string& src, const std::string& dst) {
  const std::string from = DiskState::Normalize(src);
  const std::string to = DiskState::Normalize(dst);
  return state_->RunOp(MetaSpec(*state_, "disk.rename", from), [&] {
    uint64_t id = 0;
    if (state_->VisibleFile(from, &id) == nullptr) return Missing(from);
    const PathParts to_parts = DiskState::Split(to);
    if (to_parts.name.empty() || !state_->DirVisible(to_parts.parent)) return Missing(to);
    if (from == to) return Status::OK();
    const Entry* old = state_->FindVisible(to);
    if (old != nullptr && old->is_dir) return Status::IOError("rename onto a directory", to);
    const uint64_t replaced = old == nullptr ? 0 : old->inode;
    const PathParts from_parts = DiskState::Split(from);
    state_->dirs[from_parts.parent].visible.erase(from_parts.name);
    state_->dirs[to_parts.parent].visible[to_parts.name] = Entry{false, id};
    state_->Journal({{{from_parts.parent, from_parts.name, std::nullopt},
                      {to_parts.parent, to_parts.name, Entry{false, id}}},
                     0,
                     0});
    if (replaced != 0) state_->MaybeFree(replaced);
    return Status::OK();
  });
}

Status SimDisk::CreateDirIfMissing(const std::string& dir) {
  const std::string p = DiskState::Normalize(dir);
  return state_->RunOp(MetaSpec(*state_, "disk.mkdir", p), [&] {
    if (p.empty()) return Status::OK();
    const PathParts parts = DiskState::Split(p);
    if (!state_->DirVisible(parts.parent)) return Missing(parts.parent);
    const Entry* e = state_->FindVisible(p);
    if (e != nullptr) return e->is_dir ? Status::OK() : Status::IOError("exists as a file", p);
    // A record whose name is still durable keeps its durable table (the
    // delete was never made durable); otherwise this is a new, empty dir.
    const bool durable_name = state_->FindDurable(p) != nullptr;
    state_->dirs[parts.parent].visible[parts.name] = Entry{true, 0};
    if (!durable_name) state_->dirs[p].durable.clear();
    state_->dirs[p];
    state_->Journal({{{parts.parent, parts.name, Entry{true, 0}}}, 0, 0});
    return Status::OK();
  });
}

Status SimDisk::DeleteDir(const std::string& dir) {
  const std::string p = DiskState::Normalize(dir);
  return state_->RunOp(MetaSpec(*state_, "disk.rmdir", p), [&] {
    if (p.empty()) return Status::IOError("cannot delete the root");
    if (!state_->DirVisible(p)) return Missing(p);
    if (!state_->dirs[p].visible.empty()) return Status::IOError("directory not empty", p);
    const PathParts parts = DiskState::Split(p);
    state_->dirs[parts.parent].visible.erase(parts.name);
    state_->Journal({{{parts.parent, parts.name, std::nullopt}}, 0, 0});
    return Status::OK();
  });
}

Status SimDisk::SyncDir(const std::string& dir) {
  const std::string p = DiskState::Normalize(dir);
  OpSpec spec = MetaSpec(*state_, "disk.sync_dir", p);
  spec.latency_ns = state_->SyncLatency();
  return state_->RunOp(spec, [&] {
    if (!state_->DirVisible(p)) return Missing(p);
    state_->CommitJournal(state_->JournalEndForDir(p));
    assert(state_->dirs.at(p).durable == state_->dirs.at(p).visible);
    return Status::OK();
  });
}

Status SimDisk::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  const std::string p = DiskState::Normalize(path);
  return state_->RunOp(MetaSpec(*state_, "disk.lock", p), [&] {
    if (state_->locks.count(p) != 0) return Status::IOError("lock held", p);
    uint64_t id = 0;
    Status s = OpenOrCreate(state_.get(), p, /*truncate=*/false, &id);
    if (!s.ok()) return s;
    state_->locks.insert(p);
    *lock = disk_internal::NewLockHandle(p, state_->incarnation);
    return Status::OK();
  });
}

Status SimDisk::UnlockFile(std::unique_ptr<FileLock> lock) {
  if (lock == nullptr) return Status::InvalidArgument("UnlockFile: null lock");
  std::string p;
  uint64_t incarnation = 0;
  disk_internal::LockDetails(*lock, &p, &incarnation);
  OpSpec spec = MetaSpec(*state_, "disk.unlock", p);
  spec.handle_incarnation = incarnation;
  return state_->RunOp(spec, [&] {
    state_->locks.erase(p);
    return Status::OK();
  });
}

}  // namespace shale::sim
