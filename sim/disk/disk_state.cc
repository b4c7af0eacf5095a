// DiskState: paths, inode bookkeeping, page-cache writes and the per-call
// plumbing (switch point, latency, trace). See disk_state.h.
#include "sim/disk/disk_state.h"

#include <algorithm>
#include <cassert>

#include "util/hash.h"

namespace shale::sim::disk_internal {

Status DeadHandleError() { return Status::IOError("handle from a crashed process"); }

DiskState::DiskState(DiskContext* ctx, const LatencyProfile& latency)
    : context(ctx), latency_(latency) {
  dirs[""];  // the root always exists
}

namespace {

// One trace line per disk call (see TraceIoLine in disk_state.h).
std::string IoTraceLine(const OpSpec& spec, uint64_t start_ns, uint64_t end_ns,
                        const std::string& task, const Status& s) {
  std::string op = spec.name;
  if (op.rfind("disk.", 0) == 0) op.erase(0, 5);
  return "io t=" + std::to_string(start_ns) + ".." + std::to_string(end_ns) + " task '" + task +
         "' " + op + " " + (spec.path->empty() ? std::string("/") : *spec.path) + " " +
         std::to_string(spec.bytes) + " bytes: " + (s.ok() ? std::string("OK") : s.ToString());
}

}  // namespace

Status DiskState::RunOp(const OpSpec& spec, const std::function<Status()>& effect) {
  assert(spec.path != nullptr);
  if (switch_points) context->SwitchPoint(spec.name);
  const uint64_t start_ns = context->NowNanos();
  Status s;
  if (spec.handle_incarnation != 0 && spec.handle_incarnation != incarnation) {
    s = DeadHandleError();
  } else {
    s = effect();
    context->Delay(spec.latency_ns);
  }
  s = NamingPath(s, *spec.path);
  context->Fold(HashString(spec.name));
  context->Fold(HashString(*spec.path));
  context->Fold(spec.bytes);
  context->Fold(static_cast<uint64_t>(s.code()));
  if (spec.data != nullptr && s.ok()) context->Fold(Hash64(spec.data->data(), spec.data->size()));
  if (context->tracing()) {
    context->TraceEvent(
        IoTraceLine(spec, start_ns, context->NowNanos(), context->CurrentTaskName(), s));
  }
  return s;
}

// ---- paths

std::string DiskState::Normalize(const std::string& path) {
  std::string p = path;
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (!p.empty() && p.front() != '/') p.insert(p.begin(), '/');
  return p;
}

PathParts DiskState::Split(const std::string& normalized) {
  const size_t slash = normalized.rfind('/');
  if (slash == std::string::npos) return {"", normalized};
  return {normalized.substr(0, slash), normalized.substr(slash + 1)};
}

std::string DiskState::Join(const std::string& dir, const std::string& name) {
  return dir + "/" + name;
}

bool DiskState::DirVisible(const std::string& dir) const {
  if (dir.empty()) return true;
  const Entry* e = FindVisible(dir);
  return e != nullptr && e->is_dir;
}

bool DiskState::DirDurable(const std::string& dir) const {
  if (dir.empty()) return true;
  const Entry* e = FindDurable(dir);
  return e != nullptr && e->is_dir;
}

const Entry* DiskState::FindVisible(const std::string& path) const {
  if (path.empty()) return nullptr;
  const PathParts parts = Split(path);
  if (!DirVisible(parts.parent)) return nullptr;
  const auto dir = dirs.find(parts.parent);
  if (dir == dirs.end()) return nullptr;
  const auto it = dir->second.visible.find(parts.name);
  return it == dir->second.visible.end() ? nullptr : &it->second;
}

const Entry* DiskState::FindDurable(const std::string& path) const {
  if (path.empty()) return nullptr;
  const PathParts parts = Split(path);
  if (!DirDurable(parts.parent)) return nullptr;
  const auto dir = dirs.find(parts.parent);
  if (dir == dirs.end()) return nullptr;
  const auto it = dir->second.durable.find(parts.name);
  return it == dir->second.durable.end() ? nullptr : &it->second;
}

Inode* DiskState::VisibleFile(const std::string& path, uint64_t* id) {
  const Entry* e = FindVisible(path);
  if (e == nullptr || e->is_dir) return nullptr;
  auto it = inodes.find(e->inode);
  assert(it != inodes.end());
  *id = e->inode;
  return &it->second;
}

uint64_t DiskState::NewInode() {
  const uint64_t id = next_inode_++;
  inodes[id];
  return id;
}

bool DiskState::Referenced(uint64_t id) const {
  const auto it = inodes.find(id);
  if (it != inodes.end() && it->second.open_handles > 0) return true;
  for (const auto& [path, dir] : dirs) {
    for (const auto* table : {&dir.visible, &dir.durable}) {
      for (const auto& [name, entry] : *table) {
        if (!entry.is_dir && entry.inode == id) return true;
      }
    }
  }
  return JournalLinks(id);
}

void DiskState::MaybeFree(uint64_t id) {
  if (!Referenced(id)) inodes.erase(id);
}

void DiskState::FreeUnreferenced() {
  std::vector<uint64_t> ids;
  for (const auto& [id, inode] : inodes) ids.push_back(id);
  for (uint64_t id : ids) MaybeFree(id);
}

// ---- data

void DiskState::Write(Inode* inode, uint64_t offset, const Slice& data) {
  if (data.size() == 0) return;
  std::string& v = inode->visible;
  const uint64_t end = offset + data.size();
  if (v.size() < end) v.resize(end, '\0');
  std::copy(data.data(), data.data() + data.size(), v.begin() + static_cast<ptrdiff_t>(offset));
  const uint64_t first = offset / SimDisk::kSectorBytes;
  const uint64_t last = (end - 1) / SimDisk::kSectorBytes;
  for (uint64_t s = first; s <= last; ++s) {
    const uint64_t start = s * SimDisk::kSectorBytes;
    std::string image =
        v.substr(start, std::min<uint64_t>(SimDisk::kSectorBytes, v.size() - start));
    const auto begin = static_cast<uint32_t>(std::max(offset, start) - start);
    const auto finish = static_cast<uint32_t>(std::min(end, start + SimDisk::kSectorBytes) - start);
    auto& pending = inode->pending;
    if (!pending.empty() && pending.back().sector == s) {
      PendingSector& p = pending.back();  // the page is written back once
      p.image = std::move(image);
      p.dirty_begin = std::min(p.dirty_begin, begin);
      p.dirty_end = std::max(p.dirty_end, finish);
    } else {
      pending.push_back({s, std::move(image), begin, finish});
    }
  }
}

void DiskState::Truncate(Inode* inode, uint64_t size) {
  inode->visible.resize(size, '\0');
  std::vector<PendingSector> kept;
  for (PendingSector& w : inode->pending) {
    const uint64_t start = w.sector * SimDisk::kSectorBytes;
    if (start >= size) continue;
    const auto room =
        static_cast<uint32_t>(std::min<uint64_t>(size - start, SimDisk::kSectorBytes));
    if (w.image.size() > room) w.image.resize(room);
    w.dirty_end = std::min(w.dirty_end, room);
    if (w.dirty_begin < w.dirty_end) kept.push_back(std::move(w));
  }
  inode->pending = std::move(kept);
  // Sectors wholly past the end go back to the file system, bad ones too:
  // a write there later lands on a freshly allocated block.
  const uint64_t first_freed = (size + SimDisk::kSectorBytes - 1) / SimDisk::kSectorBytes;
  auto& lost = inode->clean_unwritten;
  lost.erase(lost.lower_bound(first_freed), lost.end());
  inode->unreadable.erase(inode->unreadable.lower_bound(first_freed), inode->unreadable.end());
}

void DiskState::MakeDurable(Inode* inode) {
  std::string durable = inode->visible;
  std::set<uint64_t> rewritten;
  for (const PendingSector& w : inode->pending) rewritten.insert(w.sector);
  for (auto it = inode->clean_unwritten.begin(); it != inode->clean_unwritten.end();) {
    if (rewritten.count(*it) != 0) {
      it = inode->clean_unwritten.erase(it);
      continue;
    }
    const uint64_t start = *it * SimDisk::kSectorBytes;
    const uint64_t end = std::min<uint64_t>(start + SimDisk::kSectorBytes, durable.size());
    for (uint64_t b = start; b < end; ++b) {
      durable[b] = b < inode->durable.size() ? inode->durable[b] : '\0';
    }
    ++it;
  }
  inode->durable = std::move(durable);
  inode->pending.clear();
}

void DiskState::DropPending(Inode* inode) {
  inode->visible = inode->durable;
  inode->pending.clear();
  inode->clean_unwritten.clear();
}

void DiskState::MarkClean(Inode* inode) {
  for (const PendingSector& w : inode->pending) inode->clean_unwritten.insert(w.sector);
  inode->pending.clear();
}

void DiskState::WriteMisdirected(Inode* inode, uint64_t offset, const Slice& data,
                                 uint64_t target) {
  const std::string& v = inode->visible;
  std::string old(data.size(), '\0');
  if (offset < v.size()) {
    const size_t kept = std::min<uint64_t>(data.size(), v.size() - offset);
    std::copy(v.begin() + static_cast<ptrdiff_t>(offset),
              v.begin() + static_cast<ptrdiff_t>(offset + kept), old.begin());
  }
  Write(inode, offset, old);
  Write(inode, target, data);
}

Status DiskState::CheckReadable(const Inode& inode, uint64_t offset, uint64_t length) {
  if (length == 0 || inode.unreadable.empty()) return Status::OK();
  const uint64_t first = offset / SimDisk::kSectorBytes;
  const uint64_t last = (offset + length - 1) / SimDisk::kSectorBytes;
  const auto it = inode.unreadable.lower_bound(first);
  if (it != inode.unreadable.end() && *it <= last) {
    return Status::IOError("unreadable sector (injected media error)");
  }
  return Status::OK();
}

// ---- latency and hashing

uint64_t DiskState::ReadLatency(uint64_t bytes) const {
  return latency_.read_ns + latency_.read_per_kib_ns * bytes / 1024;
}

uint64_t DiskState::WriteLatency(uint64_t bytes) const {
  return latency_.write_ns + latency_.write_per_kib_ns * bytes / 1024;
}

uint64_t DiskState::HashString(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace shale::sim::disk_internal
