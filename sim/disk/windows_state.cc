#include "sim/disk/windows_state.h"

#include <cassert>

#include "sim/disk/disk_state.h"
#include "util/hash.h"

namespace shale::sim::windows_internal {

std::string NormalizePath(const std::string& path) {
  return disk_internal::DiskState::Normalize(path);
}

std::string Call(const char* api, const std::string& path) {
  return std::string(api) + "(" + path + ")";
}

uint64_t HashText(const std::string& text) { return Hash64(text.data(), text.size()); }

WinState::WinState(SimDisk* base_disk, DiskContext* ctx, const WindowsDiskOptions& opts)
    : base(base_disk), context(ctx), options(opts) {
  assert(opts.sector_bytes == 512 || opts.sector_bytes == 4096);
}

void WinState::Enter(const char* call, const std::string& path) {
  context->SwitchPoint(call);
  context->Fold(HashText(call));
  context->Fold(HashText(path));
}

Status WinState::Violate(const std::string& rule, const std::string& call,
                         const std::string& detail, const Status& error) {
  WindowsRuleViolation v{rule, call, detail, context->CurrentTaskName()};
  context->Fold(HashText("windows.violation"));
  context->Fold(HashText(v.ToString()));
  violations.push_back(v);
  if (sink) sink(v);
  return error;
}

WinFile* WinState::Find(const std::string& path) {
  const auto it = by_path.find(path);
  return it == by_path.end() ? nullptr : &files.at(it->second);
}

uint64_t WinState::Track(const std::string& path) {
  const auto it = by_path.find(path);
  if (it != by_path.end()) return it->second;
  const uint64_t id = next_file_++;
  WinFile& f = files[id];
  f.path = path;
  uint64_t size = 0;
  if (base->GetFileSize(path, &size).ok()) f.valid_data_bytes = size;
  by_path[path] = id;
  return id;
}

const WinHandle* WinState::HandleNotSharing(const WinFile& file, uint8_t bits) const {
  for (const auto& [handle, h] : file.handles) {
    if ((h.share & bits) != bits) return &h;
  }
  return nullptr;
}

std::string WinState::Holder(const WinHandle& handle) {
  return "by " + handle.opened_by + (handle.task.empty() ? "" : " (task " + handle.task + ")");
}

Status WinState::CheckOpen(const char* api, const std::string& path, uint8_t access,
                           uint8_t share) {
  WinFile* f = Find(path);
  if (f == nullptr) return Status::OK();
  if (f->delete_pending) {
    return Violate("delete pending", Call(api, path),
                   "the name is delete pending: deleted while open, it stays until its last "
                   "handle closes, and opening or creating it is denied",
                   Status::IOError("access denied (delete pending)", path));
  }
  for (const auto& [handle, h] : f->handles) {
    if ((access & ~h.share) != 0 || (h.access & ~share) != 0) {
      return Violate("share mode", Call(api, path), "conflicts with a handle open " + Holder(h),
                     Status::IOError("sharing violation", path));
    }
  }
  return Status::OK();
}

uint64_t WinState::AddHandle(uint64_t id, uint8_t access, uint8_t share, const char* opened_by) {
  const uint64_t handle = next_handle_++;
  files.at(id).handles[handle] = WinHandle{access, share, opened_by, context->CurrentTaskName()};
  return handle;
}

bool WinState::HandleOpen(uint64_t id, uint64_t handle) const {
  const auto it = files.find(id);
  return it != files.end() && it->second.handles.count(handle) != 0;
}

void WinState::CloseHandle(uint64_t id, uint64_t handle) {
  const auto it = files.find(id);
  if (it == files.end() || it->second.handles.erase(handle) == 0) return;
  WinFile& f = it->second;
  if (f.handles.empty() && f.delete_pending) {
    context->Fold(HashText("windows.pending_delete_done"));
    (void)base->UnlinkQuietly(f.path);  // the name is there: nothing else removes it
    Unmap(f.path);
  }
  Collect(id);
}

void WinState::Unmap(const std::string& path) {
  const auto it = by_path.find(path);
  if (it == by_path.end()) return;
  WinFile& f = files.at(it->second);
  f.path.clear();
  f.delete_pending = false;
  const uint64_t id = it->second;
  by_path.erase(it);
  Collect(id);
}

void WinState::Collect(uint64_t id) {
  const auto it = files.find(id);
  if (it != files.end() && it->second.path.empty() && it->second.handles.empty()) files.erase(it);
}

void WinState::NoteWrite(uint64_t id, uint64_t offset, uint64_t length) {
  WinFile& f = files.at(id);
  if (offset > f.valid_data_bytes) {
    const uint64_t gap = offset - f.valid_data_bytes;
    zero_filled_bytes += gap;
    context->Fold(HashText("windows.zero_fill"));
    context->Fold(gap);
    context->Delay((gap + 1023) / 1024 * options.zero_fill_ns_per_kib);
  }
  if (offset + length > f.valid_data_bytes) f.valid_data_bytes = offset + length;
}

void WinState::CloseAll() {
  std::vector<std::string> pending;
  for (auto& [id, f] : files) {
    f.handles.clear();
    if (f.delete_pending) pending.push_back(f.path);
  }
  for (const std::string& path : pending) {
    (void)base->UnlinkQuietly(path);
    Unmap(path);
  }
  std::vector<uint64_t> ids;
  for (const auto& [id, f] : files) ids.push_back(id);
  for (uint64_t id : ids) Collect(id);
}

void WinState::Forget() {
  files.clear();
  by_path.clear();
}

}  // namespace shale::sim::windows_internal
